// SPDX-License-Identifier: MIT
// Model::load: opens a GGUF/PWRI file, checks it describes a model Hearth can run, and binds
// the weights in place.
//
// general.architecture picks the loader from the registry (architecture.h). This file is the
// loader of the llama-block families. Keys read besides llama.cpp's (<arch>.embedding_length,
// .block_count, ...; see hyper_params.cpp): "hearth.ffn_activation" (string: "swiglu",
// "reglu", "drelu" or "relu2") names the gated FFN activation. Without it the family's default
// (LlamaBlockFlavour::activation), except a PowerInfer (PWRI) file of a SwiGLU family -> reglu.
// Falcon and OPT files go to their own loaders, which document their keys (falcon_model.cpp,
// opt_model.cpp).
//
// Sparse files (llama_weights.cpp binds them; every layer needs a predictor). A layer's neuron
// rows (gate, up and ffn_down_t, or ffn_neurons) share one type the neuron kernels read: F32,
// F16, Q8_0, Q4_0, Q4_K, Q5_K or Q6_K (hearth-quantize keeps them so under any preset).
// * PowerInfer's layout: magic PWRI; per layer blk.N.fc1.weight [n_embd, h] and
//   blk.N.fc2.weight [h, n_ff] (h may differ per layer), ffn_gate/ffn_up as usual and
//   blk.N.ffn_down_t.weight [n_embd, n_ff] (row i: neuron i's output weights) instead of
//   ffn_down; "powerinfer.sparse_threshold" (f32, default 0): a neuron is predicted active when
//   its logit fc2 · ReLU(fc1 · x) is >= it.
// * Hearth's fused layout: magic GGUF, "hearth.sparse.layout" = "neuron-fused" and
//   "hearth.sparse.neuron_order" = "frequency"; per layer blk.N.ffn_neurons.weight
//   [3 n_embd, n_ff] replaces ffn_gate, ffn_up and ffn_down: row i is neuron i's gate row, up
//   row and down row back to back (each n_embd elements of the tensor type, so per-row
//   quantization equals that of three separate rows), so an active neuron is one contiguous
//   read. Neurons are stored by descending activation frequency so the ones that fire together
//   sit together; fc2's rows are permuted the same way (the FFN's sum over neurons does not
//   depend on their order) and so are the rows of the statistics file (blk.N.ffn_freq).
//   fc1/fc2 and the threshold key are as in PowerInfer's layout, except that predictors
//   hearth-sparsify fitted are linear: "hearth.sparse.predictor_activation" = "identity" (the
//   default, "relu", is PowerInfer's), logit fc2 · (fc1 · x).
//
// Magnitude-sparse files (a SwiGLU model made sparse by thresholds, no predictors): magic GGUF,
// "hearth.sparse.layout" = "magnitude" (and, for information, "hearth.sparse.target_sparsity");
// per layer ffn_gate and ffn_up as usual, blk.N.ffn_down_t.weight [n_embd, n_ff] in ffn_up's
// type instead of ffn_down, and two F32 vectors of n_ff: blk.N.ffn_gate_threshold and
// blk.N.ffn_act_threshold. With r the root mean square of the residual before the FFN norm,
// neuron i's output silu(g_i) * u_i is dropped when |silu(g_i)| < ffn_gate_threshold[i] * r (its
// up row is then not read) or |silu(g_i) * u_i| < ffn_act_threshold[i] * r. Thresholds of 0 keep
// every neuron: the dense model.
//   With input sparsity (sparse/input_sparsity.h) a layer stores, instead of attn_q, attn_k,
// attn_v and attn_output, their input-major transposes blk.N.attn_{q,k,v}_t.weight [out, n_embd]
// and blk.N.attn_output_t.weight [n_embd, q_dim] (row i: input i's weights), and instead of
// ffn_gate, ffn_up and ffn_gate_threshold blk.N.ffn_{gate,up}_t.weight [n_ff, n_embd]; each in its
// source's type where the rows hold whole blocks, else Q8_0 (ffn_down_t too keeps its own type
// there). F32 thresholds per input, blk.N.attn_input_threshold [n_embd],
// blk.N.attn_output_threshold [q_dim] and blk.N.ffn_input_threshold [n_embd]: input x_i of a
// vector x is dropped when |x_i| < threshold[i] * rms(x), with x the normalized input of q/k/v,
// the heads' output, and the FFN's normalized input.

#include "model/architecture.h"
#include "model/llama_model.h"
#include "model/packing_limit.h"

#include "core/mapped_file.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"

#include <filesystem>

