// SPDX-License-Identifier: MIT
#include "api/session_device.h"

#include "cpu/ops.h"
#include "device/device_loader.h"
#include "device/emulated_device.h"
#include "model/falcon_model.h"
#include "model/llama_model.h"
#include "model/opt_model.h"
#include "sparse/vram_budget.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <string_view>
#include <system_error>

namespace hearth {

namespace {

constexpr std::string_view kEmulatedPrefix = "emulated:";

// A positive byte count, the whole of @p text.
bool parseBytes(std::string_view text, std::uint64_t& bytes)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    return ec == std::errc() && end == text.data() + text.size() && bytes > 0;
}

// Why whole-layer offload cannot upload @p m, or empty.
std::string matrixProblem(const cpu::WeightMatrix& m, std::size_t layer)
{
    if (!m.data || isDeviceType(m.type))
        return {};
    return "layer " + std::to_string(layer) + " holds " + std::string(dtypeName(m.type))
           + " weights, which the device does not compute";
}

std::string neuronMajorProblem(std::size_t layer)
{
    return "layer " + std::to_string(layer) + " stores its FFN as fused neuron rows, which whole-layer offload does not take";
}

// The first problem of @p layers' matrices.
template <typename Matrices>
void noteProblems(std::string& problem, std::size_t layer, const Matrices& matrices)
{
    for (const cpu::WeightMatrix* m : matrices) {
        if (problem.empty())
            problem = matrixProblem(*m, layer);
    }
}

// The RoPE divisors of a layer rotating at @p rope with YaRN (HyperParams::ropeYarn): YaRN's
// blend of scaled and unscaled angles folded into the file's divisors (@p fileFactors, or ones),
// so that the device rotates at a scale of 1 with these and YaRN's magnitude as its attnFactor.
std::shared_ptr<const std::vector<float>> yarnDivisors(const model::HyperParams& hp, model::HyperParams::Rope rope,
                                                       const float* fileFactors)
{
    const cpu::YarnRamp ramp = cpu::yarnRamp(hp.nRot, hp.ropeOriginalContext, rope.freqBase, hp.yarnBetaFast,
                                             hp.yarnBetaSlow);
    auto divisors = std::make_shared<std::vector<float>>(std::size_t(hp.nRot / 2));
    for (int i = 0; i < hp.nRot / 2; ++i)
        (*divisors)[std::size_t(i)] = float((fileFactors ? double(fileFactors[i]) : 1.0)
                                            / cpu::yarnAngleScale(ramp, i, rope.freqScale));
    return divisors;
}

void fromLlama(const model::LlamaModel& model, DeviceModelLayers& out)
{
    const model::HyperParams& hp = model.hyperParams();
    out.params.activation = deviceActivation(hp.ffnActivation);
    out.output = {device::NormKind::Rms, model.weights().outputNorm, nullptr, hp.normEps, model.weights().output};
    if (hp.flavour.rope == model::RopeStyle::Neox)
        out.params.rope = device::RopeStyle::Neox;
    for (std::size_t l = 0; l < model.weights().layers.size(); ++l) {
        const model::LlamaLayerWeights& lw = model.weights().layers[l];
        out.layers.push_back({{lw.attnNorm, lw.wq, lw.wk, lw.wv, lw.wo}, lw.ffnNorm, lw.gate, lw.up, lw.down});
        device::DenseLayerWeights& w = out.layers.back();
        w.ropeFreqs = model.weights().ropeFactors(hp, out.params.contextLength);
        w.bq = lw.bq;
        w.bk = lw.bk;
        w.bv = lw.bv;
        w.bo = lw.bo;
        w.sinks = lw.attnSinks;
        w.qNorm = lw.qNorm;
        w.kNorm = lw.kNorm;
        w.attnPostNorm = lw.attnPostNorm;
        w.ffnPostNorm = lw.ffnPostNorm;
        w.window = hp.windowOf(int(l));
        const model::HyperParams::Rope rope = hp.ropeOf(int(l));
        w.freqBase = rope.freqBase;
        w.freqScale = rope.freqScale;
        if (hp.ropeYarn) {
            // Each layer uploads its own divisors anyway (nRot / 2 floats).
            out.ropeDivisors.push_back(yarnDivisors(hp, rope, w.ropeFreqs));
            w.ropeFreqs = out.ropeDivisors.back()->data();
            w.freqScale = 1.0f;
            w.attnFactor = hp.ropeAttnFactor * cpu::yarnMagnitude(rope.freqScale);
        }
        w.rotate = hp.rotates(int(l));
        w.inputMajor = lw.attentionInputMajor;
        w.gateUpInputMajor = lw.gateUpInputMajor;
        w.downNeuronMajor = lw.downTransposed;
        out.predictors.push_back(lw.predictor);
        if (out.wholeLayerProblem.empty() && lw.fusedNeurons)
            out.wholeLayerProblem = neuronMajorProblem(l);
        if (out.wholeLayerProblem.empty() && lw.moe.present())
            out.wholeLayerProblem = "layer " + std::to_string(l) + " is a mixture of experts, which the device does not compute yet";
        noteProblems(out.wholeLayerProblem, l, std::initializer_list<const cpu::WeightMatrix*>{
                                                   &lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.gate, &lw.up, &lw.down});
    }
}

// The FFN part of a falcon or opt layer.
void setUpDownFfn(const model::UpDownFfn& ffn, std::size_t layer, device::DenseLayerWeights& w, std::string& problem)
{
    w.up = ffn.up;
    w.down = ffn.down;
    w.upBias = ffn.upBias;
    w.downBias = ffn.downBias;
    w.downNeuronMajor = ffn.downTransposed;
    if (problem.empty() && ffn.fusedNeurons)
        problem = neuronMajorProblem(layer);
    noteProblems(problem, layer, std::initializer_list<const cpu::WeightMatrix*>{&ffn.up, &ffn.down});
}

device::Activation upDownActivation(model::DenseActivation a)
{
    return a == model::DenseActivation::Gelu ? device::Activation::Gelu : device::Activation::Relu;
}

void fromFalcon(const model::FalconModel& model, DeviceModelLayers& out)
{
    device::DenseModelParams& p = out.params;
    p.norm = device::NormKind::Layer;
    p.rope = device::RopeStyle::Neox;
    p.fusedQkv = true;
    p.parallelBlock = true;
    const auto& mw = model.weights();
    out.output = {device::NormKind::Layer, mw.outputNorm, mw.outputNormBias, model.hyperParams().normEps, mw.output};
    const auto& layers = mw.layers;
    p.activation = upDownActivation(layers.empty() ? model.activation() : layers.front().ffn.activation);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const model::FalconLayerWeights& lw = layers[l];
        device::DenseLayerWeights w;
        w.norm = lw.attnNorm;
        w.normBias = lw.attnNormBias;
        w.wqkv = lw.wqkv;
        w.wo = lw.wo;
        // Without its own norm the FFN reads the attention's normalized input: the same
        // LayerNorm of the same layer input.
        w.ffnNorm = lw.ffnNorm ? lw.ffnNorm : lw.attnNorm;
        w.ffnNormBias = lw.ffnNorm ? lw.ffnNormBias : lw.attnNormBias;
        setUpDownFfn(lw.ffn, l, w, out.wholeLayerProblem);
        if (out.wholeLayerProblem.empty() && upDownActivation(lw.ffn.activation) != p.activation)
            out.wholeLayerProblem = "the layers use different FFN activations";
        noteProblems(out.wholeLayerProblem, l, std::initializer_list<const cpu::WeightMatrix*>{&lw.wqkv, &lw.wo});
        out.layers.push_back(w);
        out.predictors.push_back(lw.ffn.predictor);
    }
}

