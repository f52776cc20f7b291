// SPDX-License-Identifier: MIT
// Hugging Face config.json: any text gives a configuration Hearth can size a model from, or an
// error with a message. A configuration that parses has sizes that cannot divide by zero, and
// its head size divides hidden_size unless the config states it (Gemma's head_dim, which need
// not divide it).

#include "convert/hf_config.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto config = convert::HfConfig::parse(fuzz::text(data, size));
    if (!fuzz::parsed(config))
        return 0;
    fuzz::require(config->hiddenSize > 0 && config->headCount > 0 && config->layerCount > 0);
    fuzz::require(config->kvHeadCount > 0 && config->headCount % config->kvHeadCount == 0);
    fuzz::require(config->explicitHeadDim > 0 || config->hiddenSize % config->headCount == 0);
    fuzz::consume(static_cast<std::uint64_t>(config->headDim()) + static_cast<std::uint64_t>(config->kvDim()));
    return 0;
}
