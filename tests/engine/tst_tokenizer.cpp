// SPDX-License-Identifier: MIT
// Tokenizers from GGUF metadata: llama.cpp's test vectors for the SentencePiece and byte-level
// BPE vocabularies under ../shared, small vocabularies written here, Unicode helpers, streaming
// decoding and hostile metadata.

#include "test_support.h"

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/tokenizer_factory.h"
#include "tokenizer/unicode.h"

#include <hearth/tokenizer.h>

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace hearth;

namespace {

const std::string kSpace = "\xE2\x96\x81"; // U+2581, SentencePiece's space

std::string byteToken(int b)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    return buf;
}

std::string byteLevel(const std::string& bytes)
{
    std::string out;
    for (const char c : bytes)
        unicode::appendUtf8(out, unicode::byteToCodePoint(static_cast<std::uint8_t>(c)));
    return out;
}

// One of llama.cpp's vocabulary files, opened.
struct VocabFile {
    std::unique_ptr<Tokenizer> tokenizer; // null on failure, with error saying why
    bool sentencePiece = false;           // its decoded text starts with the added space
    std::string error;
};

VocabFile openVocab(const QString& path)
{
    VocabFile vocab;
    auto file = gguf::GgufFile::open(path.toStdString());
    if (!file) {
        vocab.error = file.message();
        return vocab;
    }
    auto created = createTokenizer(**file);
    if (!created) {
        vocab.error = created.message();
        return vocab;
    }
    vocab.tokenizer = std::move(created).value();
    vocab.sentencePiece = (*file)->getString("tokenizer.ggml.model").value_or("") == "llama";
    return vocab;
}

// A vocabulary written to a GGUF file; the test then opens it like a model.
struct VocabSpec {
    std::string model = "llama";
    std::vector<std::string> tokens;
    std::vector<std::int32_t> types;
    std::vector<float> scores;
    std::vector<std::string> merges;
    std::function<void(gguf::GgufWriter&)> extra; // more keys, or bad ones
};

// A tiny SentencePiece vocabulary: control tokens, 256 byte tokens, then pieces.
VocabSpec smallSpm()
{
    VocabSpec spec;
    const auto add = [&](const std::string& text, int type, float score) {
        spec.tokens.push_back(text);
        spec.types.push_back(type);
        spec.scores.push_back(score);
    };
    add("<unk>", 2, 0);
    add("<s>", 3, 0);
    add("</s>", 3, 0);
    for (int b = 0; b < 256; ++b)
        add(byteToken(b), 6, 0);
    add(kSpace, 1, -1);          // 259
    add("h", 1, -2);             // 260
    add("e", 1, -2);             // 261
    add("l", 1, -2);             // 262
    add("o", 1, -2);             // 263
    add("ll", 1, -3);            // 264
    add(kSpace + "h", 1, -4);    // 265
    add(kSpace + "he", 1, -5);   // 266
    add("llo", 1, -6);           // 267
    add(kSpace + "hello", 1, -7); // 268
    add("<|im_end|>", 3, 0);     // 269
    add("w", 1, -2);             // 270
    add("<extra>", 4, 0);        // 271, user-defined
    spec.extra = [](gguf::GgufWriter& w) {
        w.setUInt32("tokenizer.ggml.bos_token_id", 1);
        w.setUInt32("tokenizer.ggml.eos_token_id", 2);
        w.setUInt32("tokenizer.ggml.unknown_token_id", 0);
        w.setBool("tokenizer.ggml.add_bos_token", true);
        w.setUInt32("tokenizer.ggml.padding_token_id", 0xFFFFFFFFu); // "none", as converters write it
    };
    return spec;
}

// A tiny byte-level BPE vocabulary: the 256 byte pieces, a few merges, one control token.
VocabSpec smallBpe()
{
    VocabSpec spec;
    spec.model = "gpt2";
    for (int b = 0; b < 256; ++b) {
        spec.tokens.push_back(byteLevel(std::string(1, char(b))));
        spec.types.push_back(1);
    }
    const std::vector<std::pair<std::string, std::string>> merges = {
        {"l", "l"}, {"h", "e"}, {"he", "ll"}, {"hell", "o"}, {" ", "w"}, {" w", "o"}, {" wo", "r"}, {"o", "r"},
    };
    for (const auto& [l, r] : merges) {
        spec.merges.push_back(byteLevel(l) + " " + byteLevel(r));
        spec.tokens.push_back(byteLevel(l + r));
        spec.types.push_back(1);
    }
    spec.tokens.push_back("<|endoftext|>");
    spec.types.push_back(3);
    spec.extra = [n = int(spec.tokens.size())](gguf::GgufWriter& w) {
        w.setString("tokenizer.ggml.pre", "gpt-2");
        w.setUInt32("tokenizer.ggml.eos_token_id", std::uint32_t(n - 1));
        w.setUInt32("tokenizer.ggml.bos_token_id", std::uint32_t(n - 1));
    };
    return spec;
}

