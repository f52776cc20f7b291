// SPDX-License-Identifier: MIT
// hearth-gpu-check: runs every operation of the CUDA back end on random data and compares it with
// the same operation on the emulated device (the CPU kernels), and the matrix kernels also with a
// double-precision reference from dequantized rows. Exits 0 with "no GPU: skipped" where the
// module, the driver or a GPU is missing, 1 on any mismatch.
//
//   hearth-gpu-check [--module PATH] [--device N] [--out DIR] [--emulated]
//
// --emulated checks the checker: an emulated device stands in for the GPU (every error is 0).
// With --out, writes DIR/gpu-check.json.

#include "check_support.h"
#include "cpu/matmul.h"
#include "cpu/thread_pool.h"
#include "device/dense_offload.h"
#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "device/hybrid_ffn.h"
#include "model/rope_scaling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace hearth;
using namespace hearth::device;
using namespace hearth::gpucheck;

namespace {

struct CheckResult {
    std::string name;
    double error = 0;
    double tolerance = 0;
    bool pass = false;
    std::string note;
};

// The same operation on both devices: buffers come in pairs.
class Pair {
public:
    Pair(Device& gpu, Device& ref)
        : m_gpu(gpu)
        , m_ref(ref)
    {
    }
    ~Pair()
    {
        for (auto& b : m_buffers) {
            m_gpu.free(b.first);
            m_ref.free(b.second);
        }
    }

    struct Buf {
        DeviceBuffer gpu, ref;
    };
    struct Mat {
        DeviceMatrix gpu, ref;
    };

    Buf put(const void* data, std::size_t bytes)
    {
        Buf b;
        auto g = data ? m_gpu.allocateAndUpload(data, bytes, "check data") : m_gpu.allocate(bytes, "check scratch");
        auto r = data ? m_ref.allocateAndUpload(data, bytes, "check data") : m_ref.allocate(bytes, "check scratch");
        if (g && r) {
            b.gpu = *g;
            b.ref = *r;
            m_buffers.emplace_back(b.gpu, b.ref);
        } else {
            m_failed = true;
        }
        return b;
    }
    Buf zeros(std::size_t bytes)
    {
        std::vector<std::uint8_t> z(bytes, 0);
        return put(z.data(), bytes);
    }
    Mat matrix(DType t, const std::vector<std::uint8_t>& data, std::int64_t rows, std::int64_t cols)
    {
        const Buf b = put(data.data(), data.size());
        return Mat{DeviceMatrix{t, b.gpu, rows, cols}, DeviceMatrix{t, b.ref, rows, cols}};
    }
    template <typename T>
    void fetch(const Buf& b, std::size_t n, std::vector<T>& gpu, std::vector<T>& ref)
    {
        gpu.assign(n, T{});
        ref.assign(n, T{});
        if (!m_gpu.download(b.gpu, 0, gpu.data(), n * sizeof(T)).ok() || !m_gpu.synchronize().ok())
            m_failed = true;
        if (!m_ref.download(b.ref, 0, ref.data(), n * sizeof(T)).ok() || !m_ref.synchronize().ok())
            m_failed = true;
    }
    [[nodiscard]] bool failed() const { return m_failed; }
    void fail() { m_failed = true; }

    Device& m_gpu;
    Device& m_ref;

private:
    std::vector<std::pair<DeviceBuffer, DeviceBuffer>> m_buffers;
    bool m_failed = false;
};

std::string typeName(DType t)
{
    return std::string(dtypeName(t));
}

// Expected agreement with the CPU kernels. Quantized weights: the CPU multiplies activations
// rounded to Q8_0 (K-quants: Q8_K) blocks, the GPU full floats, so they differ by the activation
// rounding.
double tolerance(DType t)
{
    switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
        return 1e-4;
    default:
        return 3e-2;
    }
}

// Double-precision product of rows of @p w with x.
std::vector<float> exactRows(const cpu::WeightMatrix& w, const float* x, const std::vector<std::int32_t>& rows)
{
    std::vector<float> row(std::size_t(w.cols));
    std::vector<float> out;
    for (std::int32_t r : rows) {
        cpu::getRow(w, r, row.data());
        double s = 0;
        for (std::int64_t c = 0; c < w.cols; ++c)
            s += double(row[std::size_t(c)]) * double(x[c]);
        out.push_back(float(s));
    }
    return out;
}

// What an attention check varies besides the heads.
struct AttentionCase {
    RopeStyle rope = RopeStyle::Normal;
    bool llama3Factors = false;
    bool halfCache = false;
    bool sinks = false; // gpt-oss's attention sinks
    int window = 0;     // a sliding window of keys; 0: all
};

class Checker {
public:
    Checker(Device& gpu, Device& ref, bool emulated)
        : m_gpu(gpu)
        , m_ref(ref)
        , m_emulated(emulated)
    {
    }

    // Against the double-precision reference the GPU, which multiplies full-float activations,
    // is exact up to float rounding; the emulated stand-in rounds activations to Q8_0 like the CPU.
    [[nodiscard]] double exactTolerance(DType t) const { return m_emulated ? tolerance(t) : 1e-4; }

    void record(const std::string& name, double error, double tol, const std::string& note = {})
    {
        const bool pass = error <= tol;
        m_results.push_back(CheckResult{name, error, tol, pass, note});
        std::printf("%-44s %s  error %.3g (tolerance %.3g)%s%s\n", name.c_str(), pass ? "ok  " : "FAIL", error, tol,
                    note.empty() ? "" : "  ", note.c_str());
    }
    void failed(const std::string& name, const std::string& why)
    {
        m_results.push_back(CheckResult{name, 1e30, 0, false, why});
        std::printf("%-44s FAIL  %s\n", name.c_str(), why.c_str());
    }

    void matmul(DType t, std::int64_t rows, std::int64_t cols, std::int64_t tokens)
    {
        const std::string name = "matmul " + typeName(t) + " " + std::to_string(rows) + "x" + std::to_string(cols)
                                 + " tokens " + std::to_string(tokens);
        Pair p(m_gpu, m_ref);
        const auto w = randomMatrix(t, rows, cols, 1);
        const auto x = randomFloats(std::size_t(cols * tokens), 2);
        auto m = p.matrix(t, w, rows, cols);
        auto bx = p.put(x.data(), x.size() * 4);
        auto by = p.zeros(std::size_t(rows * tokens) * 4);
        if (p.failed() || !m_gpu.matmul(MatmulOp{&m.gpu, bx.gpu, by.gpu, tokens}).ok()
            || !m_ref.matmul(MatmulOp{&m.ref, bx.ref, by.ref, tokens}).ok())
            return failed(name, "could not run");
        std::vector<float> g, r;
        p.fetch(by, std::size_t(rows * tokens), g, r);
        // cuBLAS multiplies F16 weights, or quantized ones dequantized to F16 tiles from 16
        // tokens, with activations rounded to F16.
        const bool halfInputs = (t == DType::F16 && tokens > 1) || (t != DType::F32 && tokens >= 16);
        record(name + " vs cpu", relativeError(g, r), halfInputs ? std::max(5e-3, tolerance(t)) : tolerance(t));
        std::vector<std::int32_t> all(static_cast<std::size_t>(rows));
        std::iota(all.begin(), all.end(), 0);
        const cpu::WeightMatrix hw{t, w.data(), rows, cols};
        const auto last = exactRows(hw, x.data() + (tokens - 1) * cols, all);
        const std::vector<float> gLast(g.end() - rows, g.end());
        record(name + " vs exact", relativeError(gLast, last), halfInputs ? std::max(5e-3, exactTolerance(t)) : exactTolerance(t));
    }

