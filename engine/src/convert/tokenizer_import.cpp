// SPDX-License-Identifier: MIT
#include "convert/tokenizer_import.h"

#include "convert/hf_config.h"
#include "convert/json_value.h"
#include "convert/protobuf_reader.h"
#include "gguf/gguf_writer.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <unordered_map>

namespace hearth::convert {

namespace {

// GGUF token types (llama.cpp's llama_token_type); SentencePiece numbers its types the same way.
constexpr std::int32_t kNormal = 1;
constexpr std::int32_t kUnknown = 2;
constexpr std::int32_t kControl = 3;
constexpr std::int32_t kUserDefined = 4;
constexpr std::int32_t kUnused = 5;
constexpr std::int32_t kByte = 6;

// More tokens than any released vocabulary; keeps a hostile file from asking for huge arrays.
constexpr std::size_t kMaxTokens = std::size_t{1} << 22;

Status invalid(const std::string& what, const std::string& message)
{
    return {ErrorCode::InvalidFile, what + ": " + message};
}

bool isByteToken(std::string_view text)
{
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
    return text.size() == 6 && text.substr(0, 3) == "<0x" && hex(text[3]) && hex(text[4]) && text[5] == '>';
}

// SentencePiece's ModelProto.TrainerSpec (field 2): only the ids of the special tokens matter.
Status readTrainerSpec(std::span<const std::byte> bytes, ImportedVocab& vocab)
{
    ProtobufReader reader(bytes);
    while (!reader.atEnd()) {
        auto field = reader.next();
        if (!field) {
            return field.status();
        }
        if (field->type != ProtobufReader::WireType::Varint) {
            continue;
        }
        // int32 fields: negative values arrive sign-extended to 64 bits.
        const auto id = static_cast<std::int32_t>(field->asInt());
        switch (field->number) {
        case 40: vocab.unk = id; break;
        case 41: vocab.bos = id; break;
        case 42: vocab.eos = id; break;
        case 43: vocab.pad = id; break;
        default: break;
        }
    }
    return {};
}

// NormalizerSpec (field 3): add_dummy_prefix (3) decides the leading "▁".
Status readNormalizerSpec(std::span<const std::byte> bytes, ImportedVocab& vocab)
{
    ProtobufReader reader(bytes);
    while (!reader.atEnd()) {
        auto field = reader.next();
        if (!field) {
            return field.status();
        }
        if (field->number == 3 && field->type == ProtobufReader::WireType::Varint) {
            vocab.addSpacePrefix = field->varint != 0;
        }
    }
    return {};
}

// The text of a special token entry: "text", {"content": "text"} or null.
std::optional<std::string> tokenText(const JsonValue* value)
{
    if (value == nullptr) {
        return std::nullopt;
    }
    if (value->isString()) {
        return value->toString();
    }
    if (value->isObject()) {
        if (const JsonValue* content = value->find("content"); content != nullptr && content->isString()) {
            return content->toString();
        }
    }
    return std::nullopt;
}

// Whether a normalizer or pre-tokenizer tree prepends "▁" (Prepend, or Metaspace that adds a
// prefix space), searched recursively through "Sequence" members.
bool prependsSpace(const JsonValue* node, int depth = 0)
{
    if (node == nullptr || depth > 8) {
        return false;
    }
    if (node->isArray()) {
        for (const JsonValue& item : node->items()) {
            if (prependsSpace(&item, depth + 1)) {
                return true;
            }
        }
        return false;
    }
    if (!node->isObject()) {
        return false;
    }
    const JsonValue* type = node->find("type");
    const std::string t = type != nullptr && type->isString() ? type->toString() : std::string();
    if (t == "Prepend") {
        return true;
    }
    if (t == "Metaspace") {
        if (const JsonValue* scheme = node->find("prepend_scheme"); scheme != nullptr && scheme->isString()) {
            return scheme->toString() != "never";
        }
        const JsonValue* add = node->find("add_prefix_space");
        return add == nullptr || !add->isBool() || add->toBool();
    }
    for (const char* key : {"normalizers", "pretokenizers"}) {
        if (prependsSpace(node->find(key), depth + 1)) {
            return true;
        }
    }
    return false;
}

bool hasByteLevel(const JsonValue* node, int depth = 0)
{
    if (node == nullptr || depth > 8) {
        return false;
    }
    if (node->isArray()) {
        for (const JsonValue& item : node->items()) {
            if (hasByteLevel(&item, depth + 1)) {
                return true;
            }
        }
        return false;
    }
    if (!node->isObject()) {
        return false;
    }
    if (const JsonValue* type = node->find("type"); type != nullptr && type->isString() && type->toString() == "ByteLevel") {
        return true;
    }
    return hasByteLevel(node->find("pretokenizers"), depth + 1);
}

// llama.cpp's name (tokenizer.ggml.pre) of a byte-level BPE split, from its regex: GPT-2's own
// (or none, with ByteLevel's built-in one), Llama 3's and Qwen 2's, which the tokenizer
// implements; "default" for any other.
std::string preTokenizerName(const std::string& pattern)
{
    static constexpr std::string_view kLlama3 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    static constexpr std::string_view kQwen2 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    if (pattern.empty() || pattern.find("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+") == 0)
        return "gpt-2";
    if (pattern == kLlama3)
        return "llama-bpe";
    if (pattern == kQwen2)
        return "qwen2";
    return "default";
}

// The regex of the first Split pre-tokenizer, or empty.
std::string splitPattern(const JsonValue* node, int depth = 0)
{
    if (node == nullptr || depth > 8) {
        return {};
    }
    if (node->isArray()) {
        for (const JsonValue& item : node->items()) {
            if (std::string p = splitPattern(&item, depth + 1); !p.empty()) {
                return p;
            }
        }
        return {};
    }
    if (!node->isObject()) {
        return {};
    }
    if (const JsonValue* type = node->find("type"); type != nullptr && type->isString() && type->toString() == "Split") {
        if (const JsonValue* pattern = node->find("pattern"); pattern != nullptr && pattern->isObject()) {
            if (const JsonValue* regex = pattern->find("Regex"); regex != nullptr && regex->isString()) {
                return regex->toString();
            }
        }
    }
    return splitPattern(node->find("pretokenizers"), depth + 1);
}

// Places @p text at @p id, growing the arrays; an id used twice with different texts is an error.
// Ids must be below @p declared, the number of tokens the file lists: a vocabulary has no holes,
// so a larger id is an error before anything is allocated for it.
Status place(ImportedVocab& vocab, std::int64_t id, const std::string& text, float score, std::int32_t type, std::size_t declared)
{
    if (id < 0 || static_cast<std::uint64_t>(id) >= std::min(kMaxTokens, declared)) {
        return invalid("tokenizer.json", "token id " + std::to_string(id) + " is out of range (the file lists "
                                             + std::to_string(declared) + " tokens)");
    }
    const auto i = static_cast<std::size_t>(id);
    if (i >= vocab.tokens.size()) {
        vocab.tokens.resize(i + 1);
        vocab.scores.resize(i + 1, 0.0f);
        vocab.types.resize(i + 1, 0); // 0 marks a hole until filled
    }
    if (vocab.types[i] != 0 && vocab.tokens[i] != text) {
        return invalid("tokenizer.json", "token id " + std::to_string(id) + " is given to both '" + vocab.tokens[i]
                                             + "' and '" + text + "'");
    }
    vocab.tokens[i] = text;
    vocab.scores[i] = score;
    vocab.types[i] = type;
    return {};
}

} // namespace

std::int32_t ImportedVocab::find(std::string_view text) const
{
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] == text) {
            return static_cast<std::int32_t>(i);
        }
    }
    return -1;
}

