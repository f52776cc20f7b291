// SPDX-License-Identifier: MIT
#include "model/llama_weights.h"

#include "cpu/quant.h"
#include "gguf/gguf_file.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hearth::model {

namespace {

std::string shapeString(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Looks up tensors by name and checks shape and type, counting what it has seen for progress.
class Binder {
public:
    Binder(const gguf::GgufFile& file, const ProgressCallback& progress, std::size_t expected)
        : m_file(file)
        , m_progress(progress)
        , m_expected(expected ? expected : 1)
    {
    }

    [[nodiscard]] bool has(const std::string& name) const { return m_file.findTensor(name) != nullptr; }

    // A matrix of ggml shape [cols, rows] (rows outputs of cols inputs).
    Status matrix(const std::string& name, std::int64_t cols, std::int64_t rows, cpu::WeightMatrix& out)
    {
        const gguf::TensorInfo* t = nullptr;
        HEARTH_TRY(find(name, {cols, rows}, t));
        out = {t->type, t->data, rows, cols};
        return tick(*t);
    }

    // A 1-D vector (norm weights), converted to float when stored otherwise.
    Status vector(const std::string& name, std::int64_t n, const float*& out, std::vector<std::vector<float>>& converted)
    {
        const gguf::TensorInfo* t = nullptr;
        HEARTH_TRY(find(name, {n}, t));
        if (t->type == DType::F32) {
            out = reinterpret_cast<const float*>(t->data);
        } else {
            auto& v = converted.emplace_back(std::size_t(n));
            cpu::dequantizeRow(t->type, t->data, v.data(), n);
            out = v.data();
        }
        return tick(*t);
    }

    [[nodiscard]] const std::map<DType, std::uint64_t>& bytesPerType() const { return m_bytesPerType; }
    [[nodiscard]] std::uint64_t parameters() const { return m_parameters; }

private:
    Status find(const std::string& name, const std::vector<std::int64_t>& shape, const gguf::TensorInfo*& out)
    {
        const gguf::TensorInfo* t = m_file.findTensor(name);
        if (!t)
            return {ErrorCode::InvalidFile, "tensor " + name + " is missing"};
        // ggml pads shapes with trailing 1s in some writers; ignore those.
        std::vector<std::int64_t> actual = t->shape;
        while (actual.size() > shape.size() && actual.back() == 1)
            actual.pop_back();
        if (actual != shape)
            return {ErrorCode::InvalidFile, "tensor " + name + " has shape " + shapeString(t->shape) + ", expected "
                                                + shapeString(shape)};
        if (!isComputeType(t->type))
            return {ErrorCode::Unsupported,
                    "tensor " + name + " has type " + std::string(dtypeName(t->type)) + ", which Hearth cannot compute with"};
        const auto traits = dtypeTraits(std::uint32_t(t->type));
        if (!traits || shape[0] % traits->blockElements != 0)
            return {ErrorCode::InvalidFile, "tensor " + name + " has rows that are not whole blocks"};
        if (!t->data || t->byteSize < rowBytes(t->type, shape[0]) * std::uint64_t(t->rows()))
            return {ErrorCode::InvalidFile, "tensor " + name + " has no data"};
        out = t;
        return {};
    }

    Status tick(const gguf::TensorInfo& t)
    {
        m_bytesPerType[t.type] += t.byteSize;
        m_parameters += std::uint64_t(t.elementCount());
        ++m_done;
        if (m_progress && !m_progress(float(m_done) / float(m_expected)))
            return {ErrorCode::Cancelled, "loading was cancelled"};
        return {};
    }

    const gguf::GgufFile& m_file;
    const ProgressCallback& m_progress;
    std::size_t m_expected;
    std::size_t m_done = 0;
    std::map<DType, std::uint64_t> m_bytesPerType;
    std::uint64_t m_parameters = 0;
};

} // namespace

Result<std::unique_ptr<LlamaWeights>> LlamaWeights::bind(const gguf::GgufFile& file, const HyperParams& hp,
                                                          const ProgressCallback& progress)
{
    auto w = std::make_unique<LlamaWeights>();
    const bool tied = file.findTensor("output.weight") == nullptr;
    Binder b(file, progress, std::size_t(hp.nLayer) * 9 + 2 + (tied ? 0 : 1));

    HEARTH_TRY(b.matrix("token_embd.weight", hp.nEmbd, hp.nVocab, w->tokenEmbd));
    HEARTH_TRY(b.vector("output_norm.weight", hp.nEmbd, w->outputNorm, w->m_convertedNorms));
    if (tied)
        w->output = w->tokenEmbd;
    else
        HEARTH_TRY(b.matrix("output.weight", hp.nEmbd, hp.nVocab, w->output));

    w->layers.resize(std::size_t(hp.nLayer));
    for (int i = 0; i < hp.nLayer; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        LlamaLayerWeights& l = w->layers[std::size_t(i)];
        HEARTH_TRY(b.vector(p + "attn_norm.weight", hp.nEmbd, l.attnNorm, w->m_convertedNorms));
        HEARTH_TRY(b.matrix(p + "attn_q.weight", hp.nEmbd, hp.qDim(), l.wq));
        HEARTH_TRY(b.matrix(p + "attn_k.weight", hp.nEmbd, hp.kvDim(), l.wk));
        HEARTH_TRY(b.matrix(p + "attn_v.weight", hp.nEmbd, hp.kvDim(), l.wv));
        HEARTH_TRY(b.matrix(p + "attn_output.weight", hp.qDim(), hp.nEmbd, l.wo));
        HEARTH_TRY(b.vector(p + "ffn_norm.weight", hp.nEmbd, l.ffnNorm, w->m_convertedNorms));
        if (b.has(p + "ffn_neurons.weight")) {
            // Hearth's fused sparse layout: one row of gate|up|down per neuron.
            HEARTH_TRY(b.matrix(p + "ffn_neurons.weight", 3 * std::int64_t(hp.nEmbd), hp.nFf, l.neurons));
            l.fusedNeurons = true;
        } else {
            HEARTH_TRY(b.matrix(p + "ffn_gate.weight", hp.nEmbd, hp.nFf, l.gate));
            HEARTH_TRY(b.matrix(p + "ffn_up.weight", hp.nEmbd, hp.nFf, l.up));
        }
        if (l.fusedNeurons) {
            // Nothing else: the down rows are part of ffn_neurons.
        } else if (!b.has(p + "ffn_down.weight") && b.has(p + "ffn_down_t.weight")) {
            // PowerInfer files store the down projection neuron-major: row i is neuron i's
            // n_embd output weights, ggml shape [n_embd, n_ff].
            HEARTH_TRY(b.matrix(p + "ffn_down_t.weight", hp.nEmbd, hp.nFf, l.down));
            l.downTransposed = true;
        } else {
            HEARTH_TRY(b.matrix(p + "ffn_down.weight", hp.nFf, hp.nEmbd, l.down));
        }
        if (b.has(p + "fc1.weight") || b.has(p + "fc2.weight")) {
            // The predictor's hidden size comes from fc1 and may differ per layer.
            const gguf::TensorInfo* fc1 = file.findTensor(p + "fc1.weight");
            const std::int64_t hidden = fc1 && fc1->shape.size() >= 2 ? fc1->shape[1] : 0;
            if (hidden <= 0 || hidden > (1 << 20))
                return Status(ErrorCode::InvalidFile, "tensor " + p + "fc1.weight has an implausible shape");
            HEARTH_TRY(b.matrix(p + "fc1.weight", hp.nEmbd, hidden, l.predictor.fc1));
            HEARTH_TRY(b.matrix(p + "fc2.weight", hidden, hp.nFf, l.predictor.fc2));
        }
    }
    w->sparse = std::all_of(w->layers.begin(), w->layers.end(),
                            [](const LlamaLayerWeights& l) { return l.predictor.present(); });
    if (w->layers.empty())
        w->sparse = false;
    const bool anyFused = std::any_of(w->layers.begin(), w->layers.end(),
                                      [](const LlamaLayerWeights& l) { return l.fusedNeurons; });
    if (anyFused && !w->sparse)
        return Status(ErrorCode::InvalidFile, "the fused neuron layout (ffn_neurons) needs a predictor in every layer");
    if (const auto threshold = file.getFloat("powerinfer.sparse_threshold")) {
        if (!std::isfinite(*threshold))
            return Status(ErrorCode::InvalidFile, "powerinfer.sparse_threshold is not a finite number");
        w->sparseThreshold = float(*threshold);
    }

    w->packForKernels(file.mapping() != nullptr);

    std::uint64_t most = 0;
    for (const auto& [type, bytes] : b.bytesPerType()) {
        if (bytes > most) {
            most = bytes;
            w->dominantType = type;
        }
    }
    w->parameterCount = b.parameters();
    return w;
}

void LlamaWeights::packForKernels(bool fileMapped)
{
    // Only what the dense matmuls read; the mapped rows stay valid for getRow() and row-wise
    // readers (embeddings, the sparse FFN), and a matrix that cannot be packed simply is not.
    const auto pack = [&](cpu::WeightMatrix& m) {
        if (m_packed.pack(m) && fileMapped)
            cpu::releaseMappedPages(m.data, std::size_t(m.packedRows) * rowBytes(m.type, m.cols));
    };
    pack(output);
    for (LlamaLayerWeights& l : layers) {
        for (cpu::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo})
            pack(*m);
        // Predictors are dense matmuls read for every token.
        pack(l.predictor.fc1);
        pack(l.predictor.fc2);
        if (!sparse && !l.fusedNeurons) {
            pack(l.gate);
            pack(l.up);
            if (!l.downTransposed)
                pack(l.down);
        }
    }
}

} // namespace hearth::model