    // A prompt's down projection over neuron-major rows: y[t] = sum over r of x[t][r] * W[r].
    void matmulTransposed(DType t, std::int64_t rows, std::int64_t cols, std::int64_t tokens)
    {
        const std::string name = "matmul transposed " + typeName(t) + " " + std::to_string(rows) + "x"
                                 + std::to_string(cols) + " tokens " + std::to_string(tokens);
        Pair p(m_gpu, m_ref);
        const auto w = randomMatrix(t, rows, cols, 3);
        const auto x = randomFloats(std::size_t(rows * tokens), 4);
        auto m = p.matrix(t, w, rows, cols);
        auto bx = p.put(x.data(), x.size() * 4);
        auto by = p.zeros(std::size_t(cols * tokens) * 4);
        if (p.failed() || !m_gpu.matmul(MatmulOp{&m.gpu, bx.gpu, by.gpu, tokens, true}).ok()
            || !m_ref.matmul(MatmulOp{&m.ref, bx.ref, by.ref, tokens, true}).ok())
            return failed(name, "could not run");
        std::vector<float> g, r;
        p.fetch(by, std::size_t(cols * tokens), g, r);
        // The reference multiplies dequantized rows with full floats; cuBLAS rounds the
        // activations (and F32 weights aside, nothing else) to F16. One token adds the rows in
        // float, as the down projection's kernel does.
        const double tol = t == DType::F32 || tokens == 1 ? 1e-4 : 5e-3;
        record(name + " vs cpu", relativeError(g, r), tol);
        std::vector<double> exact(static_cast<std::size_t>(cols), 0.0);
        std::vector<float> row(static_cast<std::size_t>(cols));
        const cpu::WeightMatrix hw{t, w.data(), rows, cols};
        const float* xLast = x.data() + (tokens - 1) * rows;
        for (std::int64_t i = 0; i < rows; ++i) {
            cpu::getRow(hw, i, row.data());
            for (std::int64_t c = 0; c < cols; ++c)
                exact[std::size_t(c)] += double(xLast[i]) * double(row[std::size_t(c)]);
        }
        const std::vector<float> gLast(g.end() - cols, g.end());
        record(name + " vs exact", relativeError(gLast, std::vector<float>(exact.begin(), exact.end())), tol);
    }

    void rowsAndDown(DType t, std::int64_t nFF, std::int64_t nEmbd)
    {
        const std::string name = typeName(t) + " " + std::to_string(nFF) + "x" + std::to_string(nEmbd);
        Pair p(m_gpu, m_ref);
        const auto w = randomMatrix(t, nFF, nEmbd, 3);
        const auto x = randomFloats(std::size_t(nEmbd), 4);
        std::vector<std::int32_t> index;
        std::mt19937 rng(5);
        for (std::int32_t i = 0; i < nFF; ++i) {
            if (rng() % 3 == 0)
                index.push_back(i);
        }
        std::shuffle(index.begin(), index.end(), rng); // any order works
        const auto count = std::int64_t(index.size());
        const auto act = randomFloats(index.size(), 6);
        auto m = p.matrix(t, w, nFF, nEmbd);
        auto bx = p.put(x.data(), x.size() * 4);
        auto bi = p.put(index.data(), index.size() * 4);
        auto ba = p.put(act.data(), act.size() * 4);
        auto by = p.zeros(index.size() * 4);
        auto bd = p.zeros(std::size_t(nEmbd) * 4);
        if (p.failed() || !m_gpu.rowsDot(RowsDotOp{&m.gpu, bx.gpu, bi.gpu, count, by.gpu}).ok()
            || !m_ref.rowsDot(RowsDotOp{&m.ref, bx.ref, bi.ref, count, by.ref}).ok())
            return failed("rowsDot " + name, "could not run");
        std::vector<float> g, r;
        p.fetch(by, index.size(), g, r);
        record("rowsDot " + name + " vs cpu", relativeError(g, r), tolerance(t));
        record("rowsDot " + name + " vs exact", relativeError(g, exactRows({t, w.data(), nFF, nEmbd}, x.data(), index)),
               exactTolerance(t));

        for (bool accumulate : {false, true}) {
            const std::string dn = std::string("down") + (accumulate ? "+= " : " ") + name;
            if (!m_gpu.downAccumulate(DownAccumulateOp{&m.gpu, ba.gpu, bi.gpu, count, bd.gpu, accumulate}).ok()
                || !m_ref.downAccumulate(DownAccumulateOp{&m.ref, ba.ref, bi.ref, count, bd.ref, accumulate}).ok())
                return failed(dn, "could not run");
            p.fetch(bd, std::size_t(nEmbd), g, r);
            // Both dequantize the same weights exactly; only the float sum order differs.
            record(dn + " vs cpu", relativeError(g, r), 1e-4);
        }
        // Determinism: the same launch twice gives the same bits.
        std::vector<float> again, unused;
        if (!m_gpu.downAccumulate(DownAccumulateOp{&m.gpu, ba.gpu, bi.gpu, count, bd.gpu, false}).ok())
            return failed("down deterministic " + name, "could not run");
        p.fetch(bd, std::size_t(nEmbd), g, unused);
        if (!m_gpu.downAccumulate(DownAccumulateOp{&m.gpu, ba.gpu, bi.gpu, count, bd.gpu, false}).ok())
            return failed("down deterministic " + name, "could not run");
        p.fetch(bd, std::size_t(nEmbd), again, unused);
        record("down deterministic " + name, std::memcmp(g.data(), again.data(), g.size() * 4) == 0 ? 0.0 : 1.0, 0.0);
    }

