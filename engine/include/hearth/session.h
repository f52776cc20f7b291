// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// A conversation's state: KV cache, position and the logits of the last token.

#include <hearth/model.h>
#include <hearth/sampling.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hearth {

/// How a session stores attention keys and values.
enum class KvCacheType {
    F16, ///< half the memory of F32, as llama.cpp's default; logits differ from F32's in the 3rd or 4th digit
    F32, ///< every bit of the computed rows (comparisons with a float reference)
    /// llama.cpp's Q8_0 blocks: about half of F16's memory again, logits a little further from F32's;
    /// models whose heads are not a multiple of 32 wide keep F16.
    Q8_0,
};

/// The type called @p name ("f16", "f32" or "q8_0", as llama.cpp's --cache-type-k), or nullopt.
[[nodiscard]] std::optional<KvCacheType> kvCacheTypeFromName(std::string_view name);
/// The name of @p type, as kvCacheTypeFromName reads it.
[[nodiscard]] std::string_view kvCacheTypeName(KvCacheType type);

struct SessionParams {
    /// 0: the model's trained context, at most 4096; longer ones up to the trained context.
    int contextLength = 0;
    int threads = 0;       ///< 0: one per physical core
    int batchSize = 256;   ///< prompt tokens processed per batched forward pass
    bool denseFfn = false; ///< compute every FFN neuron even when the model has predictors (comparisons)
    /// GPU memory Hearth may use, in GiB. < 0: automatic (the free VRAM less 256 MiB when a GPU
    /// exists); 0: CPU only.
    double vramBudgetGiB = -1;
    bool resetGpuIndex = false;   ///< recompute the cached neuron placement beside the model
    bool disableGpuIndex = false; ///< keep every FFN neuron on the CPU (attention may still use the GPU)
    /// Place a mixture's experts on the GPU layer by layer, as llama.cpp's --n-cpu-moe does,
    /// instead of the most used first (for comparisons).
    bool expertsByLayer = false;
    /// Which device to use. "": the CUDA back end when its module loads. "emulated:<bytes>": the
    /// host-memory emulated device with that budget, for tests of the hybrid path without a GPU;
    /// "emulated:<bytes>:<physical bytes>" makes allocations past the second figure fail (a
    /// device that promised more than it has, to exercise re-planning);
    /// "emulated:<bytes>:<physical bytes>:<n>" fails every operation after the n-th (a device
    /// that stops working mid-session; 0 for either figure: not limited).
    std::string deviceOverride;
    /// Sessions with layers on a device keep F16 rows (F32 when asked for; Q8_0 becomes F16):
    /// the device keeps its own cache in that type and copies its rows back into the host's.
    KvCacheType kvCache = KvCacheType::F16;
};

/// Where a session's work runs, as facts for a user interface to put in its own words
/// (Session::placement()). placementReport() says the same in English for logs and tools.
struct SessionPlacement {
    std::string device;              ///< the GPU's name; empty: everything runs on the CPU
    std::string cpuOnlyReason;       ///< with no device: why (the engine's words)
    int layers = 0;                  ///< the model's layers
    int gpuLayers = 0;               ///< dense files: whole layers on the GPU; mixtures: their attention
    std::int64_t neurons = 0;        ///< sparse files: FFN neurons of the model
    std::int64_t hotNeurons = 0;     ///< sparse files: of those, on the GPU
    int experts = 0;                 ///< mixtures of experts: routed experts of the model
    int gpuExperts = 0;              ///< mixtures of experts: of those, on the GPU
    std::uint64_t budgetBytes = 0;   ///< the VRAM budget the placement was made for
    std::string deviceFailure;       ///< the device failed later (the engine's words); its work moved to the CPU

    [[nodiscard]] bool usesGpu() const { return !device.empty() && deviceFailure.empty(); }
};

/// Why generation ended.
enum class StopReason {
    EndOfGeneration, ///< the model produced an end-of-turn token
    MaxTokens,       ///< the caller's token limit was reached
    ContextFull,     ///< the context window is full
    Cancelled,       ///< the token callback returned false
};