void ImportedVocab::padTo(std::size_t size)
{
    for (std::size_t i = tokens.size(); i < size; ++i) {
        tokens.push_back("[PAD" + std::to_string(i) + "]");
        scores.push_back(0.0f);
        types.push_back(kUnused);
    }
}

void ImportedVocab::writeTo(gguf::GgufWriter& writer) const
{
    writer.setString("tokenizer.ggml.model", model);
    if (!pre.empty()) {
        writer.setString("tokenizer.ggml.pre", pre);
    }
    writer.setStringArray("tokenizer.ggml.tokens", tokens);
    if (model == "llama") {
        writer.setFloat32Array("tokenizer.ggml.scores", scores);
        writer.setBool("tokenizer.ggml.add_space_prefix", addSpacePrefix);
    }
    writer.setInt32Array("tokenizer.ggml.token_type", types);
    if (!merges.empty()) {
        writer.setStringArray("tokenizer.ggml.merges", merges);
    }
    const auto id = [&](const char* key, std::int32_t value) {
        if (value >= 0 && static_cast<std::size_t>(value) < tokens.size()) {
            writer.setUInt32(key, static_cast<std::uint32_t>(value));
        }
    };
    id("tokenizer.ggml.bos_token_id", bos);
    id("tokenizer.ggml.eos_token_id", eos);
    id("tokenizer.ggml.unknown_token_id", unk);
    id("tokenizer.ggml.padding_token_id", pad);
    if (addBos) {
        writer.setBool("tokenizer.ggml.add_bos_token", *addBos && bos >= 0);
    }
    if (addEos) {
        writer.setBool("tokenizer.ggml.add_eos_token", *addEos && eos >= 0);
    }
    if (!chatTemplate.empty()) {
        writer.setString("tokenizer.chat_template", chatTemplate);
    }
}