    void activate()
    {
        Pair p(m_gpu, m_ref);
        const std::size_t n = 100000;
        const auto gate = randomFloats(n, 7, 3.0f);
        // gpt-oss's clamp at 7 needs wider gates and ups.
        const auto wideGate = randomFloats(n, 9, 12.0f);
        const auto up = randomFloats(n, 8);
        const auto wideUp = randomFloats(n, 10, 12.0f);
        auto bu = p.put(up.data(), n * 4);
        auto bwu = p.put(wideUp.data(), n * 4);
        for (int kind = 0; kind <= int(kLastActivation); ++kind) {
            const bool clamped = kind == int(Activation::SwiGluOai);
            auto bg = p.put((clamped ? wideGate : gate).data(), n * 4);
            const Pair::Buf& ups = clamped ? bwu : bu;
            // The plain kinds (ReLU, GELU) read no up operand.
            const bool gated = isGated(Activation(kind));
            const ActivateOp og{Activation(kind), bg.gpu, gated ? ups.gpu : DeviceBuffer{}, std::int64_t(n)};
            const ActivateOp orf{Activation(kind), bg.ref, gated ? ups.ref : DeviceBuffer{}, std::int64_t(n)};
            const std::string name = "activate kind " + std::to_string(kind);
            if (p.failed() || !m_gpu.activate(og).ok() || !m_ref.activate(orf).ok())
                return failed(name, "could not run");
            std::vector<float> g, r;
            p.fetch(bg, n, g, r);
            // expf and tanhf differ between the GPU and the host C library in the last bits.
            const bool transcendental = kind == int(Activation::Gelu) || kind == int(Activation::GeGlu)
                                        || kind == int(Activation::SwiGluOai);
            record(name, relativeError(g, r), transcendental ? 1e-5 : 1e-6);
        }
        // A prompt's per-token neuron mask zeroes what the activation gives.
        std::vector<std::uint8_t> mask(n);
        for (std::size_t i = 0; i < n; ++i)
            mask[i] = std::uint8_t(i % 3 != 0);
        auto bm = p.put(mask.data(), n);
        auto bg = p.put(gate.data(), n * 4);
        ActivateOp og{Activation::SwiGlu, bg.gpu, bu.gpu, std::int64_t(n)};
        ActivateOp orf{Activation::SwiGlu, bg.ref, bu.ref, std::int64_t(n)};
        og.mask = bm.gpu;
        orf.mask = bm.ref;
        if (p.failed() || !m_gpu.activate(og).ok() || !m_ref.activate(orf).ok())
            return failed("activate masked", "could not run");
        std::vector<float> g, r;
        p.fetch(bg, n, g, r);
        bool zeroed = true;
        for (std::size_t i = 0; i < n; i += 3)
            zeroed = zeroed && g[i] == 0.0f;
        record("activate masked", zeroed ? relativeError(g, r) : 1.0, 1e-5);

        // Floors (ABI 9): rows of 1000 neurons, each token its scale, about half the neurons
        // under one floor or the other. A value within float rounding of its floor may fall
        // either way on the two sides; the rest must agree.
        const std::int64_t width = 1000;
        std::vector<float> gateFloor(static_cast<std::size_t>(width)), activationFloor(static_cast<std::size_t>(width));
        for (std::int64_t j = 0; j < width; ++j) {
            gateFloor[std::size_t(j)] = 0.05f * float(j % 10);
            activationFloor[std::size_t(j)] = 0.04f * float(j % 7);
        }
        std::vector<float> scale(n / std::size_t(width));
        for (std::size_t t = 0; t < scale.size(); ++t)
            scale[t] = 0.5f + 0.01f * float(t);
        auto bgf = p.put(gateFloor.data(), std::size_t(width) * 4);
        auto baf = p.put(activationFloor.data(), std::size_t(width) * 4);
        auto bs = p.put(scale.data(), scale.size() * 4);
        for (const Activation kind : {Activation::SwiGlu, Activation::ReGlu, Activation::DRelu}) {
            auto bf = p.put(gate.data(), n * 4);
            const auto floored = [&](DeviceBuffer Pair::Buf::*side) {
                ActivateOp op{kind, bf.*side, bu.*side, std::int64_t(n)};
                op.gateFloor = bgf.*side;
                op.activationFloor = baf.*side;
                op.floorScale = bs.*side;
                op.floorWidth = width;
                return op;
            };
            const ActivateOp fg = floored(&Pair::Buf::gpu);
            const ActivateOp fr = floored(&Pair::Buf::ref);
            const std::string name = "activate floored kind " + std::to_string(int(kind));
            if (p.failed() || !m_gpu.activate(fg).ok() || !m_ref.activate(fr).ok())
                return failed(name, "could not run");
            std::vector<float> fgot, fref;
            p.fetch(bf, n, fgot, fref);
            std::size_t differ = 0, zeros = 0;
            for (std::size_t i = 0; i < n; ++i) {
                zeros += fref[i] == 0.0f ? 1 : 0;
                if ((fgot[i] == 0.0f) != (fref[i] == 0.0f))
                    ++differ;
                else
                    fgot[i] = fref[i] == 0.0f ? 0.0f : fgot[i];
            }
            const bool balanced = zeros > n / 5 && zeros < n * 4 / 5;
            record(name, balanced && differ <= n / 10000 ? relativeError(fgot, fref) : 1.0, 1e-5);
        }
    }

    // LayerNorm with weight and bias (and without a bias), then a bias added to every row.
    void layerNormAndBias()
    {
        Pair p(m_gpu, m_ref);
        const std::int64_t n = 4096, tokens = 5;
        const auto x = randomFloats(std::size_t(n * tokens), 14, 4.0f);
        const auto w = randomFloats(std::size_t(n), 15);
        const auto b = randomFloats(std::size_t(n), 16);
        auto bx = p.put(x.data(), x.size() * 4);
        auto bw = p.put(w.data(), w.size() * 4);
        auto bb = p.put(b.data(), b.size() * 4);
        auto bo = p.zeros(x.size() * 4);
        std::vector<float> g, r;
        for (bool withBias : {true, false}) {
            const std::string name = withBias ? "layerNorm" : "layerNorm without bias";
            const LayerNormOp og{bx.gpu, bw.gpu, withBias ? bb.gpu : DeviceBuffer{}, 1e-5f, n, tokens, bo.gpu};
            const LayerNormOp orf{bx.ref, bw.ref, withBias ? bb.ref : DeviceBuffer{}, 1e-5f, n, tokens, bo.ref};
            if (p.failed() || !m_gpu.layerNorm(og).ok() || !m_ref.layerNorm(orf).ok())
                return failed(name, "could not run");
            p.fetch(bo, x.size(), g, r);
            record(name, relativeError(g, r), 1e-6);
        }
        if (!m_gpu.biasAdd(BiasAddOp{bo.gpu, bb.gpu, n, tokens}).ok()
            || !m_ref.biasAdd(BiasAddOp{bo.ref, bb.ref, n, tokens}).ok())
            return failed("biasAdd", "could not run");
        p.fetch(bo, x.size(), g, r);
        record("biasAdd", relativeError(g, r), 1e-6);
    }

