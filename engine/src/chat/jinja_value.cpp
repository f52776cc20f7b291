// SPDX-License-Identifier: MIT
#include "chat/jinja_value.h"

#include <charconv>
#include <cmath>

namespace hearth::jinja {

const Value* ValueDict::find(std::string_view key) const
{
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

namespace {
constexpr int MaxNesting = 64;
}

std::string Value::repr() const
{
    return reprAt(0);
}

std::string Value::reprAt(int depth) const
{
    if (depth > MaxNesting && (isList() || isDict()))
        return "...";
    switch (kind()) {
    case Kind::String:
        return pythonQuote(asString());
    case Kind::List: {
        std::string out = "[";
        bool first = true;
        for (const auto& item : asList()) {
            if (!first)
                out += ", ";
            first = false;
            out += item.reprAt(depth + 1);
        }
        return out + "]";
    }
    case Kind::Dict: {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, v] : asDict().entries) {
            if (!first)
                out += ", ";
            first = false;
            out += pythonQuote(k) + ": " + v.reprAt(depth + 1);
        }
        return out + "}";
    }
    case Kind::Undefined:
        return "None";
    default:
        return str();
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
    if (level > MaxNesting) {
        out += "null";
        return;
    }
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

bool Value::equalsAt(const Value& other, int depth) const
{
    if (depth > MaxNesting)
        return false;
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
    case Kind::Function:
        return std::get<std::shared_ptr<NativeFunction>>(m_data) == std::get<std::shared_ptr<NativeFunction>>(other.m_data);
    default:
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
