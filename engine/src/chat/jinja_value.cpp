// SPDX-License-Identifier: MIT
#include "chat/jinja_value.h"

#include "chat/jinja_budget.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace hearth::jinja {

namespace {

// Containers are freed one at a time from a work list instead of recursively: a template can nest
// a million lists ({% set ns.x = [ns.x] %} in a loop), and freeing that recursively would
// overflow the stack. The outermost free on a thread owns the list; frees it triggers join it.
struct PendingFree {
    ValueList* list = nullptr;
    ValueDict* dict = nullptr;
};
thread_local std::vector<PendingFree>* t_pendingFrees = nullptr;

void freeLater(PendingFree item) noexcept
{
    if (t_pendingFrees) {
        try {
            t_pendingFrees->push_back(item);
            return;
        } catch (...) {
            // No memory for the work list: free this one right away (nesting here is rare).
        }
        delete item.list;
        delete item.dict;
        return;
    }
    std::vector<PendingFree> pending;
    t_pendingFrees = &pending;
    for (PendingFree next = item;;) {
        delete next.list; // frees of its children land in `pending`
        delete next.dict;
        if (pending.empty())
            break;
        next = pending.back();
        pending.pop_back();
    }
    t_pendingFrees = nullptr;
}

// What a value costs beyond its contents: the shared block and the allocator's bookkeeping.
constexpr std::uint64_t Overhead = 64;

std::uint64_t bytesOf(const ValueDict& dict)
{
    return Overhead + dict.entries.size() * sizeof(dict.entries[0]);
}

} // namespace

// Creating a value charges the render for the time (one step per 64 bytes or per item) and for
// the memory, which the deleter gives back.
Value::Value(std::string v)
{
    const std::uint64_t bytes = Overhead + v.size();
    spendSteps(1 + v.size() / 64);
    spendMemory(bytes);
    m_data = std::shared_ptr<const std::string>(new std::string(std::move(v)), [bytes](const std::string* p) {
        releaseMemory(bytes);
        delete p;
    });
}

Value::Value(ValueList v)
{
    const std::uint64_t bytes = Overhead + v.size() * sizeof(Value);
    spendSteps(1 + v.size());
    spendMemory(bytes);
    m_data = std::shared_ptr<ValueList>(new ValueList(std::move(v)), [bytes](ValueList* p) {
        releaseMemory(bytes);
        freeLater({p, nullptr});
    });
}

Value::Value(ValueDict v)
{
    spendSteps(1 + v.entries.size());
    spendMemory(bytesOf(v));
    // A namespace grows after it is made (setAttribute), so the size is read when it is freed.
    m_data = std::shared_ptr<ValueDict>(new ValueDict(std::move(v)), [](ValueDict* p) {
        releaseMemory(bytesOf(*p));
        freeLater({nullptr, p});
    });
}

Value::Value(NativeFunction f)
{
    spendSteps();
    spendMemory(Overhead);
    m_data = std::shared_ptr<NativeFunction>(new NativeFunction(std::move(f)), [](NativeFunction* p) {
        releaseMemory(Overhead);
        delete p;
    });
}

const Value* ValueDict::find(std::string_view key) const
{
    // Linear, as dicts in templates are small; a template that sets thousands of names pays for it.
    spendSteps(entries.size() / 8);
    for (const auto& [k, v] : entries) {
        if (k == key)
            return &v;
    }
    return nullptr;
}

void ValueDict::set(std::string key, Value value)
{
    for (auto& [k, v] : entries) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    entries.emplace_back(std::move(key), std::move(value));
}

void ValueDict::setAttribute(std::string key, Value value)
{
    if (!find(key))
        spendMemory(sizeof(entries[0]));
    set(std::move(key), std::move(value));
}

const Value* CallArgs::get(std::string_view name, std::size_t index) const
{
    for (const auto& [k, v] : named) {
        if (k == name)
            return &v;
    }
    return index < positional.size() ? &positional[index] : nullptr;
}

Value Value::none()
{
    Value v;
    v.m_data = None{};
    return v;
}