    // relu false: Hearth's fitted linear predictors; biased: those fitted to a LayerNorm's output.
    void predictor(DType t, bool relu = true, bool biased = false)
    {
        const std::string name = std::string(relu ? "predictor " : "linear predictor ") + (biased ? "with bias " : "")
                                 + typeName(t);
        const std::int64_t nEmbd = 2048, hidden = 256, nFF = 8192;
        Pair p(m_gpu, m_ref);
        auto fc1 = p.matrix(t, randomMatrix(t, hidden, nEmbd, 9), hidden, nEmbd);
        auto fc2 = p.matrix(t, randomMatrix(t, nFF, hidden, 10), nFF, hidden);
        const auto x = randomFloats(std::size_t(nEmbd), 11);
        auto bx = p.put(x.data(), x.size() * 4);
        auto bh = p.zeros(std::size_t(hidden) * 4);
        auto bl = p.zeros(std::size_t(nFF) * 4);
        auto ba = p.zeros(std::size_t(nFF) * 4);
        auto bc = p.zeros(4);
        const auto bias = randomFloats(std::size_t(nFF), 12);
        auto bb = p.put(bias.data(), bias.size() * 4);
        const float threshold = 0.1f;
        PredictorOp og{&fc1.gpu, &fc2.gpu, bx.gpu, threshold, bh.gpu, bl.gpu, ba.gpu, bc.gpu, relu,
                       biased ? bb.gpu : DeviceBuffer{}};
        PredictorOp orf{&fc1.ref, &fc2.ref, bx.ref, threshold, bh.ref, bl.ref, ba.ref, bc.ref, relu,
                        biased ? bb.ref : DeviceBuffer{}};
        if (p.failed() || !m_gpu.predictor(og).ok() || !m_ref.predictor(orf).ok())
            return failed(name, "could not run");
        std::vector<float> lg, lr;
        p.fetch(bl, std::size_t(nFF), lg, lr);
        record(name + " logits", relativeError(lg, lr), tolerance(t));
        std::vector<std::int32_t> cg, cr, ag, ar;
        p.fetch(bc, 1, cg, cr);
        p.fetch(ba, std::size_t(nFF), ag, ar);
        ag.resize(std::size_t(std::clamp(cg[0], 0, std::int32_t(nFF))));
        ar.resize(std::size_t(std::clamp(cr[0], 0, std::int32_t(nFF))));
        // The sets may differ only for logits within the tolerance of the threshold; the GPU's
        // list must be ascending and agree with its own logits exactly.
        double scale = 1e-12;
        for (float v : lr)
            scale = std::max(scale, double(std::fabs(v)));
        const double band = tolerance(t) * scale;
        std::int64_t bad = 0;
        for (std::int64_t i = 0; i < nFF; ++i) {
            const bool inG = std::binary_search(ag.begin(), ag.end(), std::int32_t(i));
            const bool inR = std::binary_search(ar.begin(), ar.end(), std::int32_t(i));
            if (inG != (lg[std::size_t(i)] >= threshold))
                ++bad;
            if (inG != inR && std::fabs(double(lr[std::size_t(i)]) - threshold) > band)
                ++bad;
        }
        const bool sorted = std::is_sorted(ag.begin(), ag.end())
                            && std::adjacent_find(ag.begin(), ag.end()) == ag.end();
        record(name + " active set", double(bad) + (sorted ? 0.0 : 1.0), 0.0,
               std::to_string(ag.size()) + " of " + std::to_string(nFF) + " active");
    }

    void rmsNormAndAdd()
    {
        Pair p(m_gpu, m_ref);
        const std::int64_t n = 4096, tokens = 5;
        const auto x = randomFloats(std::size_t(n * tokens), 12, 4.0f);
        const auto w = randomFloats(std::size_t(n), 13);
        auto bx = p.put(x.data(), x.size() * 4);
        auto bw = p.put(w.data(), w.size() * 4);
        auto bo = p.zeros(x.size() * 4);
        if (p.failed() || !m_gpu.rmsNorm(RmsNormOp{bx.gpu, bw.gpu, 1e-6f, n, tokens, bo.gpu}).ok()
            || !m_ref.rmsNorm(RmsNormOp{bx.ref, bw.ref, 1e-6f, n, tokens, bo.ref}).ok())
            return failed("rmsNorm", "could not run");
        std::vector<float> g, r;
        p.fetch(bo, x.size(), g, r);
        record("rmsNorm", relativeError(g, r), 1e-6);
        if (!m_gpu.add(AddOp{bo.gpu, bx.gpu, n * tokens}).ok() || !m_ref.add(AddOp{bo.ref, bx.ref, n * tokens}).ok())
            return failed("add", "could not run");
        p.fetch(bo, x.size(), g, r);
        record("add", relativeError(g, r), 1e-6);
    }

    void attention(int nHead, int nHeadKv, int headDim, int nRot, int positions, AttentionCase c = {})
    {
        const auto [rope, llama3Factors, halfCache, withSinks, window] = c;
        const char* style = rope == RopeStyle::Neox ? " neox rope" : rope == RopeStyle::None ? " no rope" : "";
        const std::string name = "attention " + std::to_string(nHead) + "/" + std::to_string(nHeadKv) + " heads x"
                                 + std::to_string(headDim) + style + (llama3Factors ? " llama3 rope_freqs" : "")
                                 + (halfCache ? " F16 cache" : "") + (withSinks ? " sinks" : "")
                                 + (window > 0 ? " window " + std::to_string(window) : "");
        Pair p(m_gpu, m_ref);
        const std::vector<float> sinkValues = randomFloats(std::size_t(nHead), 400, 3.0f);
        const Pair::Buf sinks = withSinks ? p.put(sinkValues.data(), sinkValues.size() * 4) : Pair::Buf{};
        // Llama 3.1's divisors with an original context of 64, so the positions checked cross the
        // blended band.
        const std::vector<float> factorValues = llama3Factors
            ? model::llama3RopeFactors(nRot, 500000.0f, {8.0f, 1.0f, 4.0f, 64})
            : std::vector<float>();
        const Pair::Buf factors = llama3Factors ? p.put(factorValues.data(), factorValues.size() * 4) : Pair::Buf{};
        const int capacity = positions + 3;
        const int kvDim = nHeadKv * headDim;
        auto kc = p.zeros(std::size_t(capacity * kvDim) * 4);
        auto vc = p.zeros(std::size_t(capacity * kvDim) * 4);
        auto sc = p.zeros(std::size_t(nHead * capacity) * 4);
        auto out = p.zeros(std::size_t(nHead * headDim) * 4);
        double worst = 0;
        for (int pos = 0; pos < positions; ++pos) {
            const auto q = randomFloats(std::size_t(nHead * headDim), 100 + pos);
            const auto k = randomFloats(std::size_t(kvDim), 200 + pos);
            const auto v = randomFloats(std::size_t(kvDim), 300 + pos);
            auto bq = p.put(q.data(), q.size() * 4);
            auto bk = p.put(k.data(), k.size() * 4);
            auto bv = p.put(v.data(), v.size() * 4);
            auto make = [&](bool gpu) {
                AttentionOp a;
                a.q = gpu ? bq.gpu : bq.ref;
                a.k = gpu ? bk.gpu : bk.ref;
                a.v = gpu ? bv.gpu : bv.ref;
                a.kCache = gpu ? kc.gpu : kc.ref;
                a.vCache = gpu ? vc.gpu : vc.ref;
                a.scores = gpu ? sc.gpu : sc.ref;
                a.out = gpu ? out.gpu : out.ref;
                a.pos = pos;
                a.capacity = capacity;
                a.nHead = nHead;
                a.nHeadKv = nHeadKv;
                a.headDim = headDim;
                a.nRot = nRot;
                a.freqBase = llama3Factors ? 500000.0f : 10000.0f;
                a.freqScale = 1.0f;
                if (llama3Factors)
                    a.freqFactors = gpu ? factors.gpu : factors.ref;
                a.rope = rope;
                a.halfCache = halfCache;
                a.window = window;
                if (withSinks)
                    a.sinks = gpu ? sinks.gpu : sinks.ref;
                return a;
            };
            if (p.failed() || !m_gpu.attention(make(true)).ok() || !m_ref.attention(make(false)).ok())
                return failed(name, "could not run");
            std::vector<float> g, r;
            p.fetch(out, std::size_t(nHead * headDim), g, r);
            worst = std::max(worst, relativeError(g, r));
            if (!halfCache) { // halves may round a rotated key differently by an ulp: out says enough
                p.fetch(kc, std::size_t((pos + 1) * kvDim), g, r);
                worst = std::max(worst, relativeError(g, r));
            }
        }
        record(name + " over " + std::to_string(positions) + " positions", worst, 1e-4);
    }

