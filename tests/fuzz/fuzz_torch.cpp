// SPDX-License-Identifier: MIT
// PyTorch checkpoints: the input is tried as a bare pickle (data.pkl) and as a whole torch.save
// archive. Nothing a pickle names is ever run; any input loads or fails with a message, and every
// tensor of a loaded state dict holds exactly its shape's bytes.

#include "convert/torch_checkpoint.h"
#include "convert/unpickler.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto input = fuzz::bytes(data, size);
    fuzz::parsed(convert::unpickle(input));

    auto checkpoint = convert::TorchCheckpoint::fromBytes(input);
    if (!fuzz::parsed(checkpoint))
        return 0;
    auto tensors = checkpoint->stateDict();
    if (!fuzz::parsed(tensors))
        return 0;
    std::uint64_t sum = 0;
    for (const auto& [name, tensor] : *tensors) {
        fuzz::require(tensor.elementCount() >= 0);
        fuzz::require(tensor.data().size() == static_cast<std::size_t>(tensor.elementCount()) * convert::elementSize(tensor.dtype()));
        if (tensor.elementCount() <= 4096)
            sum += tensor.toFloat().size();
        sum += name.size();
    }
    fuzz::consume(sum);
    return 0;
}
