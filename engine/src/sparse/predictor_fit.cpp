// SPDX-License-Identifier: MIT
#include "sparse/predictor_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <random>

namespace hearth::sparse {

namespace {

using MatrixF = Eigen::MatrixXf;
using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrixF>;
using RowMap = Eigen::Map<RowMatrixF>;

// Scores of this many tokens at a time (tokens x nFf floats).
constexpr std::int64_t kScoreBlock = 256;

// Subspace iteration: the start is random but fixed, and a few iterations suffice as the spectrum
// of the pre-activations falls steeply.
constexpr std::uint32_t kSeed = 0x5eed;

// Every kValidationEvery-th block of kValidationBlock tokens chooses the threshold.
constexpr std::int64_t kValidationBlock = 64;
constexpr std::int64_t kValidationEvery = 5;
constexpr int kPowerIterations = 4;

MatrixF orthonormalColumns(const MatrixF& m)
{
    const Eigen::HouseholderQR<MatrixF> qr(m);
    return qr.householderQ() * MatrixF::Identity(m.rows(), m.cols());
}

// The largest threshold a layer may get, in units of a neuron's score spread. A fit so good that
// the recall is met above zero still predicts every neuron whose score is positive.
constexpr double kHighestThreshold = -1e-3;

} // namespace

LayerSamples::LayerSamples(std::int64_t nEmbd, std::int64_t nFf)
    : m_nEmbd(nEmbd)
    , m_nFf(nFf)
    , m_words((nFf + 63) / 64)
{
}

void LayerSamples::add(const float* residual, const float* acts, int n)
{
    m_inputs.insert(m_inputs.end(), residual, residual + std::size_t(n) * std::size_t(m_nEmbd));
    const std::size_t first = m_fired.size();
    m_fired.resize(first + std::size_t(n) * std::size_t(m_words), 0);
    for (int t = 0; t < n; ++t) {
        std::uint64_t* words = m_fired.data() + first + std::size_t(t) * std::size_t(m_words);
        const float* row = acts + std::size_t(t) * std::size_t(m_nFf);
        for (std::int64_t i = 0; i < m_nFf; ++i)
            words[i / 64] |= std::uint64_t(row[i] != 0.0f) << (i % 64);
    }
    m_tokens += n;
}

std::vector<std::uint64_t> LayerSamples::firingCounts() const
{
    std::vector<std::uint64_t> counts(std::size_t(m_nFf), 0);
    for (std::int64_t t = 0; t < m_tokens; ++t) {
        for (std::int64_t i = 0; i < m_nFf; ++i)
            counts[std::size_t(i)] += fired(t, i) ? 1 : 0;
    }
    return counts;
}

Result<FittedPredictor> fitPredictor(const std::vector<float>& gate, const LayerSamples& samples,
                                     const PredictorFitOptions& options)
{
    const std::int64_t n = samples.nEmbd();
    const std::int64_t nFf = samples.nFf();
    const std::int64_t tokens = samples.tokens();
    if (n <= 0 || nFf <= 0 || gate.size() != std::size_t(n * nFf))
        return Status(ErrorCode::InvalidArgument, "the gate matrix does not match the samples");
    if (tokens < 2)
        return Status(ErrorCode::InvalidArgument, "fitting a predictor needs at least two calibration tokens");
    if (options.rank <= 0 || !(options.recall > 0.0 && options.recall <= 1.0))
        return Status(ErrorCode::InvalidArgument, "the predictor's rank must be positive and its recall in (0, 1]");
    if (!options.bias.empty() && (!options.affine || options.bias.size() != std::size_t(nFf)))
        return Status(ErrorCode::InvalidArgument, "a pre-activation bias needs an affine fit and one value per neuron");
    const std::int64_t rank = std::min({std::int64_t(options.rank), n, nFf});

    FittedPredictor fit;
    try {
        const ConstRowMap x(samples.input(0), Eigen::Index(tokens), Eigen::Index(n));
        const ConstRowMap g(gate.data(), Eigen::Index(nFf), Eigen::Index(n));

        // Blocks of tokens set aside to choose the threshold on: a threshold chosen on the
        // tokens the map was fitted to would promise a recall unseen text does not get.
        std::vector<Eigen::Index> fitRows;
        std::vector<Eigen::Index> validationRows;
        for (std::int64_t t = 0; t < tokens; ++t) {
            const bool validation = (t / kValidationBlock) % kValidationEvery == kValidationEvery - 1;
            (validation ? validationRows : fitRows).push_back(Eigen::Index(t));
        }
        if (validationRows.empty()) // too few tokens to set any aside: all of them do both
            validationRows = fitRows;
        RowMatrixF xFit = x(fitRows, Eigen::all);
        // Affine: the map is fitted to the inputs' deviations from their mean.
        Eigen::RowVectorXf mean = Eigen::RowVectorXf::Zero(Eigen::Index(n));
        if (options.affine) {
            mean = xFit.colwise().mean();
            xFit.rowwise() -= mean;
        }

        // The fitting inputs' covariance C, shrunk towards its mean variance (Ledoit-Wolf style):
        // with fewer samples than dimensions the sample covariance has directions it never saw,
        // and a map fitted to it alone would not generalize.
        MatrixF c = xFit.transpose() * xFit;
        c /= float(fitRows.size());
        const float shrink = float(n) / float(n + std::int64_t(fitRows.size()));
        const float meanVariance = std::max(c.trace() / float(n), 1e-30f);
        c *= 1.0f - shrink;
        c.diagonal().array() += shrink * meanVariance;

        // The best rank-r P over the samples is U U^T G for the top r eigenvectors U of
        // A = G C G^T (the pre-activations' covariance, nFf x nFf), found by subspace iteration
        // with A applied as three products, never formed; then Rayleigh-Ritz on the subspace.
        const auto apply = [&](const MatrixF& v) -> MatrixF {
            const MatrixF t = g.transpose() * v;
            const MatrixF u = c * t;
            return g * u;
        };
        const Eigen::Index width = Eigen::Index(std::min<std::int64_t>(nFf, rank + rank / 4 + 8));
        MatrixF basis(Eigen::Index(nFf), width);
        std::mt19937 random(kSeed);
        for (Eigen::Index j = 0; j < basis.cols(); ++j) {
            for (Eigen::Index i = 0; i < basis.rows(); ++i)
                basis(i, j) = float(double(random()) / double(std::mt19937::max()) * 2.0 - 1.0);
        }
        for (int iteration = 0; iteration < kPowerIterations; ++iteration) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                return Status(ErrorCode::Cancelled, "cancelled");
            basis = orthonormalColumns(apply(basis));
        }
        const MatrixF projected = basis.transpose() * apply(basis);
        const Eigen::SelfAdjointEigenSolver<MatrixF> ritz(projected);
        const MatrixF u = basis * ritz.eigenvectors().rightCols(Eigen::Index(rank)); // nFf x rank
        const Eigen::VectorXf variance = ritz.eigenvalues().tail(Eigen::Index(rank)).cwiseMax(0.0f);
        MatrixF a = u.transpose() * g; // rank x n
        MatrixF f = u;                 // nFf x rank
        // Each neuron's mean pre-activation, less what the map gives the mean input.
        Eigen::VectorXf beta = Eigen::VectorXf::Zero(Eigen::Index(nFf));
        if (options.affine) {
            const Eigen::VectorXf gm = g * mean.transpose();
            beta = gm - u * (u.transpose() * gm);
            if (!options.bias.empty())
                beta += Eigen::Map<const Eigen::VectorXf>(options.bias.data(), Eigen::Index(nFf));
        }

        // Unit spread per neuron: the score of neuron i is sum_k U_ik (U^T G x)_k, and the
        // (U^T G x)_k are uncorrelated over the samples with variances `variance`.
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            const float spread = std::sqrt(f.row(i).array().square().matrix().dot(variance));
            if (spread > 0) {
                f.row(i) /= spread;
                beta(i) /= spread;
            }
        }