    // Half the neurons hot: one decoded token with 30 % of the neurons active, or a prompt of
    // @p tokens (slices of 16 rows on the GPU) each with its own 40 %, against the CPU alone.
    void hybridLayer(DType t, std::int64_t nFF, std::int64_t nEmbd, int tokens = 1)
    {
        const bool prompt = tokens > 1;
        const std::string name = std::string(prompt ? "hybrid FFN prompt " : "hybrid FFN ") + typeName(t) + " "
                                 + std::to_string(nFF) + "x" + std::to_string(nEmbd);
        const auto gate = randomMatrix(t, nFF, nEmbd, 20);
        const auto up = randomMatrix(t, nFF, nEmbd, 21);
        const auto down = randomMatrix(t, nFF, nEmbd, 22);
        FfnWeights w{{t, gate.data(), nFF, nEmbd}, {t, up.data(), nFF, nEmbd}, {t, down.data(), nFF, nEmbd},
                     Activation::ReGlu};
        std::vector<std::int32_t> hot;
        for (std::int32_t i = 0; i < nFF; i += 2)
            hot.push_back(i);
        auto scratch = HybridFfnScratch::create(m_gpu, nEmbd, std::int64_t(hot.size()), prompt ? 16 : 1);
        if (!scratch)
            return failed(name, scratch.message());
        auto hybrid = HybridFfnLayer::create(&m_gpu, scratch->get(), w, hot);
        auto cpuOnly = HybridFfnLayer::create(nullptr, nullptr, w, {});
        if (!hybrid || !cpuOnly)
            return failed(name, hybrid ? cpuOnly.message() : hybrid.message());
        cpu::ThreadPool pool(0);
        std::mt19937 rng(23);
        std::vector<std::int32_t> active;
        std::vector<std::uint8_t> mask;
        if (prompt) {
            active.resize(std::size_t(nFF));
            std::iota(active.begin(), active.end(), 0);
            mask.resize(std::size_t(tokens) * std::size_t(nFF));
            for (auto& m : mask)
                m = std::uint8_t(rng() % 10 < 4);
        } else {
            for (std::int32_t i = 0; i < nFF; ++i) {
                if (rng() % 10 < 3)
                    active.push_back(i);
            }
        }
        const auto x = randomFloats(std::size_t(tokens * nEmbd), 24);
        std::vector<float> g(std::size_t(tokens * nEmbd)), r(std::size_t(tokens * nEmbd));
        const auto run = [&](HybridFfnLayer& layer, float* y) {
            return prompt ? layer.forwardBatch(pool, x.data(), tokens, active.data(), std::int64_t(active.size()),
                                               mask.data(), y)
                          : layer.forward(pool, x.data(), active.data(), std::int64_t(active.size()), y);
        };
        if (!run(**hybrid, g.data()).ok() || !run(**cpuOnly, r.data()).ok())
            return failed(name, "forward failed");
        hybrid = Status(ErrorCode::Cancelled, "done"); // free before the scratch
        // A prompt goes through cuBLAS, which takes the activations in F16.
        record(name, relativeError(g, r), prompt ? std::max(5e-3, tolerance(t)) : tolerance(t),
               prompt ? std::to_string(tokens) + " tokens, 40% of the neurons each"
                      : std::to_string((*cpuOnly)->lastStats().hostNeurons) + " active neurons, half on the GPU");
    }

    // Two whole dense layers (attention with KV cache + FFN) on each device, token by token; or,
    // @p batched, a 5-token prompt in one call on the GPU (batched products, the attention run
    // over slices of the batch) against the reference token by token, with the K/V rows
    // mirrored back to the host on both, then decoded tokens.
    void denseLayers(DType t, bool batched = false)
    {
        const std::string name = std::string(batched ? "dense offload batched " : "dense offload 2 layers ") + typeName(t);
        DenseModelParams p;
        p.nEmbd = 256;
        p.nHead = 8;
        p.nHeadKv = 4;
        p.headDim = 32;
        p.nRot = 32;
        p.nFF = 512;
        p.contextLength = 16;
        p.activation = Activation::SwiGlu;
        std::vector<std::vector<std::uint8_t>> mats;
        mats.reserve(14);
        const auto norm = randomFloats(std::size_t(p.nEmbd), 30, 0.1f);
        std::vector<float> norms(norm.size());
        for (std::size_t i = 0; i < norm.size(); ++i)
            norms[i] = 1.0f + norm[i];
        std::vector<DenseLayerWeights> layers;
        for (int l = 0; l < 2; ++l) {
            auto mat = [&](std::int64_t rows, std::int64_t cols) {
                mats.push_back(randomMatrix(t, rows, cols, std::uint32_t(40 + mats.size())));
                return cpu::WeightMatrix{t, mats.back().data(), rows, cols};
            };
            DenseLayerWeights w;
            w.norm = norms.data();
            w.ffnNorm = norms.data();
            w.wq = mat(p.nHead * p.headDim, p.nEmbd);
            w.wk = mat(p.nHeadKv * p.headDim, p.nEmbd);
            w.wv = mat(p.nHeadKv * p.headDim, p.nEmbd);
            w.wo = mat(p.nEmbd, p.nHead * p.headDim);
            w.gate = mat(p.nFF, p.nEmbd);
            w.up = mat(p.nFF, p.nEmbd);
            w.down = mat(p.nEmbd, p.nFF);
            layers.push_back(w);
        }
        p.maxBatch = 8;
        auto onGpu = DenseOffload::create(m_gpu, p, layers);
        auto onRef = DenseOffload::create(m_ref, p, layers);
        if (!onGpu || !onRef || (*onGpu)->offloadedLayers() != 2 || (*onRef)->offloadedLayers() != 2)
            return failed(name, "could not place the layers");
        double worst = 0;
        if (batched) {
            worst = promptThenDecode(name, p, **onGpu, **onRef, 60);
            if (worst < 0)
                return;
            record(name + " prompt of 5 + 3 tokens", worst, t == DType::F16 ? 1e-2 : 3e-2);
            return;
        }
        for (int pos = 0; pos < 6; ++pos) {
            auto g = randomFloats(std::size_t(p.nEmbd), 50 + pos);
            auto r = g;
            if (!(*onGpu)->forward(g.data(), pos).ok() || !(*onRef)->forward(r.data(), pos).ok())
                return failed(name, "forward failed");
            worst = std::max(worst, relativeError(g, r));
        }
        record(name + " over 6 positions", worst, t == DType::F16 ? 1e-3 : 3e-2);
    }

