// SPDX-License-Identifier: MIT
// The names of the KV cache types, as tools and settings write them (llama.cpp's --cache-type-k).
#include <hearth/session.h>

namespace hearth {

std::optional<KvCacheType> kvCacheTypeFromName(std::string_view name)
{
    for (const KvCacheType type : {KvCacheType::F16, KvCacheType::F32, KvCacheType::Q8_0}) {
        if (name == kvCacheTypeName(type))
            return type;
    }
    return std::nullopt;
}

std::string_view kvCacheTypeName(KvCacheType type)
{
    switch (type) {
    case KvCacheType::F16:
        return "f16";
    case KvCacheType::F32:
        return "f32";
    case KvCacheType::Q8_0:
        return "q8_0";
    }
    return {};
}

} // namespace hearth