        // The threshold that keeps options.recall of the firings on the validation tokens.
        const RowMatrixF hidden = x(validationRows, Eigen::all) * a.transpose(); // tokens x rank
        const RowMatrixF ff = f;
        std::vector<float> firedScores;
        const auto validationTokens = std::int64_t(validationRows.size());
        for (std::int64_t t0 = 0; t0 < validationTokens; t0 += kScoreBlock) {
            const std::int64_t rows = std::min(kScoreBlock, validationTokens - t0);
            RowMatrixF scores = hidden.middleRows(Eigen::Index(t0), Eigen::Index(rows)) * ff.transpose();
            scores.rowwise() += beta.transpose();
            for (std::int64_t t = 0; t < rows; ++t) {
                const Eigen::Index token = validationRows[std::size_t(t0 + t)];
                for (std::int64_t i = 0; i < nFf; ++i) {
                    if (samples.fired(token, i))
                        firedScores.push_back(scores(Eigen::Index(t), Eigen::Index(i)));
                }
            }
        }
        double threshold = kHighestThreshold;
        if (!firedScores.empty()) {
            const auto missed = std::size_t(std::floor((1.0 - options.recall) * double(firedScores.size())));
            std::nth_element(firedScores.begin(), firedScores.begin() + std::ptrdiff_t(missed), firedScores.end());
            threshold = std::min<double>(firedScores[missed], kHighestThreshold);
        }
        // score >= threshold  <=>  score * (kFittedThreshold / threshold) >= kFittedThreshold.
        f *= float(double(kFittedThreshold) / threshold);
        beta *= float(double(kFittedThreshold) / threshold);