void fromOpt(const model::OptModel& model, DeviceModelLayers& out)
{
    device::DenseModelParams& p = out.params;
    p.norm = device::NormKind::Layer;
    p.rope = device::RopeStyle::None; // learned positions, added to the input on the CPU
    p.nRot = 0;
    p.activation = device::Activation::Relu;
    const auto& mw = model.weights();
    out.output = {device::NormKind::Layer, mw.outputNorm, mw.outputNormBias, model.hyperParams().normEps, mw.output};
    const auto& layers = mw.layers;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const model::OptLayerWeights& lw = layers[l];
        device::DenseLayerWeights w;
        w.norm = lw.attnNorm;
        w.normBias = lw.attnNormBias;
        w.wq = lw.wq;
        w.wk = lw.wk;
        w.wv = lw.wv;
        w.wo = lw.wo;
        w.bq = lw.bq;
        w.bk = lw.bk;
        w.bv = lw.bv;
        w.bo = lw.bo;
        w.ffnNorm = lw.ffnNorm;
        w.ffnNormBias = lw.ffnNormBias;
        setUpDownFfn(lw.ffn, l, w, out.wholeLayerProblem);
        if (out.wholeLayerProblem.empty() && lw.ffn.activation != model::DenseActivation::Relu)
            out.wholeLayerProblem = "layer " + std::to_string(l) + " does not use a ReLU FFN";
        noteProblems(out.wholeLayerProblem, l,
                     std::initializer_list<const cpu::WeightMatrix*>{&lw.wq, &lw.wk, &lw.wv, &lw.wo});
        out.layers.push_back(w);
        out.predictors.push_back(lw.ffn.predictor);
    }
}

} // namespace

