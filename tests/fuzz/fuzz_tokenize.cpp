// SPDX-License-Identifier: MIT
// The tokenizers' encode: any text, with and without special tokens, gives ids inside the
// vocabulary; byte-level BPE gives back exactly the bytes it was given.

#include "fuzz_support.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "synth/synthetic_bpe_vocab.h"
#include "synth/synthetic_vocab.h"
#include "tokenizer/tokenizer_factory.h"
#include "tokenizer/unicode.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace hearth;

namespace {

struct Fixture {
    std::unique_ptr<Tokenizer> tokenizer;
    bool byteLevel = false;
};

std::unique_ptr<Tokenizer> build(gguf::GgufWriter& writer, const std::string& name)
{
    const std::string path = (std::filesystem::temp_directory_path() / ("hearth-fuzz-" + name + "-" + std::to_string(getpid()) + ".gguf")).string();
    writer.setString("general.architecture", "llama");
    fuzz::require(writer.begin(path).ok() && writer.finish().ok());
    auto file = gguf::GgufFile::open(path);
    fuzz::require(file.ok());
    auto tokenizer = createTokenizer(**file);
    std::filesystem::remove(path);
    fuzz::require(tokenizer.ok());
    return std::move(tokenizer).value();
}

std::vector<Fixture> makeFixtures()
{
    std::vector<Fixture> fixtures;
    {
        const synth::SyntheticVocab vocab = synth::SyntheticVocab::build(3000);
        gguf::GgufWriter writer;
        writer.setString("tokenizer.ggml.model", "llama");
        writer.setStringArray("tokenizer.ggml.tokens", vocab.tokens);
        writer.setFloat32Array("tokenizer.ggml.scores", vocab.scores);
        writer.setInt32Array("tokenizer.ggml.token_type", vocab.types);
        writer.setUInt32("tokenizer.ggml.bos_token_id", synth::SyntheticVocab::kBos);
        writer.setUInt32("tokenizer.ggml.eos_token_id", synth::SyntheticVocab::kEos);
        fixtures.push_back({build(writer, "spm"), false});
    }
    using Style = synth::SyntheticBpeVocab::Style;
    for (const auto& [style, pre] : {std::pair(Style::Falcon, "falcon"), std::pair(Style::Opt, "gpt-2"), std::pair(Style::Opt, "starcoder"),
                                     std::pair(Style::Opt, "default"), std::pair(Style::Opt, "llama-bpe"), std::pair(Style::Opt, "qwen2")}) {
        const synth::SyntheticBpeVocab vocab = synth::SyntheticBpeVocab::build(2000, style);
        gguf::GgufWriter writer;
        writer.setString("tokenizer.ggml.model", "gpt2");
        writer.setString("tokenizer.ggml.pre", pre);
        writer.setStringArray("tokenizer.ggml.tokens", vocab.tokens);
        writer.setInt32Array("tokenizer.ggml.token_type", vocab.types);
        writer.setStringArray("tokenizer.ggml.merges", vocab.merges);
        writer.setUInt32("tokenizer.ggml.bos_token_id", std::uint32_t(vocab.bos));
        writer.setUInt32("tokenizer.ggml.eos_token_id", std::uint32_t(vocab.eos));
        fixtures.push_back({build(writer, pre), true});
    }
    return fixtures;
}

// The tokenizers' own decoder decides what valid UTF-8 is (no overlong forms or surrogates).
bool validUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        const unicode::DecodedChar c = unicode::decodeUtf8(s, i);
        if (!c.valid)
            return false;
        i += c.length;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::vector<Fixture> fixtures = makeFixtures();
    const std::string_view input = fuzz::text(data, size);
    for (const Fixture& fixture : fixtures) {
        const Tokenizer& tokenizer = *fixture.tokenizer;
        for (const bool special : {false, true}) {
            const std::vector<Token> ids = tokenizer.encode(input, false, special);
            std::string decoded;
            for (const Token id : ids) {
                fuzz::require(id >= 0 && id < tokenizer.vocabSize());
                decoded += tokenizer.tokenBytes(id);
            }
            if (fixture.byteLevel && !special && validUtf8(input))
                fuzz::require(decoded == input);
        }
    }
    return 0;
}