double Value::asNumber() const
{
    switch (kind()) {
    case Kind::Int:
        return static_cast<double>(asInt());
    case Kind::Float:
        return std::get<double>(m_data);
    case Kind::Bool:
        return asBool() ? 1.0 : 0.0;
    default:
        return 0.0;
    }
}

bool Value::truthy() const
{
    switch (kind()) {
    case Kind::Undefined:
    case Kind::None:
        return false;
    case Kind::Bool:
        return asBool();
    case Kind::Int:
        return asInt() != 0;
    case Kind::Float:
        return asNumber() != 0.0;
    case Kind::String:
        return !asString().empty();
    case Kind::List:
        return !asList().empty();
    case Kind::Dict:
        return !asDict().entries.empty();
    case Kind::Function:
        return true;
    }
    return false;
}

std::string formatFloat(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".en") == std::string::npos)
        text += ".0";
    return text;
}

std::string Value::str() const
{
    switch (kind()) {
    case Kind::Undefined:
        return {};
    case Kind::None:
        return "None";
    case Kind::Bool:
        return asBool() ? "True" : "False";
    case Kind::Int:
        return std::to_string(asInt());
    case Kind::Float:
        return formatFloat(asNumber());
    case Kind::String:
        return asString();
    case Kind::List:
    case Kind::Dict:
        return repr();
    case Kind::Function:
        return "<function>";
    }
    return {};
}

namespace {

std::string pythonQuote(const std::string& s)
{
    // Python prefers single quotes and switches to double quotes when only those avoid escaping.
    const char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, quote);
    for (const char c : s) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c == quote)
                out += '\\';
            out += c;
        }
    }
    out += quote;
    return out;
}

void appendJsonString(std::string& out, const std::string& s)
{
    out += '"';
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (u < 0x20) {
                static constexpr char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c; // UTF-8 stays as is (ensure_ascii=False, as Hugging Face renders templates)
            }
        }
    }
    out += '"';
}

} // namespace

std::string Value::repr() const
{
    std::string out;
    appendRepr(out, 0);
    return out;
}

namespace {

void checkTextSize(const std::string& out)
{
    if (out.size() > MaxCollectionSize)
        throw RenderAborted("the text of a value is too large (more than " + std::to_string(MaxCollectionSize >> 20) + " MiB)");
}

} // namespace

void Value::appendRepr(std::string& out, int depth) const
{
    spendSteps();
    checkTextSize(out);
    if (depth > MaxValueNesting && (isList() || isDict())) {
        out += "..."; // as Python prints a list that holds itself
        return;
    }
    switch (kind()) {
    case Kind::String:
        spendScan(asString().size());
        out += pythonQuote(asString());
        break;
    case Kind::List: {
        out += '[';
        bool first = true;
        for (const auto& item : asList()) {
            if (!first)
                out += ", ";
            first = false;
            item.appendRepr(out, depth + 1);
        }
        out += ']';
        break;
    }
    case Kind::Dict: {
        out += '{';
        bool first = true;
        for (const auto& [k, v] : asDict().entries) {
            if (!first)
                out += ", ";
            first = false;
            out += pythonQuote(k);
            out += ": ";
            v.appendRepr(out, depth + 1);
        }
        out += '}';
        break;
    }
    case Kind::Undefined:
        out += "None";
        break;
    default:
        out += str();
    }
}

