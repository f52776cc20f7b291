// SPDX-License-Identifier: MIT
#pragma once

// A PyTorch checkpoint written by torch.save (the zip format of torch >= 1.6), read without
// Python and without running any of the code a pickle can name. PowerInfer ships its activation
// statistics (activation_<n>.pt, one 1-D tensor) and predictors (model_<n>.pt, a state dict with
// fc1.weight and fc2.weight) this way, and Hugging Face models as pytorch_model-*.bin shards.

#include "convert/pickle_value.h"
#include "convert/torch_tensor.h"
#include "convert/unpickler.h"
#include "convert/zip_archive.h"

#include <hearth/status.h>

#include <map>
#include <memory>
#include <span>
#include <string>

namespace hearth {
class MappedFile;
}

namespace hearth::convert {

class TorchCheckpoint {
public:
    // Maps the file at @p path and parses its pickle.
    [[nodiscard]] static Result<TorchCheckpoint> open(const std::string& path, const UnpicklerLimits& limits = {});
    // Parses a checkpoint held in memory; @p bytes must outlive the checkpoint and its tensors.
    [[nodiscard]] static Result<TorchCheckpoint> fromBytes(std::span<const std::byte> bytes,
                                                           const UnpicklerLimits& limits = {});

    // The unpickled object (a dict for state dicts, a tensor for activation files).
    [[nodiscard]] const PickleValue& root() const { return m_root; }
    // The archive's folder name, such as "archive" or the file's stem.
    [[nodiscard]] const std::string& prefix() const { return m_prefix; }

    // Resolves a tensor value of root() against the archive's storages.
    [[nodiscard]] Result<TorchTensor> tensor(const PickleValue& value) const;
    // Every tensor of a (possibly nested) dict root by key; nested dicts are joined with '.'.
    [[nodiscard]] Result<std::map<std::string, TorchTensor>> stateDict() const;

private:
    static Result<TorchCheckpoint> parse(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                                         const UnpicklerLimits& limits);
    Status collect(const PickleValue& value, const std::string& prefix,
                   std::map<std::string, TorchTensor>& out) const;

    std::shared_ptr<const void> m_owner; // the mapping, when open() made one
    ZipArchive m_archive;
    std::string m_prefix;
    bool m_bigEndian = false;
    PickleValue m_root;
};

// Reads the state dict (or the single tensor, under the key "") of the checkpoint at @p path.
[[nodiscard]] Result<std::map<std::string, TorchTensor>> readStateDict(const std::string& path);

} // namespace hearth::convert