Result<ImportedVocab> parseSentencePieceModel(std::span<const std::byte> bytes)
{
    const std::string what = "tokenizer.model";
    ImportedVocab vocab;
    vocab.model = "llama";
    // SentencePiece's defaults, for models whose trainer spec leaves them out.
    vocab.unk = 0;
    vocab.bos = 1;
    vocab.eos = 2;
    ProtobufReader reader(bytes);
    while (!reader.atEnd()) {
        auto field = reader.next();
        if (!field) {
            return invalid(what, field.message());
        }
        if (field->type != ProtobufReader::WireType::LengthDelimited) {
            continue;
        }
        if (field->number == 1) { // SentencePiece { piece = 1; score = 2; type = 3; }
            if (vocab.tokens.size() >= kMaxTokens) {
                return invalid(what, "too many pieces");
            }
            std::string piece;
            float score = 0.0f;
            std::int64_t type = kNormal;
            ProtobufReader pieceReader(field->bytes);
            while (!pieceReader.atEnd()) {
                auto f = pieceReader.next();
                if (!f) {
                    return invalid(what, f.message());
                }
                if (f->number == 1 && f->type == ProtobufReader::WireType::LengthDelimited) {
                    piece = std::string(f->asString());
                } else if (f->number == 2 && f->type == ProtobufReader::WireType::Fixed32) {
                    score = f->asFloat();
                } else if (f->number == 3 && f->type == ProtobufReader::WireType::Varint) {
                    type = f->asInt();
                }
            }
            if (type < kNormal || type > kByte) {
                return invalid(what, "piece " + std::to_string(vocab.tokens.size()) + " has an unknown type "
                                         + std::to_string(type));
            }
            if (!std::isfinite(score)) {
                score = 0.0f;
            }
            vocab.tokens.push_back(std::move(piece));
            vocab.scores.push_back(score);
            vocab.types.push_back(static_cast<std::int32_t>(type));
        } else if (field->number == 2) {
            if (Status s = readTrainerSpec(field->bytes, vocab); !s.ok()) {
                return invalid(what, s.message());
            }
        } else if (field->number == 3) {
            if (Status s = readNormalizerSpec(field->bytes, vocab); !s.ok()) {
                return invalid(what, s.message());
            }
        }
    }
    if (vocab.tokens.empty()) {
        return invalid(what, "no pieces; this is not a SentencePiece model");
    }
    const auto n = static_cast<std::int32_t>(vocab.tokens.size());
    for (std::int32_t* id : {&vocab.unk, &vocab.bos, &vocab.eos, &vocab.pad}) {
        if (*id >= n) {
            return invalid(what, "a special token id is outside the " + std::to_string(n) + " pieces");
        }
    }
    return vocab;
}

