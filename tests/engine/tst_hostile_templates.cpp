// SPDX-License-Identifier: MIT
// Chat templates come with model files from the internet. Each case here is a template written
// to crash, hang or exhaust the renderer; every one must end quickly with the text or a clear
// error. The hardening step (scripts/check-hardening.sh) runs this under AddressSanitizer,
// LeakSanitizer and UBSan, which is what catches the out-of-bounds reads and leaks.

#include <hearth/chat.h>

#include "chat/jinja_interpreter.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"

#include <QFile>
#include <QTest>

#include <string>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>
#endif

using hearth::ChatMessage;
using hearth::ChatTemplate;

namespace {

const std::vector<ChatMessage> conversation{
    {"system", "You are helpful."},
    {"user", "Hello!"},
    {"assistant", "Hi there."},
    {"user", "How are you?"},
};

hearth::Result<std::string> render(const std::string& source)
{
    auto tmpl = ChatTemplate::fromJinja(source, "<s>", "</s>");
    if (!tmpl)
        return tmpl.status();
    return tmpl->apply(conversation, true);
}

QString outcome(const std::string& source)
{
    auto r = render(source);
    return QString::fromStdString(r ? *r : "ERROR: " + r.message());
}

// A namespace whose x is a list holding the previous x twice, forty times over: 2^40 paths
// through 41 lists.
const std::string doubled = "{% set ns = namespace(x=[1], y=[1]) %}{% for i in range(40) %}"
                            "{% set ns.x = [ns.x, ns.x] %}{% set ns.y = [ns.y, ns.y] %}{% endfor %}";

// A million lists, each holding the one before.
const std::string millionDeep = "{% set ns = namespace(x=0) %}{% for i in range(999999) %}{% set ns.x = [ns.x] %}{% endfor %}";


} // namespace

