// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Loading a model file (GGUF, or PowerInfer's PWRI variant) and what is known about it.

#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hearth {

/// Called while loading with a fraction in [0, 1]. Return false to cancel the load.
using ProgressCallback = std::function<bool(float progress)>;

struct LoadParams {
    ProgressCallback progress;  ///< optional
    bool lockInMemory = false;  ///< mlock the mapping (fewer page faults during the first tokens)
    /// Memory the weights' repacked copies (faster kernels' layouts) may take; what does not fit
    /// is read from the file mapping as needed, a mixture's routed experts first. 0: what the
    /// system has available (MemAvailable, a memory cgroup's limit) less room for a session.
    std::uint64_t memoryBudgetBytes = 0;
    /// Sparse llama-family files: also keep each FFN layer laid out as a dense file's (within
    /// memoryBudgetBytes), so that prompts, whose tokens together use most neurons, run as
    /// fast as the dense file's: about the FFN's size again in RAM (ModelInfo::promptCopyBytes).
    bool sparsePromptCopies = false;
};

/// Hyper-parameters and facts shown to users (model picker, --version, benchmarks).
struct ModelInfo {
    std::string path;
    std::string name;          ///< general.name, or the file name
    std::string architecture;  ///< general.architecture: one of supportedArchitectures()
    std::string weightType;    ///< dominant tensor type, e.g. "Q4_0"
    std::string ffnActivation; ///< "swiglu", "reglu", "drelu", "relu2", "relu"
    bool sparse = false;       ///< carries predictors (PowerInfer-style file)
    /// A SwiGLU model made sparse by thresholds (sparsifyModel, SparsifyMethod::Magnitude):
    /// decoding skips the neurons that matter least, without predictors.
    bool magnitudeSparse = false;
    std::uint64_t fileSize = 0;
    /// Weight bytes left in the file mapping because memory was short (LoadParams::
    /// memoryBudgetBytes): read from the disk cache, or the disk, as tokens need them.
    std::uint64_t bytesLeftMapped = 0;
    /// Memory the sparse layers' copies for prompts take (LoadParams::sparsePromptCopies).
    std::uint64_t promptCopyBytes = 0;
    std::uint64_t parameterCount = 0;
    int layerCount = 0;
    int embeddingSize = 0;
    int headCount = 0;
    int kvHeadCount = 0;
    int feedForwardSize = 0;
    int vocabSize = 0;
    int trainedContextLength = 0;
};

class Model {
public:
    /// Opens and validates @p path. Weights stay memory-mapped; nothing is copied.
    static Result<std::shared_ptr<const Model>> load(const std::string& path, const LoadParams& params = {});

    virtual ~Model() = default;
    [[nodiscard]] virtual const ModelInfo& info() const = 0;
    [[nodiscard]] virtual const Tokenizer& tokenizer() const = 0;
    /// The Jinja chat template stored in the file (tokenizer.chat_template), or empty.
    [[nodiscard]] virtual const std::string& chatTemplateSource() const = 0;
};

/// A model family this build runs.
struct ArchitectureName {
    std::string name;        ///< general.architecture, e.g. "qwen3"
    std::string displayName; ///< for people, e.g. "Qwen 3"
};

/// Every architecture Model::load accepts.
[[nodiscard]] std::vector<ArchitectureName> supportedArchitectures();

/// Version and build facts for --version and bug reports.
struct BuildInfo {
    std::string version;
    std::string cpuFeatures; ///< e.g. "AVX2 FMA F16C AVX512F AVX512BW AVX512VNNI"
    std::string cpuKernels;  ///< the kernel set picked at run time: "avx512", "avx2" or "scalar"
    bool cudaBuilt = false;  ///< the CUDA back-end module was built with this release
};
[[nodiscard]] BuildInfo buildInfo();

} // namespace hearth
