// SPDX-License-Identifier: MIT
// llama-quantize's choice of a type per tensor (its llama_tensor_get_type), for the presets
// Hearth offers and dense models (no experts). Rules are checked in llama-quantize's order:
// the first that matches decides, and a row that is no whole number of the chosen type's
// blocks falls back to a 32-weight type afterwards.

#include "convert/quantize_preset.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>

namespace hearth {

namespace {

using convert::PresetInfo;
using P = QuantizationPreset;

// LLAMA_FTYPE_* of llama.h.
constexpr std::array<PresetInfo, 16> kPresets{{
    {P::F32, DType::F32, 0, false},
    {P::F16, DType::F16, 1, false},
    {P::BF16, DType::BF16, 32, false},
    {P::Q8_0, DType::Q8_0, 7, true},
    {P::Q6_K, DType::Q6_K, 18, true},
    {P::Q5_K_M, DType::Q5_K, 17, true},
    {P::Q5_K_S, DType::Q5_K, 16, true},
    {P::Q4_K_M, DType::Q4_K, 15, true},
    {P::Q4_K_S, DType::Q4_K, 14, true},
    {P::Q4_0, DType::Q4_0, 2, true},
    {P::IQ4_XS, DType::IQ4_XS, 30, true},
    {P::Q3_K_M, DType::Q3_K, 12, true},
    {P::Q2_K, DType::Q2_K, 10, true},
    {P::Q4_1, DType::Q4_1, 3, true},
    {P::Q5_0, DType::Q5_0, 8, true},
    {P::Q5_1, DType::Q5_1, 9, true},
}};

constexpr std::array<std::string_view, 16> kNames{"F32",    "F16",    "BF16", "Q8_0",   "Q6_K",   "Q5_K_M", "Q5_K_S", "Q4_K_M",
                                                  "Q4_K_S", "Q4_0",   "IQ4_XS", "Q3_K_M", "Q2_K",   "Q4_1",   "Q5_0",   "Q5_1"};

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

} // namespace

std::string_view presetName(QuantizationPreset preset)
{
    return kNames[static_cast<std::size_t>(preset)];
}

std::optional<QuantizationPreset> presetFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (equalsIgnoringCase(name, kNames[i]))
            return static_cast<QuantizationPreset>(i);
    }
    return std::nullopt;
}