Result<ImportedVocab> parseTokenizerJson(std::string_view json)
{
    const std::string what = "tokenizer.json";
    auto parsed = parseJson(json, 64);
    if (!parsed) {
        return invalid(what, parsed.message());
    }
    const JsonValue& root = *parsed;
    const JsonValue* model = root.find("model");
    if (!root.isObject() || model == nullptr || !model->isObject()) {
        return invalid(what, "no \"model\" object");
    }
    const JsonValue* typeValue = model->find("type");
    const std::string type = typeValue != nullptr && typeValue->isString() ? typeValue->toString() : std::string("BPE");
    const JsonValue* byteFallback = model->find("byte_fallback");
    const bool fallback = byteFallback != nullptr && byteFallback->isBool() && byteFallback->toBool();

    ImportedVocab vocab;
    const JsonValue* entries = model->find("vocab");
    const JsonValue* added = root.find("added_tokens");
    const std::size_t declared = (entries == nullptr ? 0 : entries->isObject() ? entries->members().size() : entries->isArray() ? entries->items().size() : 0)
        + (added != nullptr && added->isArray() ? added->items().size() : 0);
    if (type == "BPE") {
        if (entries == nullptr || !entries->isObject()) {
            return invalid(what, "the BPE model has no \"vocab\" object");
        }
        for (const auto& [text, id] : entries->members()) {
            if (!id.isInteger()) {
                return invalid(what, "the id of '" + text + "' is not an integer");
            }
            HEARTH_TRY(place(vocab, id.toInteger(), text, 0.0f, isByteToken(text) && fallback ? kByte : kNormal, declared));
        }
        const bool byteLevel = hasByteLevel(root.find("pre_tokenizer")) || hasByteLevel(root.find("decoder"));
        if (fallback || !byteLevel) {
            // SentencePiece-style BPE (llama, mistral): SentencePiece merges pieces by score, and
            // the merge list is ordered by those scores, so a piece's score is minus the rank of
            // the merge that makes it.
            vocab.model = "llama";
            vocab.addSpacePrefix = prependsSpace(root.find("normalizer")) || prependsSpace(root.find("pre_tokenizer"));
        } else {
            vocab.model = "gpt2";
            vocab.pre = preTokenizerName(splitPattern(root.find("pre_tokenizer")));
        }
        const JsonValue* merges = model->find("merges");
        if (merges != nullptr && !merges->isArray()) {
            return invalid(what, "\"merges\" is not a list");
        }
        if (merges != nullptr) {
            std::unordered_map<std::string, std::size_t> ids;
            if (vocab.model == "llama") {
                for (std::size_t i = 0; i < vocab.tokens.size(); ++i) {
                    ids.emplace(vocab.tokens[i], i);
                }
            }
            std::vector<bool> scored(vocab.tokens.size(), false);
            std::size_t rank = 0;
            for (const JsonValue& merge : merges->items()) {
                std::string left;
                std::string right;
                if (merge.isString()) {
                    const std::string& m = merge.toString();
                    const std::size_t space = m.find(' ', 1);
                    if (space == std::string::npos) {
                        return invalid(what, "merge " + std::to_string(rank) + " is not of the form 'left right'");
                    }
                    left = m.substr(0, space);
                    right = m.substr(space + 1);
                } else if (merge.isArray() && merge.items().size() == 2 && merge.items()[0].isString()
                           && merge.items()[1].isString()) {
                    left = merge.items()[0].toString();
                    right = merge.items()[1].toString();
                } else {
                    return invalid(what, "merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]");
                }
                if (vocab.model == "gpt2") {
                    vocab.merges.push_back(left + " " + right);
                } else if (const auto it = ids.find(left + right); it != ids.end() && !scored[it->second]) {
                    vocab.scores[it->second] = -static_cast<float>(rank + 1);
                    scored[it->second] = true;
                }
                ++rank;
            }
            if (vocab.model == "llama") {
                // Pieces no merge makes (single characters) rank below every merge result.
                for (std::size_t i = 0; i < vocab.tokens.size(); ++i) {
                    if (!scored[i] && vocab.types[i] == kNormal) {
                        vocab.scores[i] = -static_cast<float>(rank + 1 + i);
                    }
                }
            }
        }
    } else if (type == "Unigram") {
        if (entries == nullptr || !entries->isArray()) {
            return invalid(what, "the Unigram model has no \"vocab\" list");
        }
        std::int64_t id = 0;
        for (const JsonValue& entry : entries->items()) {
            if (!entry.isArray() || entry.items().size() != 2 || !entry.items()[0].isString() || !entry.items()[1].isNumber()) {
                return invalid(what, "Unigram entry " + std::to_string(id) + " is not [piece, score]");
            }
            const std::string& text = entry.items()[0].toString();
            HEARTH_TRY(place(vocab, id, text, static_cast<float>(entry.items()[1].toNumber()),
                             isByteToken(text) && fallback ? kByte : kNormal, declared));
            ++id;
        }
        vocab.model = "llama";
        vocab.addSpacePrefix = prependsSpace(root.find("normalizer")) || prependsSpace(root.find("pre_tokenizer"));
        if (const JsonValue* unk = model->find("unk_id"); unk != nullptr && unk->isInteger()) {
            vocab.unk = static_cast<std::int32_t>(unk->toInteger());
        }
    } else {
        return Status(ErrorCode::Unsupported, what + ": tokenizer model \"" + type + "\" is not supported");
    }

    if (added != nullptr) {
        if (!added->isArray()) {
            return invalid(what, "\"added_tokens\" is not a list");
        }
        for (const JsonValue& token : added->items()) {
            const JsonValue* id = token.find("id");
            const JsonValue* content = token.find("content");
            if (id == nullptr || !id->isInteger() || content == nullptr || !content->isString()) {
                return invalid(what, "an added token lacks an integer \"id\" or a \"content\" string");
            }
            const JsonValue* special = token.find("special");
            const bool isSpecial = special != nullptr && special->isBool() && special->toBool();
            const auto i = id->toInteger();
            // An added token may restate a vocabulary entry; it then only changes its type.
            if (i >= 0 && static_cast<std::size_t>(i) < vocab.types.size() && vocab.types[static_cast<std::size_t>(i)] != 0
                && vocab.tokens[static_cast<std::size_t>(i)] != content->toString()) {
                return invalid(what, "added token " + std::to_string(i) + " contradicts the vocabulary");
            }
            HEARTH_TRY(place(vocab, i, content->toString(), 0.0f, isSpecial ? kControl : kUserDefined, declared));
        }
    }
    for (std::size_t i = 0; i < vocab.types.size(); ++i) {
        if (vocab.types[i] == 0) {
            return invalid(what, "token id " + std::to_string(i) + " is missing from the vocabulary");
        }
    }
    if (vocab.tokens.empty()) {
        return invalid(what, "the vocabulary is empty");
    }
    if (const JsonValue* unkToken = model->find("unk_token"); unkToken != nullptr && unkToken->isString()) {
        vocab.unk = vocab.find(unkToken->toString());
    }
    if (vocab.unk >= 0 && static_cast<std::size_t>(vocab.unk) < vocab.types.size()) {
        vocab.types[static_cast<std::size_t>(vocab.unk)] = kUnknown;
    } else {
        vocab.unk = -1;
    }
    return vocab;
}

