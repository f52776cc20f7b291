// SPDX-License-Identifier: MIT
#include <hearth/chat.h>
#include <hearth/model.h>

#include <QDate>
#include <QFile>
#include <QLocale>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <map>
#include <random>
#include <string>
#include <vector>

using hearth::ChatMessage;
using hearth::ChatTemplate;
using hearth::Reasoning;
using hearth::Token;

namespace {

// A model that exists only through the public interfaces ChatTemplate::forModel may use.
class FakeTokenizer : public hearth::Tokenizer {
public:
    explicit FakeTokenizer(std::vector<std::string> vocab, Token bos, Token eos)
        : m_vocab(std::move(vocab))
        , m_bos(bos)
        , m_eos(eos)
    {
    }

    std::vector<Token> encode(std::string_view, bool, bool) const override { return {}; }
    std::string tokenBytes(Token token) const override { return m_vocab.at(static_cast<std::size_t>(token)); }
    int vocabSize() const override { return static_cast<int>(m_vocab.size()); }
    Token bos() const override { return m_bos; }
    Token eos() const override { return m_eos; }
    bool addsBos() const override { return m_bos != hearth::InvalidToken; }
    bool isControl(Token token) const override { return token == m_bos || token == m_eos; }
    bool isEndOfGeneration(Token token) const override { return token == m_eos; }
    Token findToken(std::string_view text) const override
    {
        for (std::size_t i = 0; i < m_vocab.size(); ++i) {
            if (m_vocab[i] == text)
                return static_cast<Token>(i);
        }
        return hearth::InvalidToken;
    }

private:
    std::vector<std::string> m_vocab;
    Token m_bos;
    Token m_eos;
};

class FakeModel : public hearth::Model {
public:
    FakeModel(FakeTokenizer tokenizer, std::string chatTemplate)
        : m_tokenizer(std::move(tokenizer))
        , m_template(std::move(chatTemplate))
    {
    }
    const hearth::ModelInfo& info() const override { return m_info; }
    const hearth::Tokenizer& tokenizer() const override { return m_tokenizer; }
    const std::string& chatTemplateSource() const override { return m_template; }

private:
    hearth::ModelInfo m_info;
    FakeTokenizer m_tokenizer;
    std::string m_template;
};

const std::vector<ChatMessage> withSystem{
    {"system", "You are helpful."},
    {"user", "Hello!"},
    {"assistant", "Hi there."},
    {"user", "How are you?"},
};

const std::vector<ChatMessage> withoutSystem{
    {"user", "Hello!"},
    {"assistant", "Hi there."},
    {"user", "How are you?"},
};

// Renders @p source with a few variables; messages default to withSystem.
hearth::Result<std::string> render(const std::string& source, const std::vector<ChatMessage>& messages = withSystem,
                                   bool addGenerationPrompt = true, const std::string& bos = "<s>", const std::string& eos = "</s>")
{
    auto tmpl = ChatTemplate::fromJinja(source, bos, eos);
    if (!tmpl)
        return tmpl.status();
    return tmpl->apply(messages, addGenerationPrompt);
}

// Renders and returns the text, or "ERROR: message".
QString renderText(const std::string& source, const std::vector<ChatMessage>& messages = withSystem, bool addGenerationPrompt = true)
{
    auto r = render(source, messages, addGenerationPrompt);
    return QString::fromStdString(r ? *r : "ERROR: " + r.message());
}

// Well-known chat templates as published with the models (tokenizer_config.json), JSON-unescaped.
const char* const llama2Chat =
    R"({% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\n' + system_message + '\n<</SYS>>\n\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %})";

const char* const mistralInstruct =
    R"({{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token + ' ' }}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %})";

const char* const zephyr = R"({% for message in messages %}
{% if message['role'] == 'user' %}
{{ '<|user|>
' + message['content'] + eos_token }}
{% elif message['role'] == 'system' %}
{{ '<|system|>
' + message['content'] + eos_token }}
{% elif message['role'] == 'assistant' %}
{{ '<|assistant|>
'  + message['content'] + eos_token }}
{% endif %}
{% if loop.last and add_generation_prompt %}
{{ '<|assistant|>' }}
{% endif %}
{% endfor %})";

const char* const chatmlOpenHermes =
    R"({% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %})";

const char* const llama3Instruct =
    R"({% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %})";

const char* const gemma =
    R"({{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %})";

const char* const phi3 =
    R"({% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %})";

const char* const falconInstruct =
    R"({% for message in messages %}{% if not loop.first %}{{ '\n' }}{% endif %}{% if message['role'] == 'system' %}{{ 'System: ' }}{% elif message['role'] == 'user' %}{{ 'User: ' }}{% elif message['role'] == 'assistant' %}{{ 'Falcon: ' }}{% endif %}{{ message['content'] }}{% endfor %}{% if add_generation_prompt %}{{ '\n' + 'Falcon:' }}{% endif %})";

const char* const vicuna =
    R"({% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = 'A chat between a curious user and an artificial intelligence assistant. The assistant gives helpful, detailed, and polite answers to the user\'s questions.' %}{% endif %}{{ system_message }}{% for message in loop_messages %}{% if message['role'] == 'user' %}{{ ' USER: ' + message['content'].strip() }}{% elif message['role'] == 'assistant' %}{{ ' ASSISTANT: ' + message['content'].strip() + eos_token }}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ ' ASSISTANT:' }}{% endif %})";

// Llama 3.1 style: multi-line with {%- -%}, namespace-free system extraction, default filters.
const char* const llama31Style = R"({{- bos_token }}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}
{%- if not date_string is defined %}
    {%- set date_string = "26 Jul 2024" %}
{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{{- system_message }}
{{- "<|eot_id|>" }}
{%- for message in messages %}
    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
)";

} // namespace

class TestChatTemplate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void realTemplates_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("bos");
        QTest::addColumn<QString>("eos");
        QTest::addColumn<bool>("system");
        QTest::addColumn<QString>("expected");

        QTest::newRow("llama-2-chat") << llama2Chat << "<s>" << "</s>" << true
                                      << "<s>[INST] <<SYS>>\nYou are helpful.\n<</SYS>>\n\nHello! [/INST] Hi there. </s>"
                                         "<s>[INST] How are you? [/INST]";
        QTest::newRow("mistral-instruct") << mistralInstruct << "<s>" << "</s>" << false
                                          << "<s>[INST] Hello! [/INST]Hi there.</s> [INST] How are you? [/INST]";
        QTest::newRow("zephyr") << zephyr << "<s>" << "</s>" << true
                                << "<|system|>\nYou are helpful.</s>\n<|user|>\nHello!</s>\n<|assistant|>\nHi there.</s>\n"
                                   "<|user|>\nHow are you?</s>\n<|assistant|>\n";
        QTest::newRow("chatml-openhermes") << chatmlOpenHermes << "<s>" << "<|im_end|>" << true
                                           << "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n"
                                              "<|im_start|>assistant\nHi there.<|im_end|>\n<|im_start|>user\nHow are you?<|im_end|>\n"
                                              "<|im_start|>assistant\n";
        QTest::newRow("llama-3-instruct")
            << llama3Instruct << "<|begin_of_text|>" << "<|eot_id|>" << true
            << "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are helpful.<|eot_id|>"
               "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
               "<|start_header_id|>assistant<|end_header_id|>\n\nHi there.<|eot_id|>"
               "<|start_header_id|>user<|end_header_id|>\n\nHow are you?<|eot_id|>"
               "<|start_header_id|>assistant<|end_header_id|>\n\n";
        QTest::newRow("llama-3.1-style")
            << llama31Style << "<|begin_of_text|>" << "<|eot_id|>" << true
            << "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
               "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nYou are helpful.<|eot_id|>"
               "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
               "<|start_header_id|>assistant<|end_header_id|>\n\nHi there.<|eot_id|>"
               "<|start_header_id|>user<|end_header_id|>\n\nHow are you?<|eot_id|>"
               "<|start_header_id|>assistant<|end_header_id|>\n\n";
        QTest::newRow("gemma") << gemma << "<bos>" << "<eos>" << false
                               << "<bos><start_of_turn>user\nHello!<end_of_turn>\n<start_of_turn>model\nHi there.<end_of_turn>\n"
                                  "<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n";
        QTest::newRow("phi-3") << phi3 << "<s>" << "<|endoftext|>" << true
                               << "<|system|>\nYou are helpful.<|end|>\n<|user|>\nHello!<|end|>\n<|assistant|>\nHi there.<|end|>\n"
                                  "<|user|>\nHow are you?<|end|>\n<|assistant|>\n";
        QTest::newRow("falcon-instruct") << falconInstruct << "" << "<|endoftext|>" << true
                                         << "System: You are helpful.\nUser: Hello!\nFalcon: Hi there.\nUser: How are you?\nFalcon:";
        QTest::newRow("vicuna") << vicuna << "<s>" << "</s>" << true
                                << "You are helpful. USER: Hello! ASSISTANT: Hi there.</s> USER: How are you? ASSISTANT:";
    }

    // The published templates of today's families (data/templates, from llama.cpp's collection of
    // them) render what Hugging Face transformers renders, byte for byte: renders.json, written
    // by make_renders.py beside them.
    void familyTemplatesRenderAsTransformers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("conversation");
        QFile renders(QStringLiteral(HEARTH_TEST_DATA_DIR "/templates/renders.json"));
        QVERIFY(renders.open(QIODevice::ReadOnly));
        const QJsonObject all = QJsonDocument::fromJson(renders.readAll()).object();
        QVERIFY(all.size() >= 10);
        for (auto t = all.begin(); t != all.end(); ++t) {
            const QJsonObject cases = t.value().toObject().value(QLatin1String("renders")).toObject();
            for (auto c = cases.begin(); c != cases.end(); ++c)
                QTest::newRow(qPrintable(t.key() + QLatin1Char(' ') + c.key())) << t.key() << c.key();
        }
    }

    void familyTemplatesRenderAsTransformers()
    {
        QFETCH(QString, file);
        QFETCH(QString, conversation);
        QFile renders(QStringLiteral(HEARTH_TEST_DATA_DIR "/templates/renders.json"));
        QVERIFY(renders.open(QIODevice::ReadOnly));
        const QJsonObject entry = QJsonDocument::fromJson(renders.readAll()).object().value(file).toObject();
        QFile source(QStringLiteral(HEARTH_TEST_DATA_DIR "/templates/") + file);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const std::map<QString, std::vector<ChatMessage>> conversations = {
            {QStringLiteral("with_system"), withSystem},
            {QStringLiteral("without_system"), withoutSystem},
            {QStringLiteral("unicode"), {{"user", "Grüße, 你好 — ¿qué tal? 🙂"}}},
            {QStringLiteral("reasoning"),
             {{"user", "Hello!"}, {"assistant", "<think>\nA greeting.\n</think>\n\nHi there."}, {"user", "How are you?"}}},
        };
        auto tmpl = ChatTemplate::fromJinja(source.readAll().toStdString(),
                                            entry.value(QLatin1String("bos_token")).toString().toStdString(),
                                            entry.value(QLatin1String("eos_token")).toString().toStdString());
        QVERIFY2(tmpl.ok(), tmpl.message().c_str());
        auto text = tmpl->apply(conversations.at(conversation), true);
        QVERIFY2(text.ok(), text.message().c_str());
        QString expected = entry.value(QLatin1String("renders")).toObject().value(conversation).toString();
        expected.replace(QLatin1String("@TODAY@"), QLocale::c().toString(QDate::currentDate(), QStringLiteral("dd MMM yyyy")));
        expected.replace(QLatin1String("@ISODATE@"), QDate::currentDate().toString(Qt::ISODate));
        QCOMPARE(QString::fromStdString(*text), expected);
    }

    // How much a reasoning model thinks is its template's business: Qwen 3 reads
    // enable_thinking (off: an empty thinking block opens the answer), gpt-oss reads
    // reasoning_effort; templates that read neither render the same whatever is asked.
    void reasoningSettingsReachTheTemplate()
    {
        const auto load = [](const char* file, const char* bos, const char* eos) {
            QFile source(QStringLiteral(HEARTH_TEST_DATA_DIR "/templates/") + QLatin1String(file));
            if (!source.open(QIODevice::ReadOnly))
                qFatal("%s", file);
            auto t = ChatTemplate::fromJinja(source.readAll().toStdString(), bos, eos);
            if (!t)
                qFatal("%s", t.message().c_str());
            return std::move(t).value();
        };
        const std::vector<ChatMessage> question = {{"user", "Hello!"}};
        const ChatTemplate qwen = load("Qwen-Qwen3-0.6B.jinja", "", "<|im_end|>");
        QVERIFY(qwen.readsReasoning());
        QVERIFY(QString::fromStdString(*qwen.apply(question, true, Reasoning::Off)).endsWith(QStringLiteral("<|im_start|>assistant\n<think>\n\n</think>\n\n")));
        QCOMPARE(*qwen.apply(question, true, Reasoning::High), *qwen.apply(question, true));
        const ChatTemplate gptOss = load("openai-gpt-oss-120b.jinja", "<|startoftext|>", "<|return|>");
        QVERIFY(gptOss.readsReasoning());
        QVERIFY(gptOss.apply(question, true)->find("Reasoning: medium") != std::string::npos);
        QVERIFY(gptOss.apply(question, true, Reasoning::High)->find("Reasoning: high") != std::string::npos);
        QVERIFY(gptOss.apply(question, true, Reasoning::Off)->find("Reasoning: low") != std::string::npos);
        const ChatTemplate llama = load("meta-llama-Llama-3.1-8B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>");
        QVERIFY(!llama.readsReasoning());
        QCOMPARE(*llama.apply(question, true, Reasoning::Off), *llama.apply(question, true));
        QVERIFY(!ChatTemplate::builtin(ChatTemplate::Builtin::ChatML).readsReasoning());
    }

    void realTemplates()
    {
        QFETCH(QString, source);
        QFETCH(QString, bos);
        QFETCH(QString, eos);
        QFETCH(bool, system);
        QFETCH(QString, expected);
        auto r = render(source.toStdString(), system ? withSystem : withoutSystem, true, bos.toStdString(), eos.toStdString());
        QVERIFY2(r.ok(), qPrintable(QString::fromStdString(r.message())));
        QCOMPARE(QString::fromStdString(*r), expected);
    }

    void aSystemTurnTheTemplateRefusesGoesBeforeTheFirstQuestion()
    {
        // Mistral v0.2 and Gemma raise an exception for a system turn; the system text then
        // opens the first question, as in other apps, instead of an error.
        auto mistral = render(mistralInstruct);
        QVERIFY2(mistral.ok(), mistral.message().c_str());
        QCOMPARE(QString::fromStdString(*mistral),
                 QStringLiteral("<s>[INST] You are helpful.\n\nHello! [/INST]Hi there.</s> [INST] How are you? [/INST]"));
        auto g = render(gemma, withSystem, true, "<bos>", "<eos>");
        QVERIFY2(g.ok(), g.message().c_str());
        QCOMPARE(QString::fromStdString(*g),
                 QStringLiteral("<bos><start_of_turn>user\nYou are helpful.\n\nHello!<end_of_turn>\n<start_of_turn>model\nHi there.<end_of_turn>\n"
                                "<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n"));

        // A template that leaves system turns out without a word: folded the same way.
        const char* dropsSystem = "{% for m in messages %}{% if m.role != 'system' %}<{{ m.role }}>{{ m.content }}{% endif %}{% endfor %}";
        QCOMPARE(renderText(dropsSystem), QStringLiteral("<user>You are helpful.\n\nHello!<assistant>Hi there.<user>How are you?"));

        // Templates with a system role keep it where they put it, even when they trim it.
        QCOMPARE(renderText(llama3Instruct, {{"system", "  Be brief.  "}, {"user", "Hi"}}, false).count(QStringLiteral("Be brief.")), 1);
        QVERIFY(renderText(phi3).startsWith(QStringLiteral("<|system|>\nYou are helpful.<|end|>")));
        // A template's other complaints stay errors: two questions in a row break Gemma's rule anyway.
        auto twice = render(gemma, {{"system", "S"}, {"user", "a"}, {"user", "b"}});
        QVERIFY(!twice.ok());
        QVERIFY2(twice.message().find("System role not supported") != std::string::npos, twice.message().c_str());
    }

    void generationPromptIsOptional()
    {
        QCOMPARE(renderText(chatmlOpenHermes, {{"user", "Hi"}}, false), QStringLiteral("<|im_start|>user\nHi<|im_end|>\n"));
        QCOMPARE(renderText(phi3, {{"user", "Hi"}}, false), QStringLiteral("<|user|>\nHi<|end|>\n</s>"));
    }

    void whitespaceControl()
    {
        QCOMPARE(renderText("a  {{- 'b' -}}  c"), QStringLiteral("abc"));
        QCOMPARE(renderText("a \n {%- if true -%} \n b \n {%- endif -%} \n c"), QStringLiteral("abc"));
        QCOMPARE(renderText("a {# note #} b"), QStringLiteral("a  b"));
        QCOMPARE(renderText("a {#- note -#} b"), QStringLiteral("ab"));
        // trim_blocks: the newline right after a block tag goes; lstrip_blocks: indentation before it.
        QCOMPARE(renderText("{% if true %}\nx\n{% endif %}\ny"), QStringLiteral("x\ny"));
        QCOMPARE(renderText("line\n    {% if true %}\n    x\n    {% endif %}\nend"), QStringLiteral("line\n    x\nend"));
        // ... but not for expressions, and "+" turns lstrip off.
        QCOMPARE(renderText("  {{ 'x' }}\ny"), QStringLiteral("  x\ny"));
        QCOMPARE(renderText("  {%+ if true %}x{% endif %}"), QStringLiteral("  x"));
        QCOMPARE(renderText("{% raw %}{{ not evaluated }}{% endraw %}"), QStringLiteral("{{ not evaluated }}"));
    }

    void loopVariables()
    {
        QCOMPARE(renderText("{% for m in messages %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.length }}"
                            "{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %} {% endfor %}"),
                 QStringLiteral("1/0/4F 2/1/4 3/2/4 4/3/4L "));
        QCOMPARE(renderText("{% for x in [] %}x{% else %}empty{% endfor %}"), QStringLiteral("empty"));
        // Without a system turn: one the template leaves out would open the first question.
        QCOMPARE(renderText("{% for m in messages if m.role == 'user' %}{{ loop.index }}:{{ m.content }};{% endfor %}", withoutSystem),
                 QStringLiteral("1:Hello!;2:How are you?;"));
        QCOMPARE(renderText("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }},{% endfor %}"), QStringLiteral("a=1,b=2,"));
        QCOMPARE(renderText("{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %}"),
                 QStringLiteral("013"));
        QCOMPARE(renderText("{% for i in range(3) %}{{ loop.cycle('a', 'b') }}{{ loop.revindex }}{% endfor %}"), QStringLiteral("a3b2a1"));
        // A plain set inside a loop does not leak out; a namespace does.
        QCOMPARE(renderText("{% set x = 1 %}{% set ns = namespace(x=1) %}{% for i in range(3) %}{% set x = x + 1 %}"
                            "{% set ns.x = ns.x + 1 %}{% endfor %}{{ x }} {{ ns.x }}"),
                 QStringLiteral("1 4"));
    }

    void expressions_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* source, const char* expected) { QTest::newRow(source) << source << expected; };
        row("{{ 1 + 2 * 3 }}", "7");
        row("{{ (1 + 2) * 3 }}", "9");
        row("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }}", "3 -4 1 2 3.5 1024");
        row("{{ 1.5 + 1 }} {{ 0.1 }} {{ 2.0 }}", "2.5 0.1 2.0");
        row("{{ 'a' ~ 1 ~ none ~ true }}", "a1NoneTrue");
        row("{{ 'ab' * 3 }}", "ababab");
        row("{{ \"say \\\"hi\\\"\\n\" }}|{{ 'it\\'s' }}", "say \"hi\"\n|it's");
        row("{{ [1, 'a', [true, none]] }}", "[1, 'a', [True, None]]");
        row("{{ {'k': 'v', 'n': 2} }}", "{'k': 'v', 'n': 2}");
        row("{{ messages[0]['role'] }} {{ messages[0].content }} {{ messages[-1].content }}", "system You are helpful. How are you?");
        row("{{ messages[1:] | length }} {{ messages[:1][0].role }} {{ messages[::-1][0].role }} {{ 'hello'[1:3] }}", "3 system user el");
        row("{{ 1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 4 }}", "False");
        row("{{ 1 == 1.0 }} {{ 'a' != 'b' }} {{ not false }} {{ none or 'x' }} {{ 0 and 1 }}", "True True True x 0");
        row("{{ 'ell' in 'hello' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1, 2] }}", "True True True True");
        row("{{ 'yes' if messages else 'no' }} {{ 'a' if false }}|", "yes |");
        row("{{ x is defined }} {{ x is undefined }} {{ none is none }} {{ 'a' is string }} {{ 1 is number }} {{ [] is iterable }}",
            "False True True True True True");
        row("{{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ {} is mapping }} {{ 1 is not string }}", "True True True True True");
        row("{{ '  x  ' | trim }}|{{ 'ab' | upper }}|{{ 'AB' | lower }}|{{ 'hello world' | capitalize }}|{{ 'hello world' | title }}",
            "x|AB|ab|Hello world|Hello World");
        row("{{ [1, 2, 3] | length }} {{ 'héllo' | length }} {{ [3, 1, 2] | first }} {{ [3, 1, 2] | last }} {{ [3, 1, 2] | sort | join(',') }}",
            "3 5 3 2 1,2,3");
        row("{{ undefined_thing | default('fallback') }} {{ '' | default('x', true) }} {{ 'set' | default('x') }}", "fallback x set");
        row("{{ ['a', 'b'] | join(', ') }} {{ 'a-b-c' | replace('-', '+') }} {{ 42 | string }} {{ '12' | int + 1 }} {{ 'x' | int }}",
            "a, b a+b+c 42 13 0");
        row("{{ {'a': [1, 2.5, true, none], 'b': \"q\\\"\\n\"} | tojson }}", "{\"a\": [1, 2.5, true, null], \"b\": \"q\\\"\\n\"}");
        row("{{ {'a': 1} | tojson(indent=2) }}", "{\n  \"a\": 1\n}");
        row("{{ 'x' | safe }}", "x");
        row("{{ '  a b  '.strip() }}|{{ 'xxaxx'.lstrip('x') }}|{{ 'xxaxx'.rstrip('x') }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith('bc') }}",
            "a b|axx|xxa|True|True");
        row("{{ 'a b  c'.split() }} {{ 'a,b'.split(',') }} {{ 'Ab'.upper() }} {{ 'Ab'.lower() }} {{ 'ab cd'.title() }} {{ 'aXa'.replace('a', 'b') }}",
            "['a', 'b', 'c'] ['a', 'b'] AB ab Ab Cd bXb");
        row("{% set d = {'a': 1} %}{{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 5) }} {{ d['a'] }} {{ d.a }} {{ d.keys() | list }}",
            "1 None 5 1 1 ['a']");
        row("{{ range(3) | list }} {{ range(1, 7, 2) | join(' ') }}", "[0, 1, 2] 1 3 5");
        row("{{ messages | rejectattr('role', 'equalto', 'assistant') | map(attribute='content') | join(' / ') }}",
            "You are helpful. / Hello! / How are you?");
        row("{{ messages | rejectattr('role', 'equalto', 'user') | list | length }}", "2");
        row("{% set a, b = 1, 2 %}{{ a }}{{ b }}", "12");
        row("{% set block %}in {{ 'block' }}{% endset %}[{{ block }}]", "[in block]");
        row("{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('you') }} {{ greet('x', punct='?') }}",
            "Hi you! Hi x?");
        row("{% filter upper %}shout{% endfilter %}", "SHOUT");
        row("{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}", "<s>|</s>|True");
        row("{{ 'a' 'b' }}", "ab");
    }