    // Two whole falcon-style layers (LayerNorm with bias, fused QKV, NeoX RoPE, multi-query
    // attention, a parallel block, an up-only GELU or ReLU FFN) or opt-style ones (LayerNorms,
    // biases on every projection, no RoPE, a sequential block, ReLU with biases): a 5-token
    // prompt in one call on the GPU against the reference token by token, K/V mirrored on both,
    // then decoded tokens.
    void familyLayers(DType t, bool falcon, Activation activation)
    {
        const std::string name = std::string(falcon ? "falcon" : "opt") + " layers "
                                 + (activation == Activation::Gelu ? "gelu " : "relu ") + typeName(t);
        DenseModelParams p;
        p.nEmbd = 256;
        p.nHead = 8;
        p.nHeadKv = falcon ? 1 : 8;
        p.headDim = 32;
        p.nRot = falcon ? 32 : 0;
        p.nFF = 512;
        p.contextLength = 16;
        p.activation = activation;
        p.norm = NormKind::Layer;
        p.rope = falcon ? RopeStyle::Neox : RopeStyle::None;
        p.fusedQkv = falcon;
        p.parallelBlock = falcon;
        p.maxBatch = 8;
        const std::int64_t qDim = std::int64_t(p.nHead) * p.headDim;
        const std::int64_t kvDim = std::int64_t(p.nHeadKv) * p.headDim;
        RandomWeights random{t, 80};
        const auto vec = [&](std::int64_t n, float base, float scale) { return random.vector(n, base, scale); };
        const auto mat = [&](std::int64_t rows, std::int64_t cols) { return random.matrix(rows, cols); };
        std::vector<DenseLayerWeights> layers;
        for (int l = 0; l < 2; ++l) {
            DenseLayerWeights w;
            w.norm = vec(p.nEmbd, 1.0f, 0.1f);
            w.normBias = vec(p.nEmbd, 0.0f, 0.1f);
            if (falcon) {
                w.wqkv = mat(qDim + 2 * kvDim, p.nEmbd);
                w.ffnNorm = w.norm;
                w.ffnNormBias = w.normBias;
            } else {
                w.wq = mat(qDim, p.nEmbd);
                w.wk = mat(kvDim, p.nEmbd);
                w.wv = mat(kvDim, p.nEmbd);
                w.bq = vec(qDim, 0.0f, 0.1f);
                w.bk = vec(kvDim, 0.0f, 0.1f);
                w.bv = vec(kvDim, 0.0f, 0.1f);
                w.bo = vec(p.nEmbd, 0.0f, 0.1f);
                w.ffnNorm = vec(p.nEmbd, 1.0f, 0.1f);
                w.ffnNormBias = vec(p.nEmbd, 0.0f, 0.1f);
                w.upBias = vec(p.nFF, 0.0f, 0.1f);
                w.downBias = vec(p.nEmbd, 0.0f, 0.1f);
            }
            w.wo = mat(p.nEmbd, qDim);
            w.up = mat(p.nFF, p.nEmbd);
            w.down = mat(p.nEmbd, p.nFF);
            layers.push_back(w);
        }
        compareTwoLayers(name, p, layers, t, 61);
    }

    // Two whole layers of the llama block as its relatives have it: NeoX RoPE and grouped-query
    // attention, with Qwen 2's Q/K/V biases, Qwen 3's RMSNorm of every q and k head and heads
    // wider than n_embd / n_head, or Phi-3's sliding window (3 keys, so the 8 positions pass
    // it), LongRoPE factors and attention factor over 24 of 32 head dimensions. Gemma 2 and 3:
    // GeGLU, post-norms, a local layer (3 keys) then a global one; Gemma 2 with soft-capped
    // scores and its own query scale, Gemma 3 with q/k norms and the local layer's own RoPE
    // base while the global one scales its angles; the local layer's cache holds 6 rows, which
    // the positions wrap around. A 5-token prompt and decoded tokens, as for the other families.
    enum class LlamaRelative { Qwen2, Qwen3, Phi3, Gemma2, Gemma3 };
    void llamaRelativeLayers(DType t, LlamaRelative family)
    {
        const bool qwen3 = family == LlamaRelative::Qwen3;
        const bool phi3 = family == LlamaRelative::Phi3;
        const bool gemma2 = family == LlamaRelative::Gemma2;
        const bool gemma3 = family == LlamaRelative::Gemma3;
        const bool gemma = gemma2 || gemma3;
        const char* names[] = {"qwen2", "qwen3", "phi3", "gemma2", "gemma3"};
        const std::string name = std::string(names[int(family)]) + " layers " + typeName(t);
        DenseModelParams p;
        p.nEmbd = 256;
        p.nHead = 8;
        p.nHeadKv = 2;
        p.headDim = qwen3 || gemma3 ? 64 : 32;
        p.nRot = phi3 ? 24 : p.headDim;
        if (phi3) {
            p.slidingWindow = 3;
            p.attnFactor = 1.12f;
        }
        if (gemma2) {
            p.softCap = 5.0f;
            p.scale = 0.125f;
        }
        p.nFF = 512;
        p.contextLength = 16;
        p.freqBase = 1000000.0f;
        p.activation = gemma ? Activation::GeGlu : Activation::SwiGlu;
        p.rope = RopeStyle::Neox;
        // Gemma's local layer keeps 3 - 1 + 4 rows, so the decoded tokens wrap around them.
        p.maxBatch = gemma ? 4 : 8;
        const std::int64_t qDim = std::int64_t(p.nHead) * p.headDim;
        const std::int64_t kvDim = std::int64_t(p.nHeadKv) * p.headDim;
        RandomWeights random{t, 120};
        const auto vec = [&](std::int64_t n, float base, float scale) { return random.vector(n, base, scale); };
        const auto mat = [&](std::int64_t rows, std::int64_t cols) { return random.matrix(rows, cols); };
        std::vector<DenseLayerWeights> layers;
        for (int l = 0; l < 2; ++l) {
            DenseLayerWeights w;
            w.norm = vec(p.nEmbd, 1.0f, 0.1f);
            w.wq = mat(qDim, p.nEmbd);
            w.wk = mat(kvDim, p.nEmbd);
            w.wv = mat(kvDim, p.nEmbd);
            w.wo = mat(p.nEmbd, qDim);
            if (qwen3 || gemma3) {
                w.qNorm = vec(p.headDim, 1.0f, 0.1f);
                w.kNorm = vec(p.headDim, 1.0f, 0.1f);
            }
            if (gemma) {
                w.attnPostNorm = vec(p.nEmbd, 1.0f, 0.1f);
                w.ffnPostNorm = vec(p.nEmbd, 1.0f, 0.1f);
                w.window = l == 0 ? 3 : 0;
                if (gemma3) {
                    w.freqBase = l == 0 ? 10000.0f : 1000000.0f;
                    w.freqScale = l == 0 ? 1.0f : 0.125f;
                }
            }
            if (phi3)
                w.ropeFreqs = vec(p.nRot / 2, 2.0f, 1.0f); // divisors between 1 and 3
            if (family == LlamaRelative::Qwen2) {
                w.bq = vec(qDim, 0.0f, 0.5f);
                w.bk = vec(kvDim, 0.0f, 0.5f);
                w.bv = vec(kvDim, 0.0f, 0.5f);
            }
            w.ffnNorm = vec(p.nEmbd, 1.0f, 0.1f);
            w.gate = mat(p.nFF, p.nEmbd);
            w.up = mat(p.nFF, p.nEmbd);
            w.down = mat(p.nEmbd, p.nFF);
            layers.push_back(w);
        }
        compareTwoLayers(name, p, layers, t, 71);
    }