        // Balance each hidden unit between fc1 and fc2 (fc2 scaled by 1/b after fc1 by b), so that
        // neither needs a range F16 cannot hold.
        for (Eigen::Index k = 0; k < a.rows(); ++k) {
            const float inMax = a.row(k).cwiseAbs().maxCoeff();
            const float outMax = f.col(k).cwiseAbs().maxCoeff();
            if (inMax > 0 && outMax > 0) {
                const float b = std::sqrt(outMax / inMax);
                a.row(k) *= b;
                f.col(k) /= b;
            }
        }

        fit.nEmbd = n;
        fit.nFf = nFf;
        fit.hidden = rank;
        fit.fc1.resize(std::size_t(fit.hidden * n));
        fit.fc2.resize(std::size_t(nFf * fit.hidden));
        RowMap(fit.fc1.data(), Eigen::Index(rank), Eigen::Index(n)) = a;
        RowMap(fit.fc2.data(), Eigen::Index(nFf), Eigen::Index(rank)) = f;
        if (options.affine)
            fit.bias.assign(beta.data(), beta.data() + nFf);
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory to fit a predictor for this layer");
    }
    return fit;
}

PredictorQuality measurePredictor(const FittedPredictor& predictor, const LayerSamples& samples)
{
    PredictorQuality quality;
    const std::int64_t tokens = samples.tokens();
    const std::int64_t nFf = predictor.nFf;
    if (tokens == 0 || predictor.nEmbd != samples.nEmbd() || nFf != samples.nFf())
        return quality;
    const ConstRowMap fc1(predictor.fc1.data(), Eigen::Index(predictor.hidden), Eigen::Index(predictor.nEmbd));
    const ConstRowMap fc2(predictor.fc2.data(), Eigen::Index(nFf), Eigen::Index(predictor.hidden));
    std::uint64_t fired = 0, predicted = 0, both = 0;
    for (std::int64_t t0 = 0; t0 < tokens; t0 += kScoreBlock) {
        const std::int64_t rows = std::min(kScoreBlock, tokens - t0);
        const ConstRowMap x(samples.input(t0), Eigen::Index(rows), Eigen::Index(predictor.nEmbd));
        RowMatrixF logits = (x * fc1.transpose()) * fc2.transpose();
        if (!predictor.bias.empty())
            logits.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(predictor.bias.data(), Eigen::Index(nFf));
        for (std::int64_t t = 0; t < rows; ++t) {
            for (std::int64_t i = 0; i < nFf; ++i) {
                const bool on = logits(Eigen::Index(t), Eigen::Index(i)) >= kFittedThreshold;
                const bool truth = samples.fired(t0 + t, i);
                fired += truth;
                predicted += on;
                both += on && truth;
            }
        }
    }
    const double all = double(tokens) * double(nFf);
    quality.recall = fired ? double(both) / double(fired) : 1.0;
    quality.precision = predicted ? double(both) / double(predicted) : 1.0;
    quality.predictedShare = double(predicted) / all;
    quality.firedShare = double(fired) / all;
    return quality;
}

} // namespace hearth::sparse