Status applyTokenizerConfig(ImportedVocab& vocab, std::string_view tokenizerConfig, std::string_view specialTokensMap)
{
    // special_tokens_map.json first: tokenizer_config.json is newer and wins where both speak.
    for (const auto& [text, file] : {std::pair(specialTokensMap, "special_tokens_map.json"),
                                     std::pair(tokenizerConfig, "tokenizer_config.json")}) {
        const std::string what = file; // a copy: lambdas below cannot capture structured bindings in C++20
        if (text.empty()) {
            continue;
        }
        auto parsed = parseJson(text, 64);
        if (!parsed) {
            return invalid(what, parsed.message());
        }
        if (!parsed->isObject()) {
            return invalid(what, "not a JSON object");
        }
        const auto special = [&](const char* key, std::int32_t& id) -> Status {
            const JsonValue* value = parsed->find(key);
            if (value == nullptr) {
                return {};
            }
            if (value->isNull()) {
                id = -1;
                return {};
            }
            const std::optional<std::string> token = tokenText(value);
            if (!token) {
                return invalid(what, std::string("\"") + key + "\" is neither a string nor {\"content\": ...}");
            }
            const std::int32_t found = vocab.find(*token);
            if (found < 0) {
                return invalid(what, std::string("\"") + key + "\" names '" + *token + "', which is not in the vocabulary");
            }
            id = found;
            if (vocab.types[static_cast<std::size_t>(found)] == kNormal) {
                vocab.types[static_cast<std::size_t>(found)] = kControl;
            }
            return {};
        };
        HEARTH_TRY(special("bos_token", vocab.bos));
        HEARTH_TRY(special("eos_token", vocab.eos));
        HEARTH_TRY(special("unk_token", vocab.unk));
        HEARTH_TRY(special("pad_token", vocab.pad));
        for (const char* key : {"add_bos_token", "add_eos_token"}) {
            if (const JsonValue* flag = parsed->find(key); flag != nullptr && flag->isBool()) {
                (std::string_view(key) == "add_bos_token" ? vocab.addBos : vocab.addEos) = flag->toBool();
            }
        }
        if (const JsonValue* chat = parsed->find("chat_template"); chat != nullptr) {
            if (chat->isString()) {
                vocab.chatTemplate = chat->toString();
            } else if (chat->isArray()) {
                // Named templates: [{"name": "default", "template": "..."}, {"name": "tool_use", ...}].
                for (const JsonValue& entry : chat->items()) {
                    const JsonValue* name = entry.find("name");
                    const JsonValue* body = entry.find("template");
                    if (body == nullptr || !body->isString()) {
                        continue;
                    }
                    const bool isDefault = name != nullptr && name->isString() && name->toString() == "default";
                    if (isDefault || vocab.chatTemplate.empty()) {
                        vocab.chatTemplate = body->toString();
                    }
                }
            }
        }
    }
    return {};
}