namespace convert {

namespace {

bool contains(const std::string& s, std::string_view part)
{
    return s.find(part) != std::string::npos;
}

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// llama-quantize's use_more_bits: the first and last eighth of the layers and every third one
// between.
bool useMoreBits(int layer, int layers)
{
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

std::int64_t blockOf(DType type)
{
    const auto traits = dtypeTraits(static_cast<std::uint32_t>(type));
    return traits ? traits->blockElements : 1;
}

// What the model's metadata says that the rules look at.
struct ModelFacts {
    std::string architecture;
    int layers = 0;
    int headsPerKvHead = 0; // n_gqa: heads / KV heads, 0 without KV heads
    int experts = 0;
    bool is70B = false;
    bool hasOutput = false;
    int valueMatrices = 0; // attn_v / attn_qkv / attn_kv_b tensors
};

ModelFacts factsOf(const gguf::GgufFile& file)
{
    ModelFacts f;
    f.architecture = file.getString("general.architecture").value_or("");
    const std::string p = f.architecture + ".";
    f.layers = int(file.getInt(p + "block_count").value_or(0));
    const std::int64_t heads = file.getInt(p + "attention.head_count").value_or(0);
    const std::int64_t kvHeads = file.getInt(p + "attention.head_count_kv").value_or(heads);
    f.headsPerKvHead = kvHeads > 0 ? int(heads / kvHeads) : 0;
    f.experts = int(file.getInt(p + "expert_count").value_or(0));
    // llama.cpp's LLM_TYPE_70B for the llama architecture: 80 layers with grouped KV heads.
    f.is70B = f.architecture == "llama" && f.layers == 80 && heads != kvHeads;
    for (const gguf::TensorInfo& t : file.tensors()) {
        if (contains(t.name, "attn_v.weight") || contains(t.name, "attn_qkv.weight") || contains(t.name, "attn_kv_b.weight"))
            ++f.valueMatrices;
        else if (t.name == "output.weight")
            f.hasOutput = true;
    }
    return f;
}

// Layers counted as llama-quantize counts them: each matching tensor, in its visiting order.
struct Counters {
    int valueMatrix = 0;
    int ffnDown = 0;
};

// The layer of an expert tensor from its name; with experts llama-quantize reads the name
// because experts of a layer need not be consecutive.
int layerOf(const std::string& name, int counter, const ModelFacts& f)
{
    if (f.experts <= 1)
        return counter;
    const int layer = tensorLayer(name);
    return layer >= 0 ? layer : counter;
}

DType chooseType(const gguf::TensorInfo& t, QuantizationPreset preset, const ModelFacts& f, Counters& c)
{
    const std::string& name = t.name;
    const bool falcon = f.architecture == "falcon";
    DType type = presetInfo(preset).baseType;

    if (name == "output.weight" || (!f.hasOutput && name == "token_embd.weight")) {
        if (falcon || t.rowLength() % blockOf(type) != 0)
            type = DType::Q8_0;
        else if (type != DType::Q8_0)
            type = DType::Q6_K;
    } else if (name == "token_embd.weight") {
        // No preset offered here changes the embedding.
    } else if (contains(name, "attn_v.weight")) {
        const int i = c.valueMatrix;
        const int n = f.valueMatrices;
        if (preset == P::Q2_K)
            type = f.headsPerKvHead >= 4 ? DType::Q4_K : DType::Q3_K;
        else if (preset == P::Q3_K_M)
            type = i < 2 ? DType::Q5_K : DType::Q4_K;
        else if (preset == P::IQ4_XS && f.headsPerKvHead >= 4)
            type = DType::Q5_K;
        else if ((preset == P::Q4_K_M || preset == P::Q5_K_M) && useMoreBits(i, n))
            type = DType::Q6_K;
        else if (preset == P::Q4_K_S && i < 4)
            type = DType::Q5_K;
        if (f.is70B && (type == DType::Q3_K || type == DType::Q4_K))
            type = DType::Q5_K;
        if (f.experts == 8)
            type = DType::Q8_0;
        ++c.valueMatrix;
    } else if (contains(name, "attn_k.weight")) {
        if (f.experts == 8)
            type = DType::Q8_0;
    } else if (contains(name, "ffn_down")) {
        const int i = layerOf(name, c.ffnDown, f);
        const int n = f.layers;
        if (preset == P::Q2_K)
            type = DType::Q3_K;
        else if (preset == P::Q3_K_M)
            type = i < n / 16 ? DType::Q5_K : (!falcon || useMoreBits(i, n)) ? DType::Q4_K : DType::Q3_K;
        else if (preset == P::Q4_K_M) {
            if (falcon)
                type = i < n / 16 ? DType::Q6_K : useMoreBits(i, n) ? DType::Q5_K : DType::Q4_K;
            else if (useMoreBits(i, n))
                type = DType::Q6_K;
        } else if (i < n / 8 && preset == P::IQ4_XS)
            type = DType::Q5_K;
        else if (preset == P::Q5_K_M && useMoreBits(i, n))
            type = DType::Q6_K;
        else if (preset == P::Q4_K_S && !falcon && i < n / 8)
            type = DType::Q5_K;
        ++c.ffnDown;
    } else if (contains(name, "attn_output.weight")) {
        if (!falcon) {
            const bool bumped = preset == P::Q2_K || preset == P::Q3_K_M || preset == P::Q4_K_S || preset == P::Q4_K_M
                                || preset == P::IQ4_XS;
            if (f.experts == 8 && bumped)
                type = DType::Q5_K;
            else if (preset == P::Q2_K)
                type = DType::Q3_K;
            else if (preset == P::Q3_K_M)
                type = DType::Q4_K;
        }
    } else if (contains(name, "attn_qkv.weight")) {
        if (preset == P::Q3_K_M)
            type = DType::Q4_K;
        else if (preset == P::Q4_K_M)
            type = DType::Q5_K;
        else if (preset == P::Q5_K_M)
            type = DType::Q6_K;
    }
    return type;
}

// A row that is no whole number of @p type's blocks: the 32-weight type llama-quantize takes
// instead, F16 when even those do not fit, or nothing (it gives up on the file).
std::optional<DType> fallbackFor(DType type, std::int64_t rowLength)
{
    if (rowLength % blockOf(type) == 0)
        return type;
    DType replacement;
    switch (type) {
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::IQ4_XS:
        replacement = DType::IQ4_NL;
        break;
    case DType::Q4_K:
        replacement = DType::Q5_0;
        break;
    case DType::Q5_K:
        replacement = DType::Q5_1;
        break;
    case DType::Q6_K:
        replacement = DType::Q8_0;
        break;
    default:
        return std::nullopt;
    }
    return rowLength % blockOf(replacement) == 0 ? replacement : DType::F16;
}

} // namespace

const PresetInfo& presetInfo(QuantizationPreset preset)
{
    return kPresets[static_cast<std::size_t>(preset)];
}

bool isQuantizableWeight(const std::string& name, const std::vector<std::int64_t>& shape)
{
    std::size_t dims = shape.size();
    while (dims > 1 && shape[dims - 1] == 1)
        --dims;
    if (dims < 2 || !endsWith(name, "weight"))
        return false;
    for (std::string_view kept : {"_norm.weight", "ffn_gate_inp.weight", "ssm_conv1d.weight", "time_mix_first.weight",
                                  "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_decay_w1.weight",
                                  "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight"}) {
        if (contains(name, kept))
            return false;
    }
    if (name == "position_embd.weight" || name == "token_types.weight")
        return false;
    // PowerInfer's predictors stay in their type (F16): its kernels expect that.
    return !endsWith(name, ".fc1.weight") && !endsWith(name, ".fc2.weight");
}

int tensorLayer(const std::string& name)
{
    int l = -1;
    return std::sscanf(name.c_str(), "blk.%d.", &l) == 1 ? l : -1;
}

std::vector<std::size_t> llamaTensorOrder(const gguf::GgufFile& file)
{
    const auto& tensors = file.tensors();
    const auto layer = tensorLayer;
    std::vector<std::size_t> order(tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const int la = layer(tensors[a].name);
        const int lb = layer(tensors[b].name);
        return la != lb ? la < lb : tensors[a].name < tensors[b].name;
    });
    return order;
}

Result<std::vector<DType>> planTensorTypes(const gguf::GgufFile& file, QuantizationPreset preset)
{
    const PresetInfo& info = presetInfo(preset);
    const ModelFacts facts = factsOf(file);
    const auto& tensors = file.tensors();
    std::vector<DType> types(tensors.size());
    Counters counters;
    for (std::size_t index : llamaTensorOrder(file)) {
        const gguf::TensorInfo& t = tensors[index];
        types[index] = t.type;
        if (!isQuantizableWeight(t.name, t.shape))
            continue;
        if (!info.quantized) {
            types[index] = info.baseType;
            continue;
        }
        const std::optional<DType> type = fallbackFor(chooseType(t, preset, facts, counters), t.rowLength());
        if (!type)
            return Status(ErrorCode::InvalidArgument, "tensor " + t.name + " has rows of " + std::to_string(t.rowLength())
                                                          + " weights, which " + std::string(presetName(preset))
                                                          + " cannot store (its blocks hold 32)");
        types[index] = *type;
    }
    return types;
}

} // namespace convert
} // namespace hearth