Result<DeviceModelLayers> deviceModelLayers(const Model& model, int contextLength, int batchSize, bool halfCache)
{
    const model::ArchitectureModel* known = model::ArchitectureModel::of(model);
    if (!known)
        return Status(ErrorCode::Unsupported, "the " + model.info().architecture + " architecture has no device layers");
    const model::BlockKind block = known->architecture().block;
    const model::HyperParams& hp = known->hyperParams();
    DeviceModelLayers out;
    static_cast<device::AttentionParams&>(out.params) = attentionParams(hp, contextLength);
    out.params.nFF = hp.nFf;
    out.params.maxBatch = std::max(1, batchSize);
    out.params.halfCache = halfCache;
    try {
        switch (block) {
        case model::BlockKind::Llama:
            fromLlama(static_cast<const model::LlamaModel&>(*known), out);
            break;
        case model::BlockKind::Falcon:
            fromFalcon(static_cast<const model::FalconModel&>(*known), out);
            break;
        case model::BlockKind::Opt:
            fromOpt(static_cast<const model::OptModel&>(*known), out);
            break;
        }
    } catch (const std::bad_alloc&) {
        return Status(ErrorCode::OutOfMemory, "not enough memory to describe the model's layers");
    }
    return out;
}

device::AttentionParams attentionParams(const model::HyperParams& hp, int contextLength)
{
    device::AttentionParams a;
    a.nEmbd = hp.nEmbd;
    a.nHead = hp.nHead;
    a.nHeadKv = hp.nHeadKv;
    a.headDim = hp.headDim;
    a.nRot = hp.nRot;
    a.normEps = hp.normEps;
    a.freqBase = hp.ropeFreqBase;
    a.freqScale = hp.ropeFreqScale;
    a.attnFactor = hp.ropeAttnFactor;
    a.slidingWindow = hp.slidingWindow;
    a.scale = hp.attentionScale;
    a.softCap = hp.attnSoftCap;
    a.contextLength = contextLength;
    return a;
}

device::Activation deviceActivation(model::FfnActivation activation)
{
    switch (activation) {
    case model::FfnActivation::SwiGlu:
        return device::Activation::SwiGlu;
    case model::FfnActivation::ReGlu:
        return device::Activation::ReGlu;
    case model::FfnActivation::DRelu:
        return device::Activation::DRelu;
    case model::FfnActivation::Relu2:
        return device::Activation::Relu2;
    case model::FfnActivation::GeGlu:
        return device::Activation::GeGlu;
    case model::FfnActivation::SwiGluOai:
        return device::Activation::SwiGluOai;
    }
    return device::Activation::SwiGlu;
}

std::string cpuOnlyReport(const std::string& why)
{
    return "CPU only: " + why;
}

std::string reportWithFailure(const std::string& report, const std::string& failure, std::string_view consequence)
{
    if (failure.empty())
        return report;
    return report + "; the device failed (" + failure + "): " + std::string(consequence);
}

bool zeroVramBudget(const SessionParams& params)
{
    return !(params.vramBudgetGiB < 0) && !(params.vramBudgetGiB > 0);
}

Result<std::unique_ptr<device::Device>> openSessionDevice(const SessionParams& params)
{
    std::uint64_t requested = 0; // 0: the device's own figure (free memory less the margin)
    if (params.vramBudgetGiB > 0) {
        auto bytes = sparse::gibToBytes(params.vramBudgetGiB);
        if (!bytes)
            return bytes.status();
        requested = *bytes;
    }
    const std::string_view name = params.deviceOverride;
    if (name.starts_with(kEmulatedPrefix)) {
        // <bytes>[:<physical bytes>[:<operations before it fails>]]
        std::string_view rest = name.substr(kEmulatedPrefix.size());
        std::uint64_t fields[3] = {0, 0, 0};
        bool ok = true;
        for (int i = 0; i < 3; ++i) {
            const std::size_t colon = rest.find(':');
            const std::string_view text = rest.substr(0, colon);
            // The budget must be > 0; the others may be 0 (not limited).
            ok = ok && (parseBytes(text, fields[i]) || (i > 0 && text == "0"));
            if (colon == std::string_view::npos) {
                rest = {};
                break;
            }
            rest = rest.substr(colon + 1);
        }
        if (!ok || !rest.empty())
            return Status(ErrorCode::InvalidArgument,
                          "bad device override '" + params.deviceOverride
                              + "' (expected emulated:<bytes>[:<physical bytes>[:<operations before it fails>]])");
        device::EmulatedDeviceOptions options;
        options.budgetBytes = requested > 0 ? std::min(requested, fields[0]) : fields[0];
        options.physicalBytes = fields[1];
        options.operationsBeforeFailure = fields[2];
        return std::unique_ptr<device::Device>(std::make_unique<device::EmulatedDevice>(options));
    }
    if (!name.empty())
        return Status(ErrorCode::InvalidArgument, "unknown device '" + params.deviceOverride + "'");
    device::DeviceLoadOptions options;
    options.budgetBytes = requested;
    return device::DeviceLoader::openCuda(options);
}

} // namespace hearth
