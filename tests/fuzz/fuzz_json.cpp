// SPDX-License-Identifier: MIT
// The JSON reader behind config.json, tokenizer.json, safetensors headers and indexes: any text
// parses or fails with a message, and whatever parses can be walked.

#include "convert/json_value.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;

namespace {

std::uint64_t walk(const convert::JsonValue& value, int depth)
{
    fuzz::require(depth <= 64);
    std::uint64_t sum = 1;
    if (value.isArray()) {
        for (const auto& item : value.items())
            sum += walk(item, depth + 1);
    } else if (value.isObject()) {
        for (const auto& [key, member] : value.members())
            sum += key.size() + walk(member, depth + 1);
    } else if (value.isString()) {
        sum += value.toString().size();
    }
    return sum;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto parsed = convert::parseJson(fuzz::text(data, size), 64);
    if (fuzz::parsed(parsed))
        fuzz::consume(walk(*parsed, 0));
    return 0;
}