void Value::appendJson(std::string& out, int indent, int level) const
{
    const auto newline = [&](int depth) {
        if (indent < 0)
            return;
        out += '\n';
        out.append(static_cast<std::size_t>(indent * depth), ' ');
    };
    spendSteps();
    checkTextSize(out);
    if (level > MaxValueNesting)
        throw RenderAborted("tojson: values are nested too deeply (a value that holds itself?)");
    switch (kind()) {
    case Kind::Undefined:
    case Kind::None:
    case Kind::Function:
        out += "null";
        break;
    case Kind::Bool:
        out += asBool() ? "true" : "false";
        break;
    case Kind::Int:
        out += std::to_string(asInt());
        break;
    case Kind::Float: {
        const double v = asNumber();
        // Python writes NaN/Infinity (not JSON, but what the model saw in training).
        out += std::isnan(v) ? "NaN" : std::isinf(v) ? (v > 0 ? "Infinity" : "-Infinity") : formatFloat(v);
        break;
    }
    case Kind::String:
        spendScan(asString().size());
        appendJsonString(out, asString());
        break;
    case Kind::List: {
        const auto& list = asList();
        out += '[';
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (i > 0)
                out += indent < 0 ? ", " : ",";
            newline(level + 1);
            list[i].appendJson(out, indent, level + 1);
        }
        if (!list.empty())
            newline(level);
        out += ']';
        break;
    }
    case Kind::Dict: {
        const auto& entries = asDict().entries;
        out += '{';
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i > 0)
                out += indent < 0 ? ", " : ",";
            newline(level + 1);
            appendJsonString(out, entries[i].first);
            out += ": ";
            entries[i].second.appendJson(out, indent, level + 1);
        }
        if (!entries.empty())
            newline(level);
        out += '}';
        break;
    }
    }
}

std::string Value::toJson(int indent) const
{
    std::string out;
    appendJson(out, indent, 0);
    return out;
}

bool Value::equals(const Value& other) const
{
    return equalsAt(other, 0);
}

bool Value::sameObject(const Value& other) const
{
    if (isList() && other.isList())
        return &asList() == &other.asList();
    if (isDict() && other.isDict())
        return &asDict() == &other.asDict();
    if (isFunction() && other.isFunction())
        return &asFunction() == &other.asFunction();
    return false;
}

bool Value::equalsAt(const Value& other, int depth) const
{
    spendSteps();
    if (depth > MaxValueNesting)
        throw RenderAborted("cannot compare values nested this deeply (a value that holds itself?)");
    if (sameObject(other))
        return true;
    const bool numeric = (isNumber() || isBool()) && (other.isNumber() || other.isBool());
    if (numeric) {
        if ((isInt() || isBool()) && (other.isInt() || other.isBool()))
            return (isBool() ? std::int64_t(asBool()) : asInt()) == (other.isBool() ? std::int64_t(other.asBool()) : other.asInt());
        return asNumber() == other.asNumber();
    }
    if (kind() != other.kind())
        return false;
    switch (kind()) {
    case Kind::Undefined:
    case Kind::None:
        return true;
    case Kind::String:
        spendScan(std::min(asString().size(), other.asString().size()));
        return asString() == other.asString();
    case Kind::List: {
        const auto& a = asList();
        const auto& b = other.asList();
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!a[i].equalsAt(b[i], depth + 1))
                return false;
        }
        return true;
    }
    case Kind::Dict: {
        const auto& a = asDict().entries;
        const auto& b = other.asDict();
        if (a.size() != b.entries.size())
            return false;
        for (const auto& [k, v] : a) {
            const Value* w = b.find(k);
            if (!w || !v.equalsAt(*w, depth + 1))
                return false;
        }
        return true;
    }
    default: // functions are equal only to themselves (sameObject above)
        return false;
    }
}

std::optional<int> compareValues(const Value& a, const Value& b)
{
    if ((a.isNumber() || a.isBool()) && (b.isNumber() || b.isBool())) {
        if (a.isInt() && b.isInt())
            return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
        const double x = a.asNumber();
        const double y = b.asNumber();
        if (std::isnan(x) || std::isnan(y))
            return std::nullopt;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.isString() && b.isString()) {
        spendScan(std::min(a.asString().size(), b.asString().size()));
        const int c = a.asString().compare(b.asString());
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    return std::nullopt;
}

std::string Value::typeName() const
{
    switch (kind()) {
    case Kind::Undefined:
        return "undefined";
    case Kind::None:
        return "none";
    case Kind::Bool:
        return "bool";
    case Kind::Int:
        return "int";
    case Kind::Float:
        return "float";
    case Kind::String:
        return "string";
    case Kind::List:
        return "list";
    case Kind::Dict:
        return "dict";
    case Kind::Function:
        return "function";
    }
    return "value";
}

} // namespace hearth::jinja