Result<ImportedVocab> importTokenizer(const std::string& folder)
{
    const std::filesystem::path dir(folder);
    std::error_code ec;
    constexpr std::uint64_t kMaxTokenizerBytes = 256u << 20;
    Result<ImportedVocab> vocab = Status(ErrorCode::InvalidArgument, "");
    if (std::filesystem::is_regular_file(dir / "tokenizer.model", ec)) {
        auto bytes = readTextFile((dir / "tokenizer.model").string(), kMaxTokenizerBytes);
        if (!bytes) {
            return bytes.status();
        }
        vocab = parseSentencePieceModel(std::as_bytes(std::span<const char>(bytes->data(), bytes->size())));
        if (vocab && std::filesystem::is_regular_file(dir / "tokenizer.json", ec)) {
            // Tokens added after training (chat markers) live only in tokenizer.json.
            auto json = readTextFile((dir / "tokenizer.json").string(), kMaxTokenizerBytes);
            if (!json) {
                return json.status();
            }
            auto fromJson = parseTokenizerJson(*json);
            if (!fromJson) {
                return fromJson.status();
            }
            for (std::size_t i = 0; i < fromJson->tokens.size(); ++i) {
                const std::int32_t t = fromJson->types[i];
                if (t != kControl && t != kUserDefined) {
                    continue;
                }
                if (i >= vocab->tokens.size()) {
                    vocab->padTo(i);
                    vocab->tokens.push_back(fromJson->tokens[i]);
                    vocab->scores.push_back(0.0f);
                    vocab->types.push_back(t);
                } else if (vocab->tokens[i] == fromJson->tokens[i] && vocab->types[i] == kNormal) {
                    vocab->types[i] = t;
                }
            }
        }
    } else if (std::filesystem::is_regular_file(dir / "tokenizer.json", ec)) {
        auto json = readTextFile((dir / "tokenizer.json").string(), kMaxTokenizerBytes);
        if (!json) {
            return json.status();
        }
        vocab = parseTokenizerJson(*json);
    } else {
        return Status(ErrorCode::InvalidArgument, "'" + folder + "' has no tokenizer (tokenizer.model or tokenizer.json)");
    }
    if (!vocab) {
        return vocab.status();
    }

    std::string config;
    std::string specialMap;
    for (auto [name, text] : {std::pair("tokenizer_config.json", &config), std::pair("special_tokens_map.json", &specialMap)}) {
        if (std::filesystem::is_regular_file(dir / name, ec)) {
            auto read = readTextFile((dir / name).string(), 64u << 20);
            if (!read) {
                return read.status();
            }
            *text = std::move(*read);
        }
    }
    HEARTH_TRY(applyTokenizerConfig(*vocab, config, specialMap));
    return vocab;
}

} // namespace hearth::convert