namespace hearth {

namespace model {

LlamaModel::LlamaModel(const Architecture& architecture, std::unique_ptr<gguf::GgufFile> file,
                       std::unique_ptr<Tokenizer> tokenizer, HyperParams hp, std::unique_ptr<LlamaWeights> weights,
                       ModelInfo info, std::string chatTemplate)
    : ArchitectureModel(architecture)
    , m_file(std::move(file))
    , m_tokenizer(std::move(tokenizer))
    , m_hp(std::move(hp))
    , m_weights(std::move(weights))
    , m_info(std::move(info))
    , m_chatTemplate(std::move(chatTemplate))
{
}

LlamaModel::~LlamaModel() = default;

Result<std::shared_ptr<const Model>> loadLlamaModel(std::unique_ptr<gguf::GgufFile> file, const std::string& path,
                                                    const LoadParams& params)
{
    auto hp = HyperParams::fromGguf(*file);
    if (!hp)
        return Status(hp.code(), path + ": " + hp.message());

    auto tokenizer = createTokenizer(*file);
    if (!tokenizer)
        return Status(tokenizer.code(), path + ": " + tokenizer.message());
    if ((*tokenizer)->vocabSize() != hp->nVocab)
        return Status(ErrorCode::InvalidFile, path + ": the tokenizer has " + std::to_string((*tokenizer)->vocabSize())
                                                  + " tokens but the vocabulary lists " + std::to_string(hp->nVocab));

    if (params.progress && !params.progress(0.05f))
        return Status(ErrorCode::Cancelled, "loading was cancelled");

    const ProgressCallback scaled = [&params](float f) { return !params.progress || params.progress(0.05f + 0.95f * f); };
    auto weights = LlamaWeights::bind(*file, *hp, scaled, packingLimit(params), params.sparsePromptCopies);
    if (!weights)
        return Status(weights.code(), weights.code() == ErrorCode::Cancelled ? weights.message()
                                                                              : path + ": " + weights.message());

    if (params.lockInMemory && file->mapping())
        (void)file->mapping()->lock(); // best effort: the OS may refuse (RLIMIT_MEMLOCK)

    ModelInfo info;
    info.path = path;
    info.name = file->getString("general.name").value_or(std::filesystem::path(path).filename().string());
    info.architecture = hp->architecture;
    info.weightType = std::string(dtypeName((*weights)->dominantType));
    info.bytesLeftMapped = (*weights)->bytesLeftMapped();
    info.promptCopyBytes = (*weights)->promptCopyBytes();
    info.ffnActivation = std::string(ffnActivationName(hp->ffnActivation));
    info.sparse = (*weights)->sparse;
    info.magnitudeSparse = (*weights)->magnitudeSparse;
    info.fileSize = file->bytes().size();
    info.parameterCount = (*weights)->parameterCount;
    info.layerCount = hp->nLayer;
    info.embeddingSize = hp->nEmbd;
    info.headCount = hp->nHead;
    info.kvHeadCount = hp->nHeadKv;
    info.feedForwardSize = hp->nFf;
    info.vocabSize = hp->nVocab;
    info.trainedContextLength = hp->nCtxTrain;

    std::string chatTemplate = file->getString("tokenizer.chat_template").value_or(std::string());

    const Architecture& architecture = *findArchitecture(hp->architecture); // fromGguf found it
    return std::shared_ptr<const Model>(std::make_shared<LlamaModel>(
        architecture, std::move(file), std::move(tokenizer).value(), std::move(hp).value(), std::move(weights).value(),
        std::move(info), std::move(chatTemplate)));
}

} // namespace model

Result<std::shared_ptr<const Model>> Model::load(const std::string& path, const LoadParams& params)
{
    // Parsing the header is a small part of the work; binding (and touching) the tensors is the
    // rest, so progress reports 5% after the parse.
    if (params.progress && !params.progress(0.0f))
        return Status(ErrorCode::Cancelled, "loading was cancelled");

    auto file = gguf::GgufFile::open(path);
    if (!file)
        return file.status();
    const auto name = (*file)->getString("general.architecture");
    if (!name)
        return Status(ErrorCode::InvalidFile, path + ": metadata key general.architecture is missing");
    const model::Architecture* architecture = model::findArchitecture(*name);
    if (!architecture)
        return Status(ErrorCode::Unsupported, path + ": architecture \"" + *name + "\" is not supported");
    return architecture->load(std::move(file).value(), path, params);
}

std::vector<ArchitectureName> supportedArchitectures()
{
    std::vector<ArchitectureName> names;
    for (const model::Architecture* a : model::architectures())
        names.push_back({std::string(a->name), std::string(a->displayName)});
    return names;
}

} // namespace hearth