    [[nodiscard]] const std::vector<CheckResult>& results() const { return m_results; }

private:
    // Random vectors and matrices of @p type for a check's layers, alive as long as this is;
    // seeds count up from @p seed.
    struct RandomWeights {
        DType type;
        std::uint32_t seed;
        std::vector<std::vector<std::uint8_t>> matrices;
        std::vector<std::vector<float>> vectors;

        // n floats of base + [-scale, scale).
        const float* vector(std::int64_t n, float base, float scale)
        {
            auto v = randomFloats(std::size_t(n), seed++, scale);
            for (float& x : v)
                x += base;
            vectors.push_back(std::move(v)); // moving keeps each buffer where it is
            return vectors.back().data();
        }
        cpu::WeightMatrix matrix(std::int64_t rows, std::int64_t cols)
        {
            matrices.push_back(randomMatrix(type, rows, cols, seed++));
            return cpu::WeightMatrix{type, matrices.back().data(), rows, cols};
        }
    };

    // Places @p layers on both devices and compares a prompt and decoded tokens (promptThenDecode).
    void compareTwoLayers(const std::string& name, const DenseModelParams& p, const std::vector<DenseLayerWeights>& layers,
                          DType t, std::uint32_t seed)
    {
        auto onGpu = DenseOffload::create(m_gpu, p, layers);
        auto onRef = DenseOffload::create(m_ref, p, layers);
        if (!onGpu || !onRef || (*onGpu)->offloadedLayers() != 2 || (*onRef)->offloadedLayers() != 2)
            return failed(name, onGpu && onRef ? (*onGpu)->limit() + (*onRef)->limit() : "could not place the layers");
        const double worst = promptThenDecode(name, p, **onGpu, **onRef, seed);
        if (worst < 0)
            return;
        record(name + " prompt of 5 + 3 tokens", worst, t == DType::F16 ? 1e-2 : 3e-2);
    }

    // Two offloaded layers: a 5-token prompt in one call on the GPU against the reference token
    // by token, K/V mirrored on both, then 3 decoded tokens. The worst relative error of the
    // outputs and the mirrored K/V rows, or -1 (with the failure recorded) when a call fails.
    double promptThenDecode(const std::string& name, const DenseModelParams& p, DenseOffload& onGpu,
                            DenseOffload& onRef, std::uint32_t seed)
    {
        constexpr int kPrompt = 5;
        const std::size_t kvRow = std::size_t(p.nHeadKv) * std::size_t(p.headDim);
        const std::size_t cache = std::size_t(p.contextLength) * kvRow;
        std::vector<float> gk(2 * cache), gv(2 * cache), rk(2 * cache), rv(2 * cache);
        const KvMirror gm[2] = {{gk.data(), gv.data()}, {gk.data() + cache, gv.data() + cache}};
        auto g = randomFloats(std::size_t(p.nEmbd) * kPrompt, seed);
        auto r = g;
        if (!onGpu.forward(g.data(), kPrompt, 0, gm).ok()) {
            failed(name, "batched forward failed");
            return -1;
        }
        for (int pos = 0; pos < kPrompt; ++pos) {
            const KvMirror rm[2] = {{rk.data() + pos * kvRow, rv.data() + pos * kvRow},
                                    {rk.data() + cache + pos * kvRow, rv.data() + cache + pos * kvRow}};
            if (!onRef.forward(r.data() + std::size_t(pos) * std::size_t(p.nEmbd), 1, pos, rm).ok()) {
                failed(name, "forward failed");
                return -1;
            }
        }
        double worst = std::max({relativeError(g, r), relativeError(gk, rk), relativeError(gv, rv)});
        for (int pos = kPrompt; pos < kPrompt + 3; ++pos) {
            auto gd = randomFloats(std::size_t(p.nEmbd), seed + 10 + std::uint32_t(pos));
            auto rd = gd;
            if (!onGpu.forward(gd.data(), pos).ok() || !onRef.forward(rd.data(), pos).ok()) {
                failed(name, "forward failed");
                return -1;
            }
            worst = std::max(worst, relativeError(gd, rd));
        }
        return worst;
    }

    Device& m_gpu;
    Device& m_ref;
    bool m_emulated;
    std::vector<CheckResult> m_results;
};

struct Options {
    std::string module;
    std::string out;
    int device = 0;
    bool emulated = false;
};

} // namespace