struct GenerationStats {
    int promptTokens = 0;
    int generatedTokens = 0;
    double promptSeconds = 0;   ///< prefill time (also time to first token minus sampling)
    double generateSeconds = 0; ///< decode time
    StopReason stopReason = StopReason::EndOfGeneration;
    int draftedTokens = 0;  ///< speculative decoding: guesses the model checked
    int acceptedTokens = 0; ///< of those, the ones it sampled itself
};

class Drafter;

class Session {
public:
    static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, const SessionParams& params = {});
    virtual ~Session() = default;

    /// Appends @p tokens (batched), leaving the logits of the last one. ErrorCode::ContextFull
    /// when they do not fit; the session is unchanged then.
    virtual Status prefill(std::span<const Token> tokens) = 0;
    /// Appends one token and computes its logits.
    virtual Status decode(Token token) = 0;
    /// Logits after the last prefill/decode (vocabSize floats).
    [[nodiscard]] virtual std::span<const float> logits() const = 0;
    /// Like prefill, but keeps the logits of every token (perplexity).
    virtual Status evaluateAll(std::span<const Token> tokens, std::vector<float>& allLogits) = 0;

    [[nodiscard]] virtual int position() const = 0;      ///< tokens in the KV cache
    [[nodiscard]] virtual int contextLength() const = 0;
    /// Host memory of the KV cache: layers x contextLength x 2 rows of the KV width (a
    /// sliding-window layer's window and a batch instead of contextLength), 2 bytes an element
    /// for KvCacheType::F16, 4 for F32, 34/32 for Q8_0.
    [[nodiscard]] virtual std::uint64_t kvCacheBytes() const = 0;
    /// What the host KV cache would take at @p contextLength tokens, with this session's other
    /// parameters (to show before a new session is made).
    [[nodiscard]] virtual std::uint64_t kvCacheBytesAt(int contextLength) const = 0;
    /// How the host cache stores keys and values: SessionParams::kvCache, except F16 for a Q8_0
    /// the model's heads do not suit and F32 where device layers mirror their rows.
    [[nodiscard]] virtual KvCacheType kvCacheType() const = 0;
    [[nodiscard]] virtual std::span<const Token> history() const = 0; ///< tokens in the cache
    /// Drops everything after the first @p keep tokens (regenerate, edit-and-resend). Models with
    /// sliding-window layers keep only the keys their windows still see, so going back further
    /// than a window drops everything: position() tells how many tokens stayed.
    virtual void truncate(int keep) = 0;
    void reset() { truncate(0); }

    [[nodiscard]] virtual const Model& model() const = 0;

    /// What went where: "CPU only: <why>"; for sparse files "GPU <name>: ..., K of T FFN neurons
    /// hot, budget X" (with the re-planning that happened, if any, and "attention of A/N layers
    /// and predictors of P/N layers on the GPU"); for dense files "GPU <name>: K of N layers
    /// (attention, KV cache and FFN), ..." with why the rest run on the CPU. A device that fails
    /// later adds "the device failed (...)". For logs and tools.
    [[nodiscard]] virtual std::string placementReport() const { return {}; }
    /// The same as facts.
    [[nodiscard]] virtual SessionPlacement placement() const { return {}; }

    /// Called for each generated token with the text it completed (may be empty). Return false to stop.
    using TokenCallback = std::function<bool(Token token, const std::string& text)>;

    /// Prefills @p prompt, then samples up to @p maxTokens tokens, streaming them to @p onToken.
    /// With @p drafter, its guesses of the next tokens are checked in batched passes
    /// (hearth/speculative.h); the tokens are sampled the same way.
    Result<GenerationStats> generate(std::span<const Token> prompt, Sampler& sampler, int maxTokens,
                                     const TokenCallback& onToken, Drafter* drafter = nullptr);
};

} // namespace hearth