// The test strings and expected ids of llama.cpp's vocabulary tests.
struct Vector {
    std::string text;
    std::vector<Token> ids;
};

std::vector<Vector> readVectors(const QString& base)
{
    QFile inp(base + QStringLiteral(".inp"));
    QFile out(base + QStringLiteral(".out"));
    if (!inp.open(QIODevice::ReadOnly) || !out.open(QIODevice::ReadOnly))
        return {};
    const std::string all = inp.readAll().toStdString();
    const std::string separator = "\n__ggml_vocab_test__\n";
    std::vector<Vector> vectors;
    for (std::size_t pos = 0; pos < all.size();) {
        const std::size_t end = all.find(separator, pos);
        if (end == std::string::npos)
            break;
        vectors.push_back({all.substr(pos, end - pos), {}});
        pos = end + separator.size();
    }
    const QList<QByteArray> lines = out.readAll().split('\n');
    for (std::size_t i = 0; i < vectors.size() && i < std::size_t(lines.size()); ++i) {
        for (const QByteArray& id : lines[qsizetype(i)].split(' ')) {
            if (!id.trimmed().isEmpty())
                vectors[i].ids.push_back(id.trimmed().toInt());
        }
    }
    return vectors;
}

QString describe(const std::vector<Token>& ids)
{
    QStringList parts;
    for (const Token t : ids)
        parts << QString::number(t);
    return parts.join(QLatin1Char(' '));
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    // Writes @p spec and builds a tokenizer from it; the Result carries any error.
    Result<std::unique_ptr<Tokenizer>> build(const VocabSpec& spec)
    {
        gguf::GgufWriter writer;
        writer.setString("general.architecture", "llama");
        writer.setString("tokenizer.ggml.model", spec.model);
        if (!spec.tokens.empty())
            writer.setStringArray("tokenizer.ggml.tokens", spec.tokens);
        if (!spec.types.empty())
            writer.setInt32Array("tokenizer.ggml.token_type", spec.types);
        if (!spec.scores.empty())
            writer.setFloat32Array("tokenizer.ggml.scores", spec.scores);
        if (!spec.merges.empty())
            writer.setStringArray("tokenizer.ggml.merges", spec.merges);
        if (spec.extra)
            spec.extra(writer);
        const std::string path = m_dir.filePath(QStringLiteral("vocab-%1.gguf").arg(m_files++)).toStdString();
        if (Status s = writer.begin(path); !s.ok())
            return s;
        if (Status s = writer.finish(); !s.ok())
            return s;
        auto file = gguf::GgufFile::open(path);
        if (!file)
            return file.status();
        return createTokenizer(**file);
    }

    std::unique_ptr<Tokenizer> buildOrFail(const VocabSpec& spec)
    {
        auto tok = build(spec);
        if (!tok) {
            qWarning("%s", tok.message().c_str());
            return nullptr;
        }
        return std::move(tok).value();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void utf8DecodingIsBounded()
    {
        using unicode::decodeUtf8;
        const std::string euro = "\xE2\x82\xAC";
        QCOMPARE(decodeUtf8(euro, 0).codePoint, char32_t(0x20AC));
        QCOMPARE(int(decodeUtf8(euro, 0).length), 3);
        // Truncated: the view ends inside the sequence, so the bytes after it must not be read.
        const std::string_view truncated(euro.data(), 2);
        QVERIFY(!decodeUtf8(truncated, 0).valid);
        QCOMPARE(int(decodeUtf8(truncated, 0).length), 1);
        QVERIFY(!decodeUtf8("\x80", 0).valid);             // stray continuation
        QVERIFY(!decodeUtf8("\xC0\x80", 0).valid);         // overlong NUL
        QVERIFY(!decodeUtf8("\xED\xA0\x80", 0).valid);     // surrogate
        QVERIFY(!decodeUtf8("\xF4\x90\x80\x80", 0).valid); // past U+10FFFF
        QVERIFY(!decodeUtf8("\xFF", 0).valid);
        QCOMPARE(decodeUtf8("\xF0\x9F\xA6\x99", 0).codePoint, char32_t(0x1F999));

        std::string out;
        unicode::appendUtf8(out, 0x1F999);
        unicode::appendUtf8(out, 0xD800); // not a scalar value: replaced
        QCOMPARE(out, std::string("\xF0\x9F\xA6\x99\xEF\xBF\xBD"));
    }

    void unicodeCategories()
    {
        using unicode::Category;
        QCOMPARE(unicode::category(U'a'), Category::Letter);
        QCOMPARE(unicode::category(U'\u00E9'), Category::Letter);  // é
        QCOMPARE(unicode::category(U'\u6211'), Category::Letter);  // 我
        QCOMPARE(unicode::category(U'7'), Category::Number);
        QCOMPARE(unicode::category(U'\u0661'), Category::Number);  // Arabic-Indic one
        QCOMPARE(unicode::category(U'\u00BD'), Category::Number);  // ½
        QCOMPARE(unicode::category(U'!'), Category::Punctuation);
        QCOMPARE(unicode::category(U'\u3002'), Category::Punctuation); // 。
        QCOMPARE(unicode::category(U'$'), Category::Other);          // a symbol
        QCOMPARE(unicode::category(U'\U0001F999'), Category::Other); // 🦙
        QCOMPARE(unicode::category(U'\u17B6'), Category::Other);     // Khmer vowel sign: a mark
        QCOMPARE(unicode::category(0x10FFFF), Category::Other);
        QVERIFY(unicode::isWhitespace(U'\t'));
        QVERIFY(unicode::isWhitespace(U'\u3000'));
        QVERIFY(unicode::isWhitespace(U'\u00A0'));
        QVERIFY(!unicode::isWhitespace(U'\u200B')); // zero width space is not White_Space
        for (int b = 0; b < 256; ++b)
            QCOMPARE(unicode::codePointToByte(unicode::byteToCodePoint(std::uint8_t(b))), b);
        QCOMPARE(unicode::byteToCodePoint(' '), char32_t(0x120)); // 'Ġ'
    }

    void preTokenizer_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        const int gpt2 = int(tokenizer::PreTokenizerKind::Gpt2);
        const int falcon = int(tokenizer::PreTokenizerKind::Falcon);
        const int deflt = int(tokenizer::PreTokenizerKind::Default);
        QTest::newRow("gpt2 words") << gpt2 << QStringLiteral("Hello world's end")
                                    << QStringList{"Hello", " world", "'s", " end"};
        QTest::newRow("gpt2 spaces") << gpt2 << QStringLiteral("a   b  ")
                                     << QStringList{"a", "  ", " b", "  "};
        QTest::newRow("gpt2 digits") << gpt2 << QStringLiteral("x 12345!?")
                                     << QStringList{"x", " 12345", "!?"};
        QTest::newRow("falcon digits") << falcon << QStringLiteral("1234567")
                                       << QStringList{"123", "456", "7"};
        QTest::newRow("falcon punctuation") << falcon << QStringLiteral("a...`b")
                                            << QStringList{"a", "...`", "b"};
        QTest::newRow("default backtick") << deflt << QStringLiteral("a..`b")
                                          << QStringList{"a", "..", "`", "b"};
    }

    void preTokenizer()
    {
        QFETCH(int, kind);
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        const std::string utf8 = text.toStdString();
        QStringList got;
        for (const std::string_view w : tokenizer::preTokenize(utf8, tokenizer::PreTokenizerKind(kind)))
            got << QString::fromUtf8(w.data(), qsizetype(w.size()));
        QCOMPARE(got, words);
    }

    // Llama 3's, Qwen 2's, Tekken's and DeepSeek's patterns against Python's `regex` module
    // running the patterns of their tokenizer.json files (data/pretokenize/make_expected.py
    // wrote expected.json).
    void familyPreTokenizers_data()
    {
        QTest::addColumn<QString>("pretokenizer");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        QFile file(QStringLiteral(HEARTH_TEST_DATA_DIR "/pretokenize/expected.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray cases = QJsonDocument::fromJson(file.readAll()).array();
        QVERIFY(cases.size() > 100);
        int row = 0;
        for (const QJsonValue& value : cases) {
            const QJsonObject c = value.toObject();
            QStringList words;
            for (const QJsonValue& word : c.value(QLatin1String("words")).toArray())
                words << word.toString();
            const QString name = c.value(QLatin1String("pretokenizer")).toString();
            QTest::addRow("%s %d", qPrintable(name), row++) << name << c.value(QLatin1String("text")).toString() << words;
        }
    }

    void familyPreTokenizers()
    {
        QFETCH(QString, pretokenizer);
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        const auto kind = tokenizer::preTokenizerFromName(pretokenizer.toStdString());
        QVERIFY(kind);
        const std::string utf8 = text.toStdString();
        QStringList got;
        for (const std::string_view w : tokenizer::preTokenize(utf8, *kind))
            got << QString::fromUtf8(w.data(), qsizetype(w.size()));
        QCOMPARE(got, words);
    }

    void familyPreTokenizerNames()
    {
        for (const char* name : { "llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral", "dbrx", "smaug-bpe" })
            QCOMPARE(tokenizer::preTokenizerFromName(name), std::optional(tokenizer::PreTokenizerKind::Llama3));
        for (const char* name : { "qwen2", "deepseek-r1-qwen" })
            QCOMPARE(tokenizer::preTokenizerFromName(name), std::optional(tokenizer::PreTokenizerKind::Qwen2));
        QCOMPARE(tokenizer::preTokenizerFromName("tekken"), std::optional(tokenizer::PreTokenizerKind::Tekken));
        QCOMPARE(tokenizer::preTokenizerFromName("gpt-4o"), std::optional(tokenizer::PreTokenizerKind::Gpt4o));
        QCOMPARE(tokenizer::preTokenizerFromName("deepseek-llm"), std::optional(tokenizer::PreTokenizerKind::DeepSeekLlm));
        QCOMPARE(tokenizer::preTokenizerFromName("deepseek-coder"), std::optional(tokenizer::PreTokenizerKind::DeepSeekCoder));
        for (const char* name : { "smollm", "starcoder", "refact", "command-r", "codeshell" })
            QCOMPARE(tokenizer::preTokenizerFromName(name), std::optional(tokenizer::PreTokenizerKind::StarCoder));
        QVERIFY(!tokenizer::preTokenizerFromName("no-such-pretokenizer"));
    }

    void llama3TakesWholeWordTokens()
    {
        // " world" is a token, but no merge makes it: Llama 3 takes the word whole (Hugging
        // Face's ignore_merges), GPT-2 builds what its merges can.
        VocabSpec spec = smallBpe();
        spec.tokens.insert(spec.tokens.end() - 1, byteLevel(" world"));
        spec.types.insert(spec.types.end() - 1, 1);
        const Token world = Token(spec.tokens.size()) - 2;
        const int eot = int(spec.tokens.size()) - 1;
        const auto withPreTokenizer = [&](const char* name) {
            spec.extra = [eot, name](gguf::GgufWriter& w) {
                w.setString("tokenizer.ggml.pre", name);
                w.setUInt32("tokenizer.ggml.eos_token_id", std::uint32_t(eot));
                w.setUInt32("tokenizer.ggml.bos_token_id", std::uint32_t(eot));
            };
            return buildOrFail(spec);
        };
        const auto gpt2 = withPreTokenizer("gpt-2");
        QVERIFY(gpt2);
        QCOMPARE(gpt2->encode(" world", false, false), std::vector<Token>({256 + 6, Token('l'), Token('d')}));
        const auto llama3 = withPreTokenizer("llama-bpe");
        QVERIFY(llama3);
        QCOMPARE(llama3->encode(" world", false, false), std::vector<Token>({world}));
        QCOMPARE(llama3->encode("hello world", false, false), std::vector<Token>({256 + 3, world}));
        // Words that are no token still go through the merges.
        QCOMPARE(llama3->encode(" wor", false, false), std::vector<Token>({256 + 6}));
        QCOMPARE(llama3->decode(llama3->encode("hello world", false, false)), std::string("hello world"));
    }

    void smallSentencePiece()
    {
        const auto tok = buildOrFail(smallSpm());
        QVERIFY(tok);
        QCOMPARE(tok->vocabSize(), 272);
        QCOMPARE(tok->bos(), 1);
        QCOMPARE(tok->eos(), 2);
        QVERIFY(tok->addsBos());

        QCOMPARE(tok->encode("hello", false, false), std::vector<Token>({268}));
        QCOMPARE(tok->encode("hello", true, false), std::vector<Token>({1, 268}));
        QCOMPARE(tok->encode("", false, false), std::vector<Token>());
        QCOMPARE(tok->encode("", true, false), std::vector<Token>({1}));
        // 'é' has no piece: its two UTF-8 bytes fall back to byte tokens (id = 3 + byte).
        QCOMPARE(tok->encode("hé", false, false), std::vector<Token>({265, 3 + 0xC3, 3 + 0xA9}));
        QCOMPARE(tok->decode(tok->encode("hé w", false, false)), std::string(" hé w"));

        // Control tokens are text unless parsed as special; user-defined ones always match.
        const std::vector<Token> special = tok->encode("hello<|im_end|>", false, true);
        QCOMPARE(special, std::vector<Token>({268, 269}));
        QVERIFY(tok->encode("hello<|im_end|>", false, false).size() > 2);
        QCOMPARE(tok->encode("<extra>", false, false), std::vector<Token>({271}));
        // After a special token the next text gets a space prefix again.
        QCOMPARE(tok->encode("<|im_end|>hello", false, true), std::vector<Token>({269, 268}));

        QVERIFY(tok->isControl(269));
        QVERIFY(tok->isEndOfGeneration(2));
        QVERIFY(tok->isEndOfGeneration(269)); // <|im_end|> by its text
        QVERIFY(!tok->isEndOfGeneration(268));
        QCOMPARE(tok->findToken("<|im_end|>"), 269);
        QCOMPARE(tok->findToken("nope"), InvalidToken);
        QCOMPARE(tok->decode(special), std::string(" hello"));
        QCOMPARE(tok->decode(special, true), std::string(" hello<|im_end|>"));
        QCOMPARE(tok->tokenBytes(-5), std::string());
        QCOMPARE(tok->tokenBytes(100000), std::string());
    }

    // Gemma's SentencePiece files say tokenizer.ggml.add_space_prefix = false: the text is
    // taken as it is, a word at the start has no space piece, and decoding gives the text back
    // without one.
    void sentencePieceWithoutSpacePrefix()
    {
        VocabSpec spec = smallSpm();
        const auto extra = spec.extra;
        spec.extra = [extra](gguf::GgufWriter& w) {
            extra(w);
            w.setBool("tokenizer.ggml.add_space_prefix", false);
        };
        const auto tok = buildOrFail(spec);
        QVERIFY(tok);
        QCOMPARE(tok->encode("hello", false, false), std::vector<Token>({260, 261, 267})); // h e llo
        QCOMPARE(tok->encode(" hello", false, false), std::vector<Token>({268}));
        QCOMPARE(tok->decode(tok->encode("hello w", false, false)), std::string("hello w"));
        // Nor after a special token.
        QCOMPARE(tok->encode("<|im_end|>hello", false, true), std::vector<Token>({269, 260, 261, 267}));
    }

    void smallByteLevelBpe()
    {
        const auto tok = buildOrFail(smallBpe());
        QVERIFY(tok);
        const Token hello = 256 + 3;
        const Token world = 256 + 6; // " wor"
        const Token eot = tok->vocabSize() - 1;
        QCOMPARE(tok->encode("hello world", false, false),
                 std::vector<Token>({hello, world, Token('l'), Token('d')}));
        QVERIFY(!tok->addsBos());
        QCOMPARE(tok->encode("hello", true, false), std::vector<Token>({hello}));
        QCOMPARE(tok->encode("hello<|endoftext|>", false, true), std::vector<Token>({hello, eot}));
        QVERIFY(tok->isEndOfGeneration(eot));

        // Every byte string survives a round trip, invalid UTF-8 included.
        const std::string bytes = std::string("a\xFF\xC3 b\x00\x80 hello \xF0\x9F", 15);
        QCOMPARE(tok->decode(tok->encode(bytes, false, false)), bytes);
    }

    // o200k_harmony (gpt-oss): <|return|> and <|call|> end an answer, <|end|> only a message
    // (the analysis comes before the answer), and the markers that structure a message are
    // shown as text, so the app can tell its channels apart.
    void harmonyVocabulary()
    {
        VocabSpec spec = smallBpe();
        const Token first = Token(spec.tokens.size());
        for (const char* text : {"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>"}) {
            spec.tokens.push_back(text);
            spec.types.push_back(3);
        }
        spec.extra = [first](gguf::GgufWriter& w) {
            w.setString("tokenizer.ggml.pre", "gpt-4o");
            w.setUInt32("tokenizer.ggml.eos_token_id", std::uint32_t(first + 4));
        };
        const auto tok = buildOrFail(spec);
        QVERIFY(tok);
        const Token start = first;
        const Token channel = first + 1;
        const Token message = first + 2;
        const Token end = first + 3;
        QVERIFY(tok->isEndOfGeneration(first + 4));
        QVERIFY(tok->isEndOfGeneration(first + 5));
        QVERIFY(!tok->isEndOfGeneration(end));
        QVERIFY(!tok->isControl(channel));
        QVERIFY(tok->isControl(end));
        const std::vector<Token> answer = {channel, 256 + 3, message, 256 + 3, end, start};
        QCOMPARE(tok->decode(answer), std::string("<|channel|>hello<|message|>hello<|start|>"));
    }

    void invalidMetadata_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("unknown model") << 0;
        QTest::newRow("types length") << 1;
        QTest::newRow("scores length") << 2;
        QTest::newRow("bos out of range") << 3;
        QTest::newRow("bad type value") << 4;
        QTest::newRow("malformed byte token") << 5;
        QTest::newRow("no tokens") << 6;
        QTest::newRow("bpe without merges") << 7;
        QTest::newRow("malformed merge") << 8;
        QTest::newRow("unknown pre-tokenizer") << 9;
        QTest::newRow("tokens not strings") << 10;
        QTest::newRow("add_bos without bos") << 11;
        QTest::newRow("eos wrong type") << 12;
    }

    void invalidMetadata()
    {
        QFETCH(int, which);
        VocabSpec spec = which >= 7 && which <= 9 ? smallBpe() : smallSpm();
        const auto previous = spec.extra;
        switch (which) {
        case 0: spec.model = "t5-unigram"; break;
        case 1: spec.types.pop_back(); break;
        case 2: spec.scores.push_back(0); break;
        case 3:
            spec.extra = [previous](gguf::GgufWriter& w) {
                previous(w);
                w.setUInt32("tokenizer.ggml.bos_token_id", 5000);
            };
            break;
        case 4: spec.types[10] = 42; break;
        case 5: spec.tokens[3] = "<0xZZ>"; break;
        case 6: spec.tokens.clear(); spec.types.clear(); spec.scores.clear(); break;
        case 7: spec.merges.clear(); break;
        case 8: spec.merges[2] = "nospace"; break;
        case 9:
            spec.extra = [previous](gguf::GgufWriter& w) {
                previous(w);
                w.setString("tokenizer.ggml.pre", "no-such-pre");
            };
            break;
        case 10:
            spec.extra = [](gguf::GgufWriter& w) { w.setInt32Array("tokenizer.ggml.tokens", {1, 2, 3}); };
            spec.tokens.clear();
            spec.types.clear();
            spec.scores.clear();
            break;
        case 11:
            // One token: the default BOS id 1 does not exist.
            spec.tokens.resize(1);
            spec.types.resize(1);
            spec.scores.resize(1);
            spec.extra = [](gguf::GgufWriter& w) { w.setBool("tokenizer.ggml.add_bos_token", true); };
            break;
        case 12:
            spec.extra = [](gguf::GgufWriter& w) { w.setString("tokenizer.ggml.eos_token_id", "2"); };
            break;
        }
        const auto tok = build(spec);
        QVERIFY(!tok.ok());
        QVERIFY(!tok.message().empty());
        QVERIFY(tok.code() == ErrorCode::InvalidFile || tok.code() == ErrorCode::Unsupported);
    }

    void streamDecoderHoldsPartialCharacters()
    {
        const auto tok = buildOrFail(smallSpm());
        QVERIFY(tok);
        // 🦙 has no piece, so it becomes four byte tokens.
        const std::vector<Token> ids = tok->encode("h\xF0\x9F\xA6\x99!", false, false);
        QCOMPARE(ids.size(), std::size_t(1 + 4 + 1));

        Utf8StreamDecoder stream(*tok);
        std::string text;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const std::string piece = stream.push(ids[i]);
            if (i >= 1 && i <= 3)
                QCOMPARE(piece, std::string()); // inside the emoji: nothing yet
            text += piece;
        }
        text += stream.flush();
        QCOMPARE(text, std::string(" h\xF0\x9F\xA6\x99!"));

        // A sequence cut short is one replacement character at flush().
        Utf8StreamDecoder cut(*tok);
        QCOMPARE(cut.push(3 + 0xF0), std::string());
        QCOMPARE(cut.push(3 + 0x9F), std::string());
        QCOMPARE(cut.flush(), std::string("\xEF\xBF\xBD"));
        QCOMPARE(cut.flush(), std::string());

        // Bytes that can never start a character are replaced at once, not held back.
        Utf8StreamDecoder bad(*tok);
        QCOMPARE(bad.push(3 + 0xFF), std::string("\xEF\xBF\xBD"));
        QCOMPARE(bad.push(3 + 0xE2), std::string());
        QCOMPARE(bad.push(3 + 'a'), std::string("\xEF\xBF\xBD" "a"));
        QCOMPARE(bad.push(3 + 0xED), std::string());
        QCOMPARE(bad.push(3 + 0xA0), std::string("\xEF\xBF\xBD\xEF\xBF\xBD")); // a surrogate can never complete
        QCOMPARE(bad.flush(), std::string());

        // Control tokens are hidden unless asked for.
        Utf8StreamDecoder hidden(*tok);
        QCOMPARE(hidden.push(269), std::string());
        Utf8StreamDecoder shown(*tok, true);
        QCOMPARE(shown.push(269), std::string("<|im_end|>"));
    }

    // The tiny model the engine tests run: its tokenizer loads and round-trips.
    void modelVocabulary()
    {
        HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto file = gguf::GgufFile::open(path.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        auto created = createTokenizer(**file);
        QVERIFY2(created.ok(), created.message().c_str());
        const Tokenizer& tok = **created;
        QCOMPARE(tok.vocabSize(), 512);
        QCOMPARE(tok.bos(), 1);
        QCOMPARE(tok.eos(), 2);
        QVERIFY(tok.addsBos());
        const std::vector<Token> ids = tok.encode("Once upon a time, there was a little girl.", true, false);
        QCOMPARE(ids.front(), 1);
        QVERIFY(ids.size() > 5);
        QCOMPARE(tok.decode(ids), std::string(" Once upon a time, there was a little girl."));
        QVERIFY(tok.isEndOfGeneration(2));
    }

    // llama.cpp's vocabularies and their test vectors (models/ggml-vocab-*.gguf and .inp/.out),
    // each where ../shared/vocab has it.
    void vectors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("llama-spm") << QStringLiteral("llama-spm");
        QTest::newRow("falcon") << QStringLiteral("falcon");
        QTest::newRow("gpt-2") << QStringLiteral("gpt-2");
        QTest::newRow("mpt") << QStringLiteral("mpt");
        QTest::newRow("deepseek-llm") << QStringLiteral("deepseek-llm");
        QTest::newRow("deepseek-coder") << QStringLiteral("deepseek-coder");
        QTest::newRow("phi-3") << QStringLiteral("phi-3");
        QTest::newRow("starcoder") << QStringLiteral("starcoder");
        QTest::newRow("refact") << QStringLiteral("refact");
    }

    void vectors()
    {
        QFETCH(QString, name);
        HEARTH_REQUIRE_SHARED(vocabDir, "vocab");
        const QString base = vocabDir + QStringLiteral("/ggml-vocab-%1.gguf").arg(name);
        if (!QFile::exists(base))
            QSKIP(qPrintable(base + QStringLiteral(" is not present; skipping")));
        const VocabFile vocab = openVocab(base);
        QVERIFY2(vocab.tokenizer, vocab.error.c_str());
        const Tokenizer* tok = vocab.tokenizer.get();
        const bool spm = vocab.sentencePiece;

        const std::vector<Vector> vectors = readVectors(base);
        QVERIFY(vectors.size() > 30);
        int failures = 0;
        for (const Vector& v : vectors) {
            const std::vector<Token> ids = tok->encode(v.text, false, false);
            if (ids != v.ids) {
                ++failures;
                qWarning("%s: %s\n  expected %s\n  got      %s", qPrintable(name), v.text.c_str(),
                         qPrintable(describe(v.ids)), qPrintable(describe(ids)));
                continue;
            }
            // SentencePiece adds a leading space to the text; everything else round-trips.
            std::string decoded = tok->decode(ids);
            if (spm && !v.text.empty()) {
                QVERIFY(decoded.starts_with(' '));
                decoded.erase(0, 1);
            }
            QCOMPARE(decoded, v.text);
        }
        QCOMPARE(failures, 0);
    }

    // Arbitrary bytes (invalid UTF-8, NULs, lone continuation bytes) never break encoding, and
    // every vocabulary with byte pieces gives them back exactly.
    void arbitraryBytesRoundTrip_data() { vectors_data(); }

    void arbitraryBytesRoundTrip()
    {
        QFETCH(QString, name);
        HEARTH_REQUIRE_SHARED(vocabDir, "vocab");
        const QString base = vocabDir + QStringLiteral("/ggml-vocab-%1.gguf").arg(name);
        if (!QFile::exists(base))
            QSKIP(qPrintable(base + QStringLiteral(" is not present; skipping")));
        const VocabFile vocab = openVocab(base);
        QVERIFY2(vocab.tokenizer, vocab.error.c_str());
        const Tokenizer& tok = *vocab.tokenizer;
        const bool spm = vocab.sentencePiece;

        const auto roundTrip = [&](const std::string& bytes) {
            std::string decoded = tok.decode(tok.encode(bytes, false, false));
            if (spm && !bytes.empty() && decoded.starts_with(' '))
                decoded.erase(0, 1);
            return decoded;
        };
        // Some vocabularies lack pieces for bytes their training text never had (Falcon has
        // none for 0xC0, 0xF5..0xFF and a few control characters): those cannot come back.
        std::string representable;
        for (int b = 0; b < 256; ++b) {
            if (roundTrip(std::string(1, char(b))) == std::string(1, char(b)))
                representable += char(b);
        }
        QVERIFY(representable.size() >= 200);

        std::uint64_t state = 0x9E3779B97F4A7C15ull;
        const auto next = [&state] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return std::uint32_t(state >> 33);
        };
        for (int round = 0; round < 200; ++round) {
            std::string bytes(next() % 64, '\0');
            for (char& c : bytes) {
                // Mostly arbitrary bytes, some ASCII letters and spaces to give merges something.
                const std::uint32_t r = next();
                c = (r & 3) == 0 ? "ab <|>"[r % 6] : char(r >> 8);
            }
            for (const bool parseSpecial : {false, true}) {
                for (const Token t : tok.encode(bytes, true, parseSpecial))
                    QVERIFY(t >= 0 && t < tok.vocabSize());
            }
            for (char& c : bytes) {
                if (representable.find(c) == std::string::npos)
                    c = 'x';
            }
            QCOMPARE(roundTrip(bytes), bytes);
        }
    }

    // Byte-level files converted before `tokenizer.ggml.pre` existed get the pre-tokenizer of
    // their architecture: a Falcon vocabulary copied without the key still passes its vectors.
    void preTokenizerFromArchitecture()
    {
        HEARTH_REQUIRE_SHARED(base, "vocab/ggml-vocab-falcon.gguf");
        auto original = gguf::GgufFile::open(base.toStdString());
        QVERIFY2(original.ok(), original.message().c_str());
        gguf::GgufWriter writer;
        for (const auto& [key, value] : (*original)->metadata()) {
            if (key != "tokenizer.ggml.pre")
                writer.setValue(key, value);
        }
        const std::string path = m_dir.filePath(QStringLiteral("falcon-without-pre.gguf")).toStdString();
        QVERIFY(writer.begin(path).ok());
        QVERIFY(writer.finish().ok());
        auto file = gguf::GgufFile::open(path);
        QVERIFY2(file.ok(), file.message().c_str());
        QVERIFY(!(*file)->find("tokenizer.ggml.pre"));
        auto tok = createTokenizer(**file);
        QVERIFY2(tok.ok(), tok.message().c_str());
        for (const Vector& v : readVectors(base))
            QCOMPARE(describe((*tok)->encode(v.text, false, false)), describe(v.ids));
    }

    void longPromptAndThreads_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("llama-spm") << QStringLiteral("llama-spm");
        QTest::newRow("falcon") << QStringLiteral("falcon");
    }

    // A 10 KB prompt, encoded from several threads at once: every thread gets the same ids.
    void longPromptAndThreads()
    {
        QFETCH(QString, name);
        HEARTH_REQUIRE_SHARED(vocabDir, "vocab");
        const QString base = vocabDir + QStringLiteral("/ggml-vocab-%1.gguf").arg(name);
        auto file = gguf::GgufFile::open(base.toStdString());
        QVERIFY2(file.ok(), file.message().c_str());
        auto created = createTokenizer(**file);
        QVERIFY2(created.ok(), created.message().c_str());
        const Tokenizer& tok = **created;

        std::string prompt;
        for (const Vector& v : readVectors(base))
            prompt += v.text + "\n";
        while (prompt.size() < 10 * 1024)
            prompt += prompt;
        prompt.resize(10 * 1024);
        // Cutting may split a character; the tokenizer must cope with that too.

        QElapsedTimer timer;
        timer.start();
        const std::vector<Token> reference = tok.encode(prompt, true, false);
        qInfo("%s: %zu bytes -> %zu tokens in %.2f ms", qPrintable(name), prompt.size(), reference.size(),
              double(timer.nsecsElapsed()) / 1e6);
        QVERIFY(!reference.empty());

        std::vector<std::vector<Token>> results(4);
        std::vector<std::thread> threads;
        for (auto& r : results)
            threads.emplace_back([&tok, &prompt, &r] { r = tok.encode(prompt, true, false); });
        for (auto& t : threads)
            t.join();
        for (const auto& r : results)
            QCOMPARE(r, reference);
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