class TestHostileTemplates : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hostileTemplatesEndWithAnError_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const std::string& source, const char* message) {
            QTest::newRow(name) << QString::fromStdString(source) << QString::fromLatin1(message);
        };
        // Values that hold others many times over: walking them is charged per element.
        row("doubled list printed", doubled + "{{ ns.x }}", "too ");
        row("doubled list compared", doubled + "{{ ns.x == ns.y }}", "too much work");
        row("doubled list to json", doubled + "{{ ns.x | tojson }}", "too ");
        row("doubled list joined", doubled + "{{ ns.x | join }}", "too ");
        row("doubled list in a test", doubled + "{{ ns.x in [ns.y] }}", "too much work");
        // Deep values: walking them is an error, not a stack overflow.
        row("deep lists compared",
            "{% set ns = namespace(x=0, y=0) %}{% for i in range(1000) %}{% set ns.x = [ns.x] %}{% set ns.y = [ns.y] %}{% endfor %}{{ ns.x == ns.y }}",
            "nested this deeply");
        row("deep list to json", millionDeep + "{{ ns.x | tojson }}", "nested too deeply");
        row("namespace that holds itself to json", "{% set ns = namespace() %}{% set ns.self = ns %}{{ ns | tojson }}", "nested too deeply");
        // Filters and methods are charged for the text they read.
        row("upper of a large string in a loop", "{% set s = 'x' * 10000000 %}{% for i in range(100000) %}{% set t = s | upper %}{% endfor %}",
            "too much work");
        row("trim of a large string in a loop", "{% set s = ' ' * 10000000 %}{% for i in range(100000) %}{% set t = s | trim %}{% endfor %}",
            "too much work");
        row("printing a large string in a loop", "{% set s = 'x' * 1000000 %}{% for i in range(100000) %}{{ s }}{% endfor %}", "too ");
        row("worst-case search", "{% set h = 'a' * 20000000 %}{% set n = 'a' * 10000000 + 'b' %}{{ h.find(n) }}", "too much work");
        row("worst-case 'in'", "{% set h = 'a' * 20000000 %}{% set n = 'a' * 10000000 + 'b' %}{{ n in h }}", "too much work");
        row("worst-case replace", "{% set h = 'a' * 20000000 %}{{ h.replace('a' * 10000000 + 'b', '') }}", "too much work");
        row("quadratic list building", "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + [i] %}{% endfor %}",
            "too much work");
        // Sizes count bytes, not slots.
        row("repeated list of large strings joined", "{% set s = 'x' * 60000000 %}{{ ([s] * 4000000) | join | length }}", "too large");
        row("indent with a huge width", "{{ ('a\\n' * 1000000) | indent('x' * 1000) }}", "too large");
        row("too many list items", "{{ ([1, 2, 3, 4] * 2000000) | length }}", "too large");
        row("live memory", "{% set ns = namespace(l=[]) %}{% for i in range(300) %}{% set ns.l = ns.l + ['x' * 1000000] %}{% endfor %}",
            "too much data");
        // Integer arithmetic checks for overflow.
        row("sum overflow", "{{ [9223372036854775807, 1] | sum }}", "integer overflow");
        row("unique of lists", "{{ [[1], [1]] | unique | list }}", "unhashable");
        // Only namespaces change.
        row("set attribute on a message", "{% set messages[0].role = 'x' %}", "");
        row("set attribute on a dict", "{% set d = {'a': 1} %}{% set d.a = 2 %}", "only on a namespace");
        row("set attribute on loop", "{% for m in messages %}{% set loop.self = loop %}{% endfor %}", "only on a namespace");
    }

    void hostileTemplatesEndWithAnError()
    {
        QFETCH(QString, source);
        QFETCH(QString, message);
        auto r = render(source.toStdString());
        QVERIFY2(!r.ok(), qPrintable(QStringLiteral("rendered %1 bytes").arg(r.ok() ? r->size() : 0)));
        QVERIFY2(QString::fromStdString(r.message()).contains(message), r.message().c_str());
        if (message.startsWith(QLatin1String("too")) || message.startsWith(QLatin1String("nested")))
            QCOMPARE(r.code(), hearth::ErrorCode::LimitExceeded); // the app falls back to a built-in template
    }

    void hostileTemplatesThatMayRender_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const std::string& source, const char* expected) {
            QTest::newRow(name) << QString::fromStdString(source) << QString::fromUtf8(expected);
        };
        // Slices whose step would overflow the index.
        row("slice with a huge step", "{{ [1, 2][1::9223372036854775807] }}", "[2]");
        row("slice with the most negative step", "{{ [1, 2, 3][::-9223372036854775807 - 1] }}", "[3]");
        row("string slice with a huge step", "{{ 'abc'[0::9223372036854775807] }}", "a");
        row("slice with huge bounds", "{{ [1, 2, 3][-9223372036854775807:9223372036854775807:2] }}", "[1, 3]");
        // range() near the ends of int64.
        row("range next to the maximum", "{{ range(9223372036854775806, 9223372036854775807, 9223372036854775807) | list }}",
            "[9223372036854775806]");
        row("range across int64", "{{ range(-9223372036854775807, 9223372036854775807, 4611686018427387904) | list }}",
            "[-9223372036854775807, -4611686018427387903, 1, 4611686018427387905]");
        row("descending range near the minimum", "{{ range(-9223372036854775807, -9223372036854775807 - 1, -9223372036854775807) | list }}",
            "[-9223372036854775807]");
        // Floats where an integer is expected saturate instead of overflowing.
        row("replace count 1e300", "{{ 'aaa'.replace('a', 'b', 1e300) }}", "bbb");
        row("replace filter count -1e300", "{{ 'aaa' | replace('a', 'b', -1e300) }}", "bbb"); // negative: all, as Python
        row("split maxsplit 1e300", "{{ 'a b c'.split(' ', 1e300) }}", "['a', 'b', 'c']");
        row("round precision 1e300", "{{ 1.25 | round(1e300) }}", "1.25");
        row("int default 1e300", "{{ 'x' | int(1e300) }}", "9223372036854775807");
        // A namespace that holds itself: printing stops at the depth limit, comparing is identity.
        row("namespace that holds itself", "{% set ns = namespace() %}{% set ns.self = ns %}{{ (ns | string)[:20] }} {{ ns == ns }}",
            "{'self': {'self': {' True");
        // A million nested lists are built and freed without recursion.
        row("million-deep list", millionDeep + "{{ ns.x == ns.x }} {{ (ns.x | string)[:6] }}", "True [[[[[[");
        // Sharing is cheap: a thousand copies of one large string are a thousand slots.
        row("repeated large string", "{% set s = 'x' * 60000000 %}{{ ([s] * 1000) | length }}", "1000");
        // |unique is linear (hashing) and case-insensitive by default, as Jinja's.
        row("unique of many", "{{ (range(200000) | list + range(200000) | list) | unique | list | length }}", "200000");
        row("unique ignores case", "{{ ['a', 'A', 'b', 1, 1.0, True] | unique | list }}", "['a', 'b', 1]");
        row("unique case-sensitive", "{{ ['a', 'A'] | unique(case_sensitive=true) | list }}", "['a', 'A']");
        row("unique by attribute", "{{ messages | unique(attribute='role') | map(attribute='role') | join(',') }}", "system,user,assistant");
        // Knowing which values are namespaces is a lookup, not a search through every one made.
        row("many namespaces", "{% for i in range(100000) %}{% set ns = namespace(a=1) %}{% set ns.a = 2 %}{% endfor %}done", "done");
        // strip() with a long set of characters is a table, not a search per byte.
        row("trim with a long set", "{{ (('x' * 10000000) | trim('y' * 10000000)) | length }}", "10000000");
    }

    void hostileTemplatesThatMayRender()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QCOMPARE(outcome(source.toStdString()), expected);
    }

    void realTemplatesSpendLittle()
    {
        // A hundred turns through a real template with tools costs a small part of the budget.
        using namespace hearth::jinja;
        // The published Qwen 2.5 template (tools, namespaces, tojson).
        QFile file(QStringLiteral(HEARTH_TEST_DATA_DIR "/templates/qwen2.5-instruct.jinja"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string source = file.readAll().toStdString();
        auto tokens = tokenize(source);
        QVERIFY(tokens.ok());
        auto body = parse(*tokens);
        QVERIFY(body.ok());
        ValueList messages;
        for (int i = 0; i < 100; ++i) {
            ValueDict m;
            m.set("role", Value(i % 2 ? "assistant" : "user"));
            m.set("content", Value(std::string(2000, 'w')));
            messages.emplace_back(std::move(m));
        }
        ValueDict tool;
        tool.set("name", Value("get_weather"));
        tool.set("parameters", Value(ValueDict{}));
        ValueDict globals;
        globals.set("messages", Value(std::move(messages)));
        globals.set("tools", Value(ValueList{Value(std::move(tool))}));
        globals.set("add_generation_prompt", Value(true));
        RenderLimits tight;
        tight.maxSteps = RenderLimits{}.maxSteps / 100;
        tight.maxMemoryBytes = 4u << 20;
        auto text = render(*body, globals, tight);
        QVERIFY2(text.ok(), text.message().c_str());
        QVERIFY(text->size() > 200'000);
        QVERIFY(text->ends_with("<|im_start|>assistant\n"));
    }

    void memoryStaysBounded()
    {
        // Every case above ran in this process; what it took at most is bounded by the render
        // budget (256 MiB alive, 64 MiB per string) plus the test itself, far from the tens of
        // gigabytes these templates used to take. Sanitizer builds add their own shadow memory.
#if defined(__unix__) && !defined(__SANITIZE_ADDRESS__)
        rusage usage{};
        QCOMPARE(getrusage(RUSAGE_SELF, &usage), 0);
        const long peakMiB = usage.ru_maxrss / 1024;
        QVERIFY2(peakMiB < 1536, qPrintable(QStringLiteral("peak resident memory %1 MiB").arg(peakMiB)));
#else
        QSKIP("peak memory is only meaningful without sanitizers, on Unix");
#endif
    }
};

QTEST_GUILESS_MAIN(TestHostileTemplates)
#include "tst_hostile_templates.moc"