    void expressions()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QCOMPARE(renderText(source.toStdString()), expected);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("limit"); // a limit against runaway templates, not a mistake in one
        const auto row = [](const char* name, const char* source, const char* message) { QTest::newRow(name) << source << message << false; };
        const auto limit = [](const char* name, const char* source, const char* message) { QTest::newRow(name) << source << message << true; };
        row("unterminated tag", "ok\n  {{ 1 + ", "line 2, column 3: unterminated tag");
        row("unterminated block", "{% if true %", "line 1, column 1: unterminated tag");
        row("unterminated comment", "a {# b", "line 1, column 3: unterminated comment");
        row("unterminated string", "{{ 'abc }}", "line 1, column 4: unterminated string");
        row("unclosed if", "x\n{% if true %}y", "line 2, column 4: 'if' is never closed");
        row("stray endif", "{% endif %}", "unexpected 'endif'");
        row("unknown tag", "{% include 'x' %}", "unknown or unsupported tag 'include'");
        row("bad expression", "{{ 1 + }}", "line 1, column 8: expected an expression");
        row("unknown filter", "a\n{{ 'x' | frobnicate }}", "line 2, column 8: unknown filter 'frobnicate'");
        row("unknown test", "{{ 1 is frobnicated }}", "unknown test 'frobnicated'");
        row("raise_exception", "{{ raise_exception('Only user and assistant roles are supported!') }}",
            "Only user and assistant roles are supported!");
        row("call undefined", "{{ nope() }}", "'nope' is undefined");
        row("division by zero", "{{ 1 // 0 }}", "division by zero");
        limit("runaway loop", "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(2) %}{% endfor %}{% endfor %}{% endfor %}",
            "too many loop iterations");
        limit("lists built in a loop", "{% for i in range(1000000) %}{% set x = range(999999) %}{% endfor %}", "too much work");
        limit("strings built in a loop", "{% for i in range(100000) %}{% set s = 'x' * 50000000 %}{% endfor %}", "too much work");
        limit("recursion", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "nested too deeply");
        limit("huge string", "{{ 'x' * 100000000000 }}", "too large");
        row("integer overflow", "{{ 9223372036854775807 + 1 }}", "integer overflow");
        row("break outside loop", "{% break %}", "outside of a loop");
        row("set attribute on non-namespace", "{% set s = 'x' %}{% set s.a = 1 %}", "cannot set attribute");
    }

    void errors()
    {
        QFETCH(QString, source);
        QFETCH(QString, message);
        QFETCH(bool, limit);
        auto r = render(source.toStdString());
        QVERIFY2(!r.ok(), qPrintable(QStringLiteral("rendered: ") + QString::fromStdString(r.ok() ? *r : "")));
        QCOMPARE(r.code(), limit ? hearth::ErrorCode::LimitExceeded : hearth::ErrorCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(r.message()).contains(message), r.message().c_str());
    }

    void deepNestingIsAnErrorNotACrash()
    {
        const std::string parens = "{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}";
        QVERIFY(!render(parens).ok());
        std::string chain = "{{ 1";
        for (int i = 0; i < 100000; ++i)
            chain += " + 1";
        QVERIFY(!render(chain + " }}").ok());
        std::string ifs;
        for (int i = 0; i < 10000; ++i)
            ifs += "{% if true %}";
        QVERIFY(!render(ifs).ok());
        std::string filters = "{{ 'x'";
        for (int i = 0; i < 100000; ++i)
            filters += "|trim";
        QVERIFY(!render(filters + " }}").ok());
        // A namespace that holds itself prints without recursing forever (tst_hostile_templates
        // has the rest of such values).
        QVERIFY(render("{% set ns = namespace() %}{% set ns.self = ns %}{{ ns }}{{ ns == ns }}").ok());
    }

    void garbageNeverCrashes()
    {
        // Mutations of real templates: every outcome is fine except a crash or a hang.
        const std::string seeds[] = {llama2Chat, zephyr, llama31Style, gemma, vicuna};
        const std::string alphabet = "{}%#-+()[]'\"|.,:=!<>~*/ \nabcifelsendforsetin0123456789_";
        std::mt19937 rng(1234);
        int rendered = 0;
        for (int i = 0; i < 3000; ++i) {
            std::string source = seeds[static_cast<std::size_t>(i) % std::size(seeds)];
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits && !source.empty(); ++e) {
                const std::size_t pos = rng() % source.size();
                switch (rng() % 3) {
                case 0:
                    source.erase(pos, 1 + rng() % 8);
                    break;
                case 1:
                    source.insert(pos, 1, alphabet[rng() % alphabet.size()]);
                    break;
                default:
                    source[pos] = alphabet[rng() % alphabet.size()];
                }
            }
            rendered += render(source).ok();
        }
        QVERIFY(rendered > 0);
    }

    void builtins()
    {
        const auto text = [](ChatTemplate::Builtin kind, const std::vector<ChatMessage>& messages, bool gen) {
            auto r = ChatTemplate::builtin(kind).apply(messages, gen);
            return QString::fromStdString(r.ok() ? *r : "ERROR");
        };
        QCOMPARE(text(ChatTemplate::Builtin::Llama2, withSystem, true),
                 QStringLiteral("<s>[INST] <<SYS>>\nYou are helpful.\n<</SYS>>\n\nHello! [/INST] Hi there. </s><s>[INST] How are you? [/INST]"));
        QCOMPARE(text(ChatTemplate::Builtin::Llama2, withoutSystem, true),
                 QStringLiteral("<s>[INST] Hello! [/INST] Hi there. </s><s>[INST] How are you? [/INST]"));
        QCOMPARE(text(ChatTemplate::Builtin::ChatML, withSystem, true),
                 QStringLiteral("<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n"
                                "<|im_start|>assistant\nHi there.<|im_end|>\n<|im_start|>user\nHow are you?<|im_end|>\n"
                                "<|im_start|>assistant\n"));
        QCOMPARE(text(ChatTemplate::Builtin::ChatML, {{"user", "x"}}, false), QStringLiteral("<|im_start|>user\nx<|im_end|>\n"));
        QCOMPARE(text(ChatTemplate::Builtin::Plain, withSystem, true),
                 QStringLiteral("System: You are helpful.\nUser: Hello!\nAssistant: Hi there.\nUser: How are you?\nAssistant:"));
        QCOMPARE(ChatTemplate::builtin(ChatTemplate::Builtin::Llama2).name(), std::string("llama2"));
        QCOMPARE(ChatTemplate::builtin(ChatTemplate::Builtin::ChatML).name(), std::string("chatml"));
        QCOMPARE(ChatTemplate::builtin(ChatTemplate::Builtin::Plain).name(), std::string("plain"));

        // The builtin Llama2 output is what Meta's own template renders.
        auto reference = render(llama2Chat, withSystem, true);
        QVERIFY(reference.ok());
        QCOMPARE(text(ChatTemplate::Builtin::Llama2, withSystem, true), QString::fromStdString(*reference));
    }

    void forModel()
    {
        // The file's own template wins, with BOS/EOS texts from the vocabulary.
        const FakeTokenizer spm({"<unk>", "<s>", "</s>", "hello"}, 1, 2);
        const FakeModel withTemplate(spm, "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}{{ eos_token }}");
        const ChatTemplate own = ChatTemplate::forModel(withTemplate);
        QCOMPARE(own.name(), std::string("jinja"));
        auto r = own.apply(withoutSystem, true);
        QVERIFY(r.ok());
        QCOMPARE(QString::fromStdString(*r), QStringLiteral("<s>Hello!Hi there.How are you?</s>"));

        // No template: guessed from the vocabulary.
        QCOMPARE(ChatTemplate::forModel(FakeModel(spm, "")).name(), std::string("llama2"));
        const FakeTokenizer chatml({"<|endoftext|>", "<|im_start|>", "<|im_end|>"}, hearth::InvalidToken, 0);
        QCOMPARE(ChatTemplate::forModel(FakeModel(chatml, "")).name(), std::string("chatml"));
        const FakeTokenizer bpe({"<|endoftext|>", "a", "b"}, hearth::InvalidToken, 0);
        QCOMPARE(ChatTemplate::forModel(FakeModel(bpe, "")).name(), std::string("plain"));

        // A template that does not parse falls back the same way, and says why.
        std::string problem;
        QCOMPARE(ChatTemplate::forModel(FakeModel(chatml, "{% for %}"), &problem).name(), std::string("chatml"));
        QVERIFY2(QString::fromStdString(problem).contains(QStringLiteral("line 1")), problem.c_str());
        problem.clear();
        QCOMPARE(ChatTemplate::forModel(withTemplate, &problem).name(), std::string("jinja"));
        QVERIFY(problem.empty());
        QCOMPARE(ChatTemplate::fallbackFor(withTemplate).name(), std::string("llama2"));
    }

    void copiesShareTheParsedTemplate()
    {
        auto parsed = ChatTemplate::fromJinja(chatmlOpenHermes, "", "");
        QVERIFY(parsed.ok());
        ChatTemplate copy = *parsed;
        ChatTemplate moved = std::move(copy);
        copy = moved;
        auto a = moved.apply(withSystem, true);
        auto b = copy.apply(withSystem, true);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(*a, *b);
    }
};

QTEST_GUILESS_MAIN(TestChatTemplate)
#include "tst_chat_template.moc"