int main(int argc, char** argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--module" && i + 1 < argc) {
            options.module = argv[++i];
        } else if (arg == "--out" && i + 1 < argc) {
            options.out = argv[++i];
        } else if (arg == "--emulated") {
            options.emulated = true;
        } else if (arg == "--device" && i + 1 < argc) {
            options.device = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: hearth-gpu-check [--module PATH] [--device N] [--out DIR] [--emulated]\n");
            return 2;
        }
    }
    const std::string jsonPath = options.out.empty() ? std::string() : options.out + "/gpu-check.json";

    DeviceLoadOptions load;
    load.modulePath = options.module;
    load.deviceIndex = options.device;
    Result<std::unique_ptr<Device>> opened =
        options.emulated ? Result<std::unique_ptr<Device>>(std::make_unique<EmulatedDevice>(
                               EmulatedDeviceOptions{std::uint64_t(16) << 30, 256, 0, "emulated stand-in"}))
                         : DeviceLoader::openCuda(load);
    if (!opened) {
        std::printf("no GPU: skipped (%s)\n", opened.message().c_str());
        if (!jsonPath.empty())
            writeFile(jsonPath, "{\"status\": \"skipped\", \"reason\": \"" + jsonEscape(opened.message()) + "\"}\n");
        return 0;
    }
    Device& gpu = **opened;
    const DeviceInfo& info = gpu.info();
    std::printf("GPU: %s, %.1f GiB total, %.1f GiB free, budget %.1f GiB\n", info.name.c_str(),
                double(info.totalBytes) / double(1 << 30), double(info.freeBytes) / double(1 << 30),
                double(info.budgetBytes) / double(1 << 30));
    EmulatedDevice ref(EmulatedDeviceOptions{std::uint64_t(16) << 30, 256, 0, "cpu reference"});

    const auto start = std::chrono::steady_clock::now();
    Checker c(gpu, ref, options.emulated);
    for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0,
                    DType::IQ4_NL, DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS,
                    DType::MXFP4}) {
        // Odd sizes: partial warps and blocks (K-quant rows are whole 256-weight super-blocks).
        const bool superBlocks = weightBlockElements(t) == 256;
        c.matmul(t, 1000, 4096, 1);
        c.matmul(t, 1000, 4096, 7);
        c.matmul(t, 77, superBlocks ? 256 : 96, 3);
        // A prompt: quantized weights go through F16 tiles and cuBLAS.
        c.matmul(t, 1000, 4096, 40);
        c.matmul(t, 77, superBlocks ? 512 : 160, 17);
        c.rowsAndDown(t, 3000, 4096);
        c.rowsAndDown(t, 70, superBlocks ? 512 : 160);
        c.matmulTransposed(t, 3000, 4096, 40);
        c.matmulTransposed(t, 70, superBlocks ? 512 : 160, 5);
        // A decoded token of a magnitude-sparse file's whole-layer offload: every row added.
        c.matmulTransposed(t, 3000, 4096, 1);
    }
    c.activate();
    c.predictor(DType::F16);
    c.predictor(DType::Q4_0);
    c.predictor(DType::Q8_0, false);
    c.predictor(DType::Q8_0, false, true);
    c.rmsNormAndAdd();
    c.layerNormAndBias();
    c.attention(32, 8, 128, 128, 40);
    c.attention(4, 4, 64, 32, 9);
    c.attention(32, 8, 128, 128, 40, {.llama3Factors = true}); // Llama 3.1's frequency scaling
    c.attention(71, 1, 64, 64, 20, {.rope = RopeStyle::Neox}); // falcon-7B's heads: multi-query
    c.attention(12, 12, 64, 0, 20, {.rope = RopeStyle::None}); // opt
    c.attention(8, 2, 64, 64, 9, {.rope = RopeStyle::None});   // a rotary width that must be ignored
    c.attention(32, 8, 128, 128, 40, {.halfCache = true}); // the sessions' F16 caches
    c.attention(71, 1, 64, 64, 20, {.rope = RopeStyle::Neox, .halfCache = true});
    // gpt-oss's heads: sinks in every layer, a window of keys in every other one.
    c.attention(64, 8, 64, 64, 40, {.rope = RopeStyle::Neox, .halfCache = true, .sinks = true});
    c.attention(64, 8, 64, 64, 40, {.rope = RopeStyle::Neox, .halfCache = true, .sinks = true, .window = 16});
    c.denseLayers(DType::F16);
    c.denseLayers(DType::Q4_0);
    c.denseLayers(DType::F16, true);
    c.denseLayers(DType::Q4_0, true);
    c.denseLayers(DType::Q4_K);
    c.denseLayers(DType::Q3_K);
    c.denseLayers(DType::IQ4_XS);
    c.familyLayers(DType::F16, true, Activation::Gelu);
    c.familyLayers(DType::Q4_0, true, Activation::Relu);
    c.familyLayers(DType::F16, false, Activation::Relu);
    c.familyLayers(DType::Q4_0, false, Activation::Relu);
    c.llamaRelativeLayers(DType::F16, Checker::LlamaRelative::Qwen2);
    c.llamaRelativeLayers(DType::Q4_0, Checker::LlamaRelative::Qwen3);
    c.llamaRelativeLayers(DType::Q8_0, Checker::LlamaRelative::Phi3);
    c.llamaRelativeLayers(DType::F16, Checker::LlamaRelative::Gemma2);
    c.llamaRelativeLayers(DType::Q4_0, Checker::LlamaRelative::Gemma3);
    c.hybridLayer(DType::F16, 11008, 4096);
    c.hybridLayer(DType::Q4_0, 11008, 4096);
    c.hybridLayer(DType::Q4_K, 11008, 4096);
    c.hybridLayer(DType::F16, 11008, 4096, 40);
    c.hybridLayer(DType::Q4_0, 11008, 4096, 40);
    c.hybridLayer(DType::Q4_K, 11008, 4096, 40);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    int failures = 0;
    std::string json = "{\"status\": \"ran\", \"gpu\": \"" + jsonEscape(info.name) + "\", \"total_bytes\": "
                       + std::to_string(info.totalBytes) + ", \"free_bytes\": " + std::to_string(info.freeBytes)
                       + ", \"seconds\": " + std::to_string(seconds) + ", \"checks\": [\n";
    for (std::size_t i = 0; i < c.results().size(); ++i) {
        const CheckResult& r = c.results()[i];
        failures += r.pass ? 0 : 1;
        char line[512];
        std::snprintf(line, sizeof(line), "  {\"name\": \"%s\", \"error\": %.6g, \"tolerance\": %.6g, \"pass\": %s, \"note\": \"%s\"}%s\n",
                      jsonEscape(r.name).c_str(), r.error, r.tolerance, r.pass ? "true" : "false",
                      jsonEscape(r.note).c_str(), i + 1 < c.results().size() ? "," : "");
        json += line;
    }
    json += "], \"failures\": " + std::to_string(failures) + "}\n";
    if (!jsonPath.empty() && !writeFile(jsonPath, json))
        std::fprintf(stderr, "cannot write %s\n", jsonPath.c_str());
    std::printf("%zu checks, %d failed, %.1f s\n", c.results().size(), failures, seconds);
    return failures == 0 ? 0 : 1;
}
