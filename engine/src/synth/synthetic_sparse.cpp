// SPDX-License-Identifier: MIT
#include "synth/synthetic_sparse.h"

#include "cpu/quant.h"
#include "gguf/gguf_writer.h"
#include "sparse/activation_profile.h"
#include "synth/random.h"
#include "synth/synthetic_families.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <span>

namespace hearth::synth {

namespace {

// The sparse keys of every synthetic sparse file: PowerInfer's threshold (every predicted neuron
// counts) and, in Hearth's layout, how the neurons are stored.
void declareSparseMetadata(gguf::GgufWriter& writer, bool hearthLayout)
{
    writer.setFloat32("powerinfer.sparse_threshold", 0.0f);
    if (hearthLayout) {
        writer.setString("hearth.sparse.layout", "neuron-fused");
        writer.setString("hearth.sparse.neuron_order", "frequency");
    }
}

std::uint64_t nameSeed(std::uint64_t seed, const std::string& name)
{
    std::uint64_t h = 1469598103934665603ull; // FNV-1a
    for (char c : name)
        h = (h ^ std::uint8_t(c)) * 1099511628211ull;
    return mixSeed(seed, h);
}

void gaussianRow(std::uint64_t seed, float mean, float stddev, float* out, std::int64_t n)
{
    SplitMix64 rng(seed);
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = mean + stddev * rng.nextNormal();
}

// Inverse of the standard normal CDF by bisection on erfc (only a few thousand calls per layer).
double normalQuantile(double p)
{
    p = std::clamp(p, 1e-9, 1.0 - 1e-9);
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 80; ++i) {
        const double mid = 0.5 * (lo + hi);
        const double cdf = 0.5 * std::erfc(-mid / std::sqrt(2.0));
        (cdf < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// Converts rows of floats to the tensor type and hands the bytes to the writer.
class Converter {
public:
    Converter(gguf::GgufWriter& writer)
        : m_writer(writer)
    {
    }

    // @p rows x @p n floats.
    Status write(DType type, const float* x, std::int64_t rows, std::int64_t n)
    {
        const std::size_t rb = rowBytes(type, n);
        m_bytes.resize(rb * std::size_t(rows));
        for (std::int64_t r = 0; r < rows; ++r) {
            std::byte* out = m_bytes.data() + std::size_t(r) * rb;
            if (type == DType::F32)
                std::memcpy(out, x + std::size_t(r) * std::size_t(n), rb);
            else
                cpu::quantizeRow(type, x + std::size_t(r) * std::size_t(n), out, n);
        }
        return m_writer.writeTensorData(std::span<const std::byte>(m_bytes.data(), m_bytes.size()));
    }

private:
    gguf::GgufWriter& m_writer;
    std::vector<std::byte> m_bytes;
};

// One layer's predictor, built and calibrated as described in the header.
struct LayerPredictor {
    std::vector<float> fc1; // hidden x nEmbd
    std::vector<float> fc2; // nFf x hidden, rows in original neuron order
};

LayerPredictor buildPredictor(std::uint64_t seed, std::int64_t nEmbd, std::int64_t nFf, std::int64_t hidden,
                              const std::vector<float>& freqOfNeuron, int samples)
{
    const std::int64_t pairs = hidden / 2;
    LayerPredictor p;
    p.fc1.resize(std::size_t(hidden * nEmbd));
    std::vector<float> w(static_cast<std::size_t>(nEmbd));
    for (std::int64_t k = 0; k < pairs; ++k) {
        gaussianRow(mixSeed(seed, 1000 + std::uint64_t(k)), 0.0f, 1.0f / std::sqrt(float(nEmbd)), w.data(), nEmbd);
        for (std::int64_t c = 0; c < nEmbd; ++c) {
            p.fc1[std::size_t(2 * k * nEmbd + c)] = w[std::size_t(c)];
            p.fc1[std::size_t((2 * k + 1) * nEmbd + c)] = -w[std::size_t(c)];
        }
    }
    // Sampled inputs -> t_m = (w·x_m) / mean_k |w_k·x_m|.
    std::vector<float> t(static_cast<std::size_t>(samples * pairs));
    std::vector<float> x(static_cast<std::size_t>(nEmbd));
    for (int m = 0; m < samples; ++m) {
        gaussianRow(mixSeed(seed, 0xCA11B + std::uint64_t(m)), 0.0f, 1.0f, x.data(), nEmbd);
        float* tm = t.data() + std::size_t(m) * std::size_t(pairs);
        double absSum = 0;
        for (std::int64_t k = 0; k < pairs; ++k) {
            const float* wk = p.fc1.data() + std::size_t(2 * k * nEmbd);
            float s = 0;
            for (std::int64_t c = 0; c < nEmbd; ++c)
                s += wk[c] * x[std::size_t(c)];
            tm[k] = s;
            absSum += std::fabs(s);
        }
        const float inv = absSum > 0 ? float(double(pairs) / absSum) : 0.0f;
        for (std::int64_t k = 0; k < pairs; ++k)
            tm[k] *= inv;
    }
    p.fc2.resize(std::size_t(nFf * hidden));
    std::vector<float> r(static_cast<std::size_t>(pairs));
    for (std::int64_t i = 0; i < nFf; ++i) {
        gaussianRow(mixSeed(seed, 0x5EED0000 + std::uint64_t(i)), 0.0f, 1.0f / std::sqrt(float(pairs)), r.data(), pairs);
        // q_i(x_m) = -r·t_m: its mean and spread over the samples.
        double sum = 0, sumSq = 0;
        for (int m = 0; m < samples; ++m) {
            const float* tm = t.data() + std::size_t(m) * std::size_t(pairs);
            float q = 0;
            for (std::int64_t k = 0; k < pairs; ++k)
                q -= r[std::size_t(k)] * tm[k];
            sum += q;
            sumSq += double(q) * q;
        }
        const double mean = sum / samples;
        const double sd = std::sqrt(std::max(0.0, sumSq / samples - mean * mean));
        const double f = freqOfNeuron[std::size_t(i)];
        // Never (f = 0) and always (f = 1) get a margin well outside the sampled spread.
        const double b = f <= 0.0 ? mean - 12 * sd : f >= 1.0 ? mean + 12 * sd : mean + sd * normalQuantile(f);
        float* row = p.fc2.data() + std::size_t(i * hidden);
        const float offset = float(b / double(pairs));
        for (std::int64_t k = 0; k < pairs; ++k) {
            row[2 * k] = r[std::size_t(k)] + offset;
            row[2 * k + 1] = -r[std::size_t(k)] + offset;
        }
    }
    return p;
}

// One layer's neurons: target frequencies and the file order (Hearth's layout sorts by rank).
struct LayerNeurons {
    std::vector<float> freq;         // [nFf] target frequency of original neuron i
    std::vector<std::int32_t> order; // file position -> original neuron
};

LayerNeurons layerNeurons(std::uint64_t layerSeed, const std::vector<float>& byRank, bool hearthLayout)
{
    const std::int64_t ff = std::int64_t(byRank.size());
    // Rank of each neuron: a random permutation (real models scatter their hot neurons).
    std::vector<std::int32_t> rankOf(static_cast<std::size_t>(ff));
    std::iota(rankOf.begin(), rankOf.end(), 0);
    SplitMix64 shuffle(mixSeed(layerSeed, 7));
    for (std::int64_t i = ff - 1; i > 0; --i)
        std::swap(rankOf[std::size_t(i)], rankOf[std::size_t(shuffle.next() % std::uint64_t(i + 1))]);
    LayerNeurons n;
    n.freq.resize(std::size_t(ff));
    n.order.resize(std::size_t(ff));
    std::vector<std::int32_t> byRankNeuron(static_cast<std::size_t>(ff));
    for (std::int64_t i = 0; i < ff; ++i) {
        n.freq[std::size_t(i)] = byRank[std::size_t(rankOf[std::size_t(i)])];
        byRankNeuron[std::size_t(rankOf[std::size_t(i)])] = std::int32_t(i);
    }
    if (hearthLayout)
        n.order = byRankNeuron;
    else
        std::iota(n.order.begin(), n.order.end(), 0);
    return n;
}

// The falcon/opt variant: the family's dense tensors (synthetic_families.h) with each layer's
// ffn_up/ffn_down replaced by neuron-major rows (PowerInfer: ffn_up + ffn_down_t; Hearth: one
// ffn_neurons row of up|down per neuron) and followed by the predictor. OPT's ffn_up.bias is
// per neuron and follows the file's neuron order; ffn_down.bias is per output and does not.
Status writeFamilySparse(const SynthOptions& options, const SparseSynthOptions& sparse, std::int64_t hidden,
                         const std::vector<float>& byRank, const std::string& partial,
                         std::vector<std::vector<float>>& stats, const SynthProgress& progress)
{
    const ModelShape& s = options.shape;
    const std::int64_t embd = s.embeddingSize;
    const std::int64_t ff = s.feedForwardSize;
    const DType w = options.type;
    const bool hearthLayout = sparse.layout == SparseLayout::Hearth;
    auto hiddenOf = [&](int layer) { return layer == 0 ? 2 * hidden : hidden; };
    auto scale = [](std::int64_t nIn) { return 1.0f / std::sqrt(float(nIn)); };

    gguf::GgufWriter writer(hearthLayout ? gguf::Magic::Gguf : gguf::Magic::PowerInfer);
    declareFamilyMetadata(writer, options);
    declareSparseMetadata(writer, hearthLayout);

    // The dense plan, with each layer's FFN matrices swapped for the sparse ones.
    const std::vector<SynthTensor> dense = plannedFamilyTensors(options);
    // "blk.12.ffn_up.weight" -> 12; -1 for the global tensors.
    auto layerOf = [](const std::string& name) {
        int layer = -1;
        if (name.starts_with("blk."))
            std::from_chars(name.data() + 4, name.data() + name.size(), layer);
        return layer;
    };
    for (const SynthTensor& t : dense) {
        const int l = layerOf(t.name);
        const std::string p = "blk." + std::to_string(l) + ".";
        if (t.name.ends_with(".ffn_down.weight"))
            continue;
        if (!t.name.ends_with(".ffn_up.weight")) {
            writer.addTensor(t.name, t.type, t.shape);
            continue;
        }
        if (hearthLayout) {
            writer.addTensor(p + "ffn_neurons.weight", w, {2 * embd, ff});
        } else {
            writer.addTensor(p + "ffn_up.weight", w, {embd, ff});
            writer.addTensor(p + "ffn_down_t.weight", w, {embd, ff});
        }
        writer.addTensor(p + "fc1.weight", w, {embd, hiddenOf(l)});
        writer.addTensor(p + "fc2.weight", w, {hiddenOf(l), ff});
    }
    HEARTH_TRY(writer.begin(partial));

    Converter out(writer);
    std::vector<float> buffer;
    auto gaussian = [&](const SynthTensor& t) {
        std::int64_t rows = 1;
        for (std::size_t i = 1; i < t.shape.size(); ++i)
            rows *= t.shape[i];
        const std::int64_t n = t.shape[0];
        buffer.resize(std::size_t(rows * n));
        const std::uint64_t seed = nameSeed(options.seed, t.name);
        for (std::int64_t r = 0; r < rows; ++r)
            gaussianRow(mixSeed(seed, std::uint64_t(r)), t.mean, t.stddev, buffer.data() + std::size_t(r * n), n);
        return out.write(t.type, buffer.data(), rows, n);
    };
    const std::uint64_t totalSteps = std::uint64_t(s.layerCount) + 2;
    std::uint64_t steps = 0;
    auto advance = [&]() { return !progress || progress(++steps, totalSteps); };

    LayerNeurons neurons;
    for (const SynthTensor& t : dense) {
        const int l = layerOf(t.name);
        const std::string p = "blk." + std::to_string(l) + ".";
        if (t.name.ends_with(".ffn_down.weight")) {
            if (!advance()) // the last FFN tensor of a layer in both families' plans
                return {ErrorCode::Cancelled, "generation cancelled"};
            continue;
        }
        if (t.name.ends_with(".ffn_up.bias")) {
            // One value per original neuron, whatever the layout, stored in file order.
            std::vector<float> bias(static_cast<std::size_t>(ff));
            gaussianRow(nameSeed(options.seed, t.name), t.mean, t.stddev, bias.data(), ff);
            buffer.resize(std::size_t(ff));
            for (std::int64_t j = 0; j < ff; ++j)
                buffer[std::size_t(j)] = bias[std::size_t(neurons.order[std::size_t(j)])];
            HEARTH_TRY(out.write(DType::F32, buffer.data(), 1, ff));
            continue;
        }
        if (!t.name.ends_with(".ffn_up.weight")) {
            HEARTH_TRY(gaussian(t));
            if (t.name == "token_embd.weight" && !advance())
                return {ErrorCode::Cancelled, "generation cancelled"};
            continue;
        }
        const std::uint64_t layerSeed = nameSeed(options.seed, p + "sparse");
        neurons = layerNeurons(layerSeed, byRank, hearthLayout);
        // Neuron i's rows depend only on (seed, layer, i), whatever the layout.
        const std::uint64_t upSeed = nameSeed(options.seed, p + "ffn_up");
        const std::uint64_t downSeed = nameSeed(options.seed, p + "ffn_down");
        auto neuronRow = [&](bool down, std::int32_t neuron, float* dst) {
            gaussianRow(mixSeed(down ? downSeed : upSeed, std::uint64_t(neuron)), 0.0f, down ? scale(ff) : scale(embd),
                        dst, embd);
        };
        if (hearthLayout) {
            buffer.resize(std::size_t(ff * 2 * embd));
            for (std::int64_t j = 0; j < ff; ++j) {
                for (int which = 0; which < 2; ++which)
                    neuronRow(which == 1, neurons.order[std::size_t(j)], buffer.data() + std::size_t((2 * j + which) * embd));
            }
            // One row of 2 n_embd: the per-row quantization equals two rows of n_embd.
            HEARTH_TRY(out.write(w, buffer.data(), ff, 2 * embd));
        } else {
            buffer.resize(std::size_t(ff * embd));
            for (int which = 0; which < 2; ++which) {
                for (std::int64_t i = 0; i < ff; ++i)
                    neuronRow(which == 1, std::int32_t(i), buffer.data() + std::size_t(i * embd));
                HEARTH_TRY(out.write(w, buffer.data(), ff, embd));
            }
        }
        const LayerPredictor pred = buildPredictor(layerSeed, embd, ff, hiddenOf(l), neurons.freq, sparse.calibrationSamples);
        HEARTH_TRY(out.write(w, pred.fc1.data(), hiddenOf(l), embd));
        buffer.resize(std::size_t(ff * hiddenOf(l)));
        for (std::int64_t j = 0; j < ff; ++j)
            std::memcpy(buffer.data() + std::size_t(j * hiddenOf(l)),
                        pred.fc2.data() + std::size_t(neurons.order[std::size_t(j)]) * std::size_t(hiddenOf(l)),
                        sizeof(float) * std::size_t(hiddenOf(l)));
        HEARTH_TRY(out.write(w, buffer.data(), ff, hiddenOf(l)));
        std::vector<float>& layerStats = stats[std::size_t(l)];
        layerStats.resize(std::size_t(ff));
        for (std::int64_t j = 0; j < ff; ++j)
            layerStats[std::size_t(j)] = neurons.freq[std::size_t(neurons.order[std::size_t(j)])];
    }
    HEARTH_TRY(writer.finish());
    (void)advance();
    return {};
}

} // namespace

Result<SparseLayout> parseSparseLayout(const std::string& name)
{
    if (name == "powerinfer")
        return SparseLayout::PowerInfer;
    if (name == "hearth")
        return SparseLayout::Hearth;
    return Result<SparseLayout>(ErrorCode::InvalidArgument, "unknown sparse layout '" + name + "' (use powerinfer or hearth)");
}

std::vector<float> powerLawFrequencies(std::int64_t nFf, double sparsity, double exponent)
{
    const double target = std::clamp(1.0 - sparsity, 0.0, 1.0);
    auto meanFor = [&](double a) {
        double s = 0;
        for (std::int64_t r = 0; r < nFf; ++r)
            s += std::min(1.0, a * std::pow(double(r + 1), -exponent));
        return s / double(nFf);
    };
    double lo = 0, hi = 1;
    while (meanFor(hi) < target && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (meanFor(mid) < target ? lo : hi) = mid;
    }
    std::vector<float> f(static_cast<std::size_t>(nFf));
    for (std::int64_t r = 0; r < nFf; ++r)
        f[std::size_t(r)] = float(std::min(1.0, hi * std::pow(double(r + 1), -exponent)));
    return f;
}

std::vector<float> activationLocalityOffsets(std::int64_t nFf, double sparsity, std::uint64_t seed)
{
    const std::vector<float> byRank = powerLawFrequencies(nFf, sparsity, 1.0);
    std::vector<float> offsets(byRank.size());
    for (std::size_t i = 0; i < offsets.size(); ++i)
        offsets[i] = float(normalQuantile(byRank[i]));
    // Fisher-Yates with the generator of the weights, so the same seed gives the same order.
    SplitMix64 rng(seed);
    for (std::size_t i = offsets.size(); i > 1; --i)
        std::swap(offsets[i - 1], offsets[std::size_t(rng.next() % i)]);
    return offsets;
}

std::vector<float> activationLocalityGateMeans(std::int64_t nEmbd, std::int64_t nFf, double sparsity, std::uint64_t seed)
{
    std::vector<float> means = activationLocalityOffsets(nFf, sparsity, seed);
    for (float& m : means)
        m = float(double(m) * std::sqrt(2.0) / double(nEmbd));
    return means;
}

Status writeSparseSyntheticModel(const SynthOptions& options, const SparseSynthOptions& sparse, const std::string& path,
                                 const SynthProgress& progress)
{
    HEARTH_TRY(validateOptions(options));
    if (isFamilyArchitecture(options.architecture) && options.ffnActivation != "relu")
        return {ErrorCode::InvalidArgument, "sparse " + options.architecture + " models need a ReLU FFN, not "
                                                + options.ffnActivation};
    if (options.ffnActivation == "swiglu")
        return {ErrorCode::InvalidArgument, "sparse models need a ReLU FFN (reglu, drelu or relu2), not swiglu"};
    if (options.shape.expertCount > 0)
        return {ErrorCode::InvalidArgument, "sparse models with a mixture of experts (" + options.shape.name
                                                + ") are not written yet"};
    if (!(sparse.sparsity >= 0.0 && sparse.sparsity < 1.0))
        return {ErrorCode::InvalidArgument, "sparsity must be in [0, 1)"};
    if (sparse.calibrationSamples < 16 || sparse.calibrationSamples > 1 << 16)
        return {ErrorCode::InvalidArgument, "calibration samples must be between 16 and 65536"};
    if (path.empty())
        return {ErrorCode::InvalidArgument, "no output file given"};

    const ModelShape& s = options.shape;
    const std::int64_t embd = s.embeddingSize;
    const std::int64_t ff = s.feedForwardSize;
    const std::int64_t kv = s.kvEmbeddingSize();
    const DType w = options.type;
    // The predictor is read for every token, so it is stored in the model's own type: an F16
    // predictor would add 40% to the FFN bytes of a Q4_0 model at 90% sparsity.
    const DType predictorType = w;
    const std::int64_t hidden = sparse.predictorHidden > 0 ? sparse.predictorHidden : (embd <= 2048 ? 512 : 1024);
    const std::int64_t multiple = std::max<std::int64_t>(2, dtypeTraits(std::uint32_t(w))->blockElements);
    if (hidden % multiple != 0 || hidden > 65536)
        return {ErrorCode::InvalidArgument, "the predictor's hidden size must be a multiple of " + std::to_string(multiple)};
    auto hiddenOf = [&](int layer) { return layer == 0 ? 2 * hidden : hidden; };
    const bool hearthLayout = sparse.layout == SparseLayout::Hearth;
    const std::vector<float> byRank = powerLawFrequencies(ff, sparse.sparsity, sparse.powerLawExponent);

    if (isFamilyArchitecture(options.architecture)) {
        const std::string partial = path + ".part";
        std::vector<std::vector<float>> stats(std::size_t(s.layerCount));
        if (Status st = writeFamilySparse(options, sparse, hidden, byRank, partial, stats, progress); !st.ok()) {
            std::error_code ec;
            std::filesystem::remove(partial, ec);
            return st;
        }
        std::error_code ec;
        std::filesystem::rename(partial, path, ec);
        if (ec) {
            std::filesystem::remove(partial, ec);
            return {ErrorCode::IoError, "cannot rename '" + partial + "' to '" + path + "'"};
        }
        const std::string statsPath = sparse.statsPath.empty() ? sparse::defaultStatsPath(path) : sparse.statsPath;
        return sparse::writeStatsFile(statsPath, stats, 0);
    }

    gguf::GgufWriter writer(hearthLayout ? gguf::Magic::Gguf : gguf::Magic::PowerInfer);
    declareSyntheticMetadata(writer, options);
    declareSparseMetadata(writer, hearthLayout);
    auto scale = [](std::int64_t nIn) { return 1.0f / std::sqrt(float(nIn)); };

    writer.addTensor("token_embd.weight", w, {embd, s.vocabSize});
    for (int l = 0; l < s.layerCount; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        writer.addTensor(p + "attn_norm.weight", DType::F32, {embd});
        writer.addTensor(p + "attn_q.weight", w, {embd, embd});
        writer.addTensor(p + "attn_k.weight", w, {embd, kv});
        writer.addTensor(p + "attn_v.weight", w, {embd, kv});
        writer.addTensor(p + "attn_output.weight", w, {embd, embd});
        writer.addTensor(p + "ffn_norm.weight", DType::F32, {embd});
        if (hearthLayout) {
            writer.addTensor(p + "ffn_neurons.weight", w, {3 * embd, ff});
        } else {
            writer.addTensor(p + "ffn_gate.weight", w, {embd, ff});
            writer.addTensor(p + "ffn_up.weight", w, {embd, ff});
            writer.addTensor(p + "ffn_down_t.weight", w, {embd, ff});
        }
        writer.addTensor(p + "fc1.weight", predictorType, {embd, hiddenOf(l)});
        writer.addTensor(p + "fc2.weight", predictorType, {hiddenOf(l), ff});
    }
    writer.addTensor("output_norm.weight", DType::F32, {embd});
    writer.addTensor("output.weight", w, {embd, s.vocabSize});

    const std::string partial = path + ".part";
    auto fail = [&](Status status) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        return status;
    };
    if (Status st = writer.begin(partial); !st.ok())
        return fail(st);
    Converter out(writer);
    std::vector<float> buffer;
    auto gaussian = [&](const std::string& name, std::int64_t rows, std::int64_t n, float mean, float sd) {
        buffer.resize(std::size_t(rows * n));
        const std::uint64_t seed = nameSeed(options.seed, name);
        for (std::int64_t r = 0; r < rows; ++r)
            gaussianRow(mixSeed(seed, std::uint64_t(r)), mean, sd, buffer.data() + std::size_t(r * n), n);
        return out.write(name.find("norm") != std::string::npos ? DType::F32 : w, buffer.data(), rows, n);
    };
    const std::uint64_t totalSteps = std::uint64_t(s.layerCount) + 2;
    std::uint64_t steps = 0;
    auto advance = [&]() { return !progress || progress(++steps, totalSteps); };

    std::vector<std::vector<float>> stats(std::size_t(s.layerCount));
    if (Status st = gaussian("token_embd.weight", s.vocabSize, embd, 0.0f, 1.0f); !st.ok())
        return fail(st);
    if (!advance())
        return fail({ErrorCode::Cancelled, "generation cancelled"});
    for (int l = 0; l < s.layerCount; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        const std::uint64_t layerSeed = nameSeed(options.seed, p + "sparse");
        // Rank of each neuron: a random permutation (real models scatter their hot neurons).
        std::vector<std::int32_t> rankOf(static_cast<std::size_t>(ff));
        std::iota(rankOf.begin(), rankOf.end(), 0);
        SplitMix64 shuffle(mixSeed(layerSeed, 7));
        for (std::int64_t i = ff - 1; i > 0; --i)
            std::swap(rankOf[std::size_t(i)], rankOf[std::size_t(shuffle.next() % std::uint64_t(i + 1))]);
        std::vector<float> freq(static_cast<std::size_t>(ff));
        std::vector<std::int32_t> byRankNeuron(static_cast<std::size_t>(ff)); // stored position -> original neuron
        for (std::int64_t i = 0; i < ff; ++i) {
            freq[std::size_t(i)] = byRank[std::size_t(rankOf[std::size_t(i)])];
            byRankNeuron[std::size_t(rankOf[std::size_t(i)])] = std::int32_t(i);
        }
        std::vector<std::int32_t> order(static_cast<std::size_t>(ff)); // file position -> original neuron
        if (hearthLayout)
            order = byRankNeuron;
        else
            std::iota(order.begin(), order.end(), 0);

        const LayerPredictor pred = buildPredictor(layerSeed, embd, ff, hiddenOf(l), freq, sparse.calibrationSamples);

        Status st = gaussian(p + "attn_norm.weight", 1, embd, 1.0f, 0.05f);
        if (st.ok()) st = gaussian(p + "attn_q.weight", embd, embd, 0.0f, scale(embd));
        if (st.ok()) st = gaussian(p + "attn_k.weight", kv, embd, 0.0f, scale(embd));
        if (st.ok()) st = gaussian(p + "attn_v.weight", kv, embd, 0.0f, scale(embd));
        if (st.ok()) st = gaussian(p + "attn_output.weight", embd, embd, 0.0f, scale(embd));
        if (st.ok()) st = gaussian(p + "ffn_norm.weight", 1, embd, 1.0f, 0.05f);
        if (!st.ok())
            return fail(st);
        // Neuron i's rows depend only on (seed, layer, i), whatever the layout.
        const std::uint64_t gateSeed = nameSeed(options.seed, p + "ffn_gate");
        const std::uint64_t upSeed = nameSeed(options.seed, p + "ffn_up");
        const std::uint64_t downSeed = nameSeed(options.seed, p + "ffn_down");
        auto neuronRow = [&](int which, std::int32_t neuron, float* dst) {
            const std::uint64_t base = which == 0 ? gateSeed : which == 1 ? upSeed : downSeed;
            gaussianRow(mixSeed(base, std::uint64_t(neuron)), 0.0f, which == 2 ? scale(ff) : scale(embd), dst, embd);
        };
        if (hearthLayout) {
            buffer.resize(std::size_t(ff * 3 * embd));
            for (std::int64_t j = 0; j < ff; ++j) {
                for (int which = 0; which < 3; ++which)
                    neuronRow(which, order[std::size_t(j)], buffer.data() + std::size_t((3 * j + which) * embd));
            }
            // One row of 3 n_embd: the per-row quantization equals three rows of n_embd.
            st = out.write(w, buffer.data(), ff, 3 * embd);
        } else {
            buffer.resize(std::size_t(ff * embd));
            for (int which = 0; which < 3 && st.ok(); ++which) {
                for (std::int64_t i = 0; i < ff; ++i)
                    neuronRow(which, std::int32_t(i), buffer.data() + std::size_t(i * embd));
                st = out.write(w, buffer.data(), ff, embd);
            }
        }
        if (st.ok())
            st = out.write(predictorType, pred.fc1.data(), hiddenOf(l), embd);
        if (st.ok()) {
            buffer.resize(std::size_t(ff * hiddenOf(l)));
            for (std::int64_t j = 0; j < ff; ++j)
                std::memcpy(buffer.data() + std::size_t(j * hiddenOf(l)),
                            pred.fc2.data() + std::size_t(order[std::size_t(j)]) * std::size_t(hiddenOf(l)),
                            sizeof(float) * std::size_t(hiddenOf(l)));
            st = out.write(predictorType, buffer.data(), ff, hiddenOf(l));
        }
        if (!st.ok())
            return fail(st);
        std::vector<float>& layerStats = stats[std::size_t(l)];
        layerStats.resize(std::size_t(ff));
        for (std::int64_t j = 0; j < ff; ++j)
            layerStats[std::size_t(j)] = freq[std::size_t(order[std::size_t(j)])];
        if (!advance())
            return fail({ErrorCode::Cancelled, "generation cancelled"});
    }
    Status st = gaussian("output_norm.weight", 1, embd, 1.0f, 0.05f);
    if (st.ok())
        st = gaussian("output.weight", s.vocabSize, embd, 0.0f, scale(embd));
    if (st.ok())
        st = writer.finish();
    if (!st.ok())
        return fail(st);
    (void)advance();

    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec)
        return fail({ErrorCode::IoError, "cannot rename '" + partial + "' to '" + path + "': " + ec.message()});
    const std::string statsPath = sparse.statsPath.empty() ? sparse::defaultStatsPath(path) : sparse.statsPath;
    return sparse::writeStatsFile(statsPath, stats, 0);
}

} // namespace hearth::synth
