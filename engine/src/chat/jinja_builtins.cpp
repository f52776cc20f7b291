// SPDX-License-Identifier: MIT
#include "chat/jinja_builtins.h"

#include "chat/checked_math.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <limits>
#include <unordered_set>

namespace hearth::jinja {

namespace {

Status fail(const std::string& message)
{
    return {ErrorCode::InvalidArgument, message};
}

Status tooLarge(const std::string& message)
{
    return {ErrorCode::LimitExceeded, message};
}

bool isPySpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool isAlpha(char c)
{
    // Bytes of multi-byte UTF-8 characters count as letters so that "élan" stays one word.
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (static_cast<unsigned char>(c) >= 0x80);
}

char toUpper(char c)
{
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

char toLower(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string upper(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), toUpper);
    return s;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), toLower);
    return s;
}

std::string capitalize(const std::string& s)
{
    std::string out = lower(s);
    if (!out.empty())
        out[0] = toUpper(out[0]);
    return out;
}

std::string title(const std::string& s)
{
    std::string out = s;
    bool previousIsLetter = false;
    for (char& c : out) {
        c = previousIsLetter ? toLower(c) : toUpper(c);
        previousIsLetter = isAlpha(c);
    }
    return out;
}

std::size_t codePointCount(const std::string& s)
{
    std::size_t n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

Result<std::string> replace(const std::string& s, const std::string& from, const std::string& to, std::int64_t count)
{
    spendSearch(s.size(), from.size());
    std::string out;
    std::size_t pos = 0;
    std::int64_t done = 0;
    if (from.empty()) {
        // Python inserts the replacement between characters (and at both ends).
        for (std::size_t i = 0; i <= s.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            if (i < s.size())
                out += s[i];
            if (out.size() > MaxCollectionSize)
                return tooLarge("replace() result is too large");
        }
        return out;
    }
    while (count < 0 || done < count) {
        const std::size_t hit = s.find(from, pos);
        if (hit == std::string::npos)
            break;
        out.append(s, pos, hit - pos);
        out += to;
        pos = hit + from.size();
        ++done;
        if (out.size() > MaxCollectionSize)
            return tooLarge("replace() result is too large");
    }
    out.append(s, pos, std::string::npos);
    return out;
}

ValueList split(const std::string& s, const Value* sep, std::int64_t maxSplit)
{
    ValueList parts;
    if (!sep || sep->isNone() || sep->isUndefined() || !sep->isString() || sep->asString().empty()) {
        // Python's str.split(): runs of whitespace separate, no empty parts.
        std::size_t i = 0;
        while (i < s.size()) {
            while (i < s.size() && isPySpace(s[i]))
                ++i;
            if (i >= s.size())
                break;
            if (maxSplit >= 0 && static_cast<std::int64_t>(parts.size()) >= maxSplit) {
                parts.emplace_back(strip(s.substr(i), StripSide::Right));
                return parts;
            }
            std::size_t j = i;
            while (j < s.size() && !isPySpace(s[j]))
                ++j;
            parts.emplace_back(s.substr(i, j - i));
            i = j;
        }
        return parts;
    }
    const std::string& separator = sep->asString();
    spendSearch(s.size(), separator.size());
    std::size_t pos = 0;
    while (maxSplit < 0 || static_cast<std::int64_t>(parts.size()) < maxSplit) {
        const std::size_t hit = s.find(separator, pos);
        if (hit == std::string::npos)
            break;
        parts.emplace_back(s.substr(pos, hit - pos));
        pos = hit + separator.size();
    }
    parts.emplace_back(s.substr(pos));
    return parts;
}

std::int64_t intArg(const CallArgs& args, std::string_view name, std::size_t index, std::int64_t fallback)
{
    const Value* v = args.get(name, index);
    if (!v || (!v->isInt() && !v->isFloat() && !v->isBool()))
        return fallback;
    if (v->isInt())
        return v->asInt();
    // A float outside int64's range does not convert (undefined behaviour); it saturates, which
    // is what a count or a maximum of that size means anyway.
    const double d = v->asNumber();
    if (std::isnan(d))
        return fallback;
    if (d >= 9.2e18)
        return std::numeric_limits<std::int64_t>::max();
    if (d <= -9.2e18)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}

std::string stringArg(const CallArgs& args, std::string_view name, std::size_t index, const std::string& fallback = {})
{
    const Value* v = args.get(name, index);
    return v && !v->isUndefined() && !v->isNone() ? v->str() : fallback;
}

bool boolArg(const CallArgs& args, std::string_view name, std::size_t index, bool fallback)
{
    const Value* v = args.get(name, index);
    return v && !v->isUndefined() ? v->truthy() : fallback;
}

// Elements of anything iterable: list items, dict keys, string characters (UTF-8 aware).
Result<ValueList> iterate(const Value& v)
{
    spendSteps(v.isList() ? v.asList().size() : v.isDict() ? v.asDict().entries.size() : 0);
    switch (v.kind()) {
    case Value::Kind::List:
        return v.asList();
    case Value::Kind::Dict: {
        ValueList keys;
        for (const auto& [k, _] : v.asDict().entries)
            keys.emplace_back(k);
        return keys;
    }
    case Value::Kind::String: {
        ValueList chars;
        const std::string& s = v.asString();
        for (std::size_t i = 0; i < s.size();) {
            std::size_t j = i + 1;
            while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80)
                ++j;
            chars.emplace_back(s.substr(i, j - i));
            i = j;
        }
        return chars;
    }
    case Value::Kind::Undefined:
    case Value::Kind::None:
        return ValueList{};
    default:
        return fail(std::string("'").append(v.typeName()).append("' object is not iterable"));
    }
}

// item.attribute with Jinja's dotted paths ("user.name") and integer indices.
Value attributeOf(const Value& item, const std::string& path)
{
    Value current = item;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = std::min(path.find('.', start), path.size());
        const std::string part = path.substr(start, dot - start);
        if (current.isDict()) {
            const Value* v = current.asDict().find(part);
            current = v ? *v : Value();
        } else if (current.isList()) {
            std::int64_t index = 0;
            const auto r = std::from_chars(part.data(), part.data() + part.size(), index);
            const auto& list = current.asList();
            current = (r.ec == std::errc() && index >= 0 && static_cast<std::size_t>(index) < list.size()) ? list[static_cast<std::size_t>(index)] : Value();
        } else {
            return {};
        }
        start = dot + 1;
    }
    return current;
}

Result<Value> selectOrReject(const Value& input, const CallArgs& args, bool byAttribute, bool select)
{
    auto items = iterate(input);
    if (!items)
        return items.status();
    ValueList out;
    const std::size_t testIndex = byAttribute ? 1 : 0;
    const Value* testName = args.get("", testIndex);
    CallArgs testArgs;
    for (std::size_t i = testIndex + 1; i < args.positional.size(); ++i)
        testArgs.positional.push_back(args.positional[i]);
    for (const auto& item : *items) {
        Value subject = item;
        if (byAttribute) {
            const Value* attr = args.get("", 0);
            if (!attr || !attr->isString())
                return fail("selectattr/rejectattr need an attribute name");
            subject = attributeOf(item, attr->asString());
        }
        bool passed = subject.truthy();
        if (testName) {
            if (!testName->isString())
                return fail("the test name must be a string");
            auto r = applyTest(testName->asString(), subject, testArgs);
            if (!r)
                return r.status();
            passed = *r;
        }
        if (passed == select)
            out.push_back(item);
    }
    return Value(std::move(out));
}

Result<Value> sortValues(const Value& input, const CallArgs& args)
{
    auto items = iterate(input);
    if (!items)
        return items.status();
    const bool reverse = boolArg(args, "reverse", 0, false);
    const bool caseSensitive = boolArg(args, "case_sensitive", 1, false);
    const std::string attribute = stringArg(args, "attribute", 2);
    // Keys once per item, not once per comparison.
    std::vector<std::pair<Value, std::size_t>> keyed;
    keyed.reserve(items->size());
    for (std::size_t i = 0; i < items->size(); ++i) {
        Value k = attribute.empty() ? (*items)[i] : attributeOf((*items)[i], attribute);
        if (!caseSensitive && k.isString())
            k = Value(lower(k.asString()));
        keyed.emplace_back(std::move(k), i);
    }
    bool comparable = true;
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
        spendSteps();
        const auto c = compareValues(a.first, b.first);
        if (!c) {
            comparable = false;
            return false;
        }
        return reverse ? *c > 0 : *c < 0;
    });
    if (!comparable)
        return fail("sort: values of different types cannot be ordered");
    ValueList sorted;
    sorted.reserve(keyed.size());
    for (const auto& [_, index] : keyed)
        sorted.push_back((*items)[index]);
    return Value(std::move(sorted));
}

// |unique keeps the first of equal items, as Jinja does with a set of seen keys: hashing keeps it
// linear where comparing each item with every kept one was quadratic.
Result<Value> uniqueValues(const Value& input, const CallArgs& args)
{
    auto items = iterate(input);
    if (!items)
        return items.status();
    const bool caseSensitive = boolArg(args, "case_sensitive", 0, false);
    const std::string attribute = stringArg(args, "attribute", 1);
    std::unordered_set<std::string> seen;
    ValueList out;
    for (const auto& item : *items) {
        const Value key = attribute.empty() ? item : attributeOf(item, attribute);
        // Python's hash equality: 1, 1.0 and True are one key; lists and dicts have no hash.
        std::string hashKey;
        if (key.isString()) {
            spendScan(key.asString().size());
            hashKey = "s" + (caseSensitive ? key.asString() : lower(key.asString()));
        } else if (key.isNumber() || key.isBool()) {
            const double d = key.asNumber();
            hashKey = (key.isFloat() && d != std::floor(d)) || !std::isfinite(d) || std::abs(d) >= 9.2e18
                          ? "f" + formatFloat(d)
                          : "i" + std::to_string(key.isInt() ? key.asInt() : static_cast<std::int64_t>(d));
        } else if (key.isNone() || key.isUndefined()) {
            hashKey = "n";
        } else {
            return fail("unique: unhashable type '" + key.typeName() + "'");
        }
        if (seen.insert(std::move(hashKey)).second)
            out.push_back(item);
    }
    return Value(std::move(out));
}

Result<Value> toInt(const Value& v, std::int64_t fallback)
{
    if (v.isInt())
        return v;
    if (v.isBool())
        return Value(std::int64_t(v.asBool()));
    if (v.isFloat()) {
        const double d = v.asNumber();
        if (!std::isfinite(d) || std::abs(d) > 9.2e18)
            return Value(fallback);
        return Value(static_cast<std::int64_t>(d));
    }
    if (v.isString()) {
        const std::string s = strip(v.asString(), StripSide::Both);
        std::int64_t i = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), i);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size())
            return Value(i);
        double d = 0;
        const auto rd = std::from_chars(s.data(), s.data() + s.size(), d);
        if (rd.ec == std::errc() && rd.ptr == s.data() + s.size() && std::isfinite(d) && std::abs(d) < 9.2e18)
            return Value(static_cast<std::int64_t>(d));
    }
    return Value(fallback);
}

Value toFloat(const Value& v, double fallback)
{
    if (v.isNumber() || v.isBool())
        return Value(v.asNumber());
    if (v.isString()) {
        const std::string s = strip(v.asString(), StripSide::Both);
        double d = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size())
            return Value(d);
    }
    return Value(fallback);
}

std::string indent(const std::string& s, const std::string& pad, bool first, bool blank)
{
    std::string out;
    std::size_t start = 0;
    bool isFirst = true;
    while (start <= s.size()) {
        const std::size_t nl = s.find('\n', start);
        const std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if ((!isFirst || first) && (blank || !line.empty()))
            out += pad;
        out += line;
        if (out.size() > MaxCollectionSize)
            throw RenderAborted("indent() result is too large");
        if (nl == std::string::npos)
            break;
        out += '\n';
        start = nl + 1;
        isFirst = false;
    }
    return out;
}

} // namespace

std::string strip(const std::string& s, StripSide side, const std::string& chars)
{
    // A table, not chars.find(): a template may strip a long string with a long set of characters.
    bool inSet[256] = {};
    for (const char c : chars)
        inSet[static_cast<unsigned char>(c)] = true;
    const auto strippable = [&](char c) { return chars.empty() ? isPySpace(c) : inSet[static_cast<unsigned char>(c)]; };
    std::size_t begin = 0;
    std::size_t end = s.size();
    if (side != StripSide::Right) {
        while (begin < end && strippable(s[begin]))
            ++begin;
    }
    if (side != StripSide::Left) {
        while (end > begin && strippable(s[end - 1]))
            --end;
    }
    return s.substr(begin, end - begin);
}

namespace {

// Every filter, test and method costs a step and reads its string input and arguments once; the
// ones that walk lists charge per item in iterate(), searches charge in spendSearch().
void spendOnCall(const Value& input, const CallArgs& args)
{
    std::size_t bytes = input.isString() ? input.asString().size() : 0;
    for (const auto& v : args.positional)
        bytes += v.isString() ? v.asString().size() : 0;
    for (const auto& [_, v] : args.named)
        bytes += v.isString() ? v.asString().size() : 0;
    spendScan(bytes);
}

} // namespace

Result<Value> applyFilter(const std::string& name, const Value& input, const CallArgs& args)
{
    spendOnCall(input, args);
    if (name == "safe" || name == "e" || name == "escape" || name == "forceescape")
        return input; // chat templates render text, not HTML: nothing is escaped
    if (name == "string")
        return Value(input.str());
    if (name == "trim")
        return Value(strip(input.str(), StripSide::Both, stringArg(args, "chars", 0)));
    if (name == "upper")
        return Value(upper(input.str()));
    if (name == "lower")
        return Value(lower(input.str()));
    if (name == "capitalize")
        return Value(capitalize(input.str()));
    if (name == "title")
        return Value(title(input.str()));
    if (name == "length" || name == "count") {
        if (input.isString())
            return Value(static_cast<std::int64_t>(codePointCount(input.asString())));
        if (input.isList())
            return Value(static_cast<std::int64_t>(input.asList().size()));
        if (input.isDict())
            return Value(static_cast<std::int64_t>(input.asDict().entries.size()));
        if (input.isUndefined() || input.isNone())
            return Value(std::int64_t(0));
        return fail("object of type '" + input.typeName() + "' has no length");
    }
    if (name == "default" || name == "d") {
        const bool boolean = boolArg(args, "boolean", 1, false);
        const bool useDefault = input.isUndefined() || (boolean && !input.truthy());
        if (!useDefault)
            return input;
        const Value* fallback = args.get("default_value", 0);
        return fallback ? *fallback : Value(std::string());
    }
    if (name == "join") {
        auto items = iterate(input);
        if (!items)
            return items.status();
        const std::string separator = stringArg(args, "d", 0);
        const std::string attribute = stringArg(args, "attribute", 1);
        std::string out;
        bool first = true;
        for (const auto& item : *items) {
            if (!first)
                out += separator;
            first = false;
            out += attribute.empty() ? item.str() : attributeOf(item, attribute).str();
            if (out.size() > MaxCollectionSize)
                return tooLarge("join() result is too large");
        }
        return Value(std::move(out));
    }
    if (name == "first" || name == "last") {
        auto items = iterate(input);
        if (!items)
            return items.status();
        if (items->empty())
            return Value();
        return name == "first" ? items->front() : items->back();
    }
    if (name == "tojson") {
        const Value* indentArg = args.get("indent", 0);
        const int width = indentArg && indentArg->isInt() ? static_cast<int>(std::clamp<std::int64_t>(indentArg->asInt(), 0, 16)) : -1;
        return Value(input.toJson(width));
    }
    if (name == "replace") {
        if (args.positional.size() < 2 && !args.get("old", 0))
            return fail("replace needs the text to find and its replacement");
        auto r = replace(input.str(), stringArg(args, "old", 0), stringArg(args, "new", 1), intArg(args, "count", 2, -1));
        if (!r)
            return r.status();
        return Value(std::move(r).value());
    }
    if (name == "int")
        return toInt(input, intArg(args, "default", 0, 0));
    if (name == "float") {
        const Value* fallback = args.get("default", 0);
        return toFloat(input, fallback && (fallback->isNumber()) ? fallback->asNumber() : 0.0);
    }
    if (name == "abs") {
        if (input.isInt())
            return Value(input.asInt() == INT64_MIN ? input.asInt() : std::abs(input.asInt()));
        if (input.isFloat())
            return Value(std::abs(input.asNumber()));
        return fail("abs() needs a number");
    }
    if (name == "round") {
        const std::int64_t precision = std::clamp<std::int64_t>(intArg(args, "precision", 0, 0), 0, 15);
        const std::string method = stringArg(args, "method", 1, "common");
        const double scale = std::pow(10.0, static_cast<double>(precision));
        const double v = input.asNumber() * scale;
        const double r = method == "floor" ? std::floor(v) : method == "ceil" ? std::ceil(v) : std::round(v);
        return Value(r / scale);
    }
    if (name == "list") {
        auto items = iterate(input);
        if (!items)
            return items.status();
        return Value(std::move(items).value());
    }
    if (name == "items") {
        if (input.isUndefined() || input.isNone())
            return Value(ValueList{});
        if (!input.isDict())
            return fail("items() needs a dict");
        return callMethod(input, "items", {});
    }
    if (name == "reverse") {
        if (input.isString()) {
            auto chars = iterate(input);
            std::string out;
            for (auto it = chars->rbegin(); it != chars->rend(); ++it)
                out += it->asString();
            return Value(std::move(out));
        }
        auto items = iterate(input);
        if (!items)
            return items.status();
        ValueList list = std::move(items).value();
        std::reverse(list.begin(), list.end());
        return Value(std::move(list));
    }
    if (name == "sort")
        return sortValues(input, args);
    if (name == "unique")
        return uniqueValues(input, args);
    if (name == "selectattr" || name == "rejectattr")
        return selectOrReject(input, args, true, name == "selectattr");
    if (name == "select" || name == "reject")
        return selectOrReject(input, args, false, name == "select");
    if (name == "map") {
        auto items = iterate(input);
        if (!items)
            return items.status();
        ValueList out;
        const Value* attribute = args.get("attribute", SIZE_MAX);
        if (attribute) {
            const Value* fallback = args.get("default", SIZE_MAX);
            for (const auto& item : *items) {
                Value v = attributeOf(item, attribute->str());
                out.push_back(v.isUndefined() && fallback ? *fallback : v);
            }
            return Value(std::move(out));
        }
        if (args.positional.empty() || !args.positional[0].isString())
            return fail("map needs a filter name or attribute=");
        CallArgs rest;
        rest.positional.assign(args.positional.begin() + 1, args.positional.end());
        rest.named = args.named;
        for (const auto& item : *items) {
            auto v = applyFilter(args.positional[0].asString(), item, rest);
            if (!v)
                return v.status();
            out.push_back(std::move(v).value());
        }
        return Value(std::move(out));
    }
    if (name == "sum" || name == "min" || name == "max") {
        auto items = iterate(input);
        if (!items)
            return items.status();
        if (name == "sum") {
            bool isFloat = false;
            std::int64_t isum = 0;
            double fsum = 0;
            for (const auto& v : *items) {
                if (!v.isNumber() && !v.isBool())
                    return fail("sum() needs numbers");
                isFloat = isFloat || v.isFloat();
                if ((v.isInt() || v.isBool()) && addOverflows(isum, v.isInt() ? v.asInt() : std::int64_t(v.asBool()), isum))
                    return fail("sum(): integer overflow");
                fsum += v.asNumber();
            }
            return isFloat ? Value(fsum) : Value(isum);
        }
        if (items->empty())
            return Value();
        Value best = items->front();
        for (const auto& v : *items) {
            const auto c = compareValues(v, best);
            if (!c)
                return fail(name + "() needs comparable values");
            if ((name == "min" && *c < 0) || (name == "max" && *c > 0))
                best = v;
        }
        return best;
    }
    if (name == "indent") {
        const Value* width = args.get("width", 0);
        std::string pad = width && width->isString() ? width->asString() : std::string(static_cast<std::size_t>(std::clamp<std::int64_t>(intArg(args, "width", 0, 4), 0, 64)), ' ');
        return Value(indent(input.str(), pad, boolArg(args, "first", 1, false), boolArg(args, "blank", 2, false)));
    }
    if (name == "wordcount")
        return Value(static_cast<std::int64_t>(split(input.str(), nullptr, -1).size()));
    return fail("unknown filter '" + name + "'");
}

Result<bool> applyTest(const std::string& name, const Value& input, const CallArgs& args)
{
    spendOnCall(input, args);
    const Value* arg = args.get("", 0);
    const auto compare = [&](auto predicate) -> Result<bool> {
        if (!arg)
            return fail("test '" + name + "' needs an argument");
        const auto c = compareValues(input, *arg);
        if (!c)
            return fail("test '" + name + "': values do not compare");
        return predicate(*c);
    };
    if (name == "defined")
        return !input.isUndefined();
    if (name == "undefined")
        return input.isUndefined();
    if (name == "none")
        return input.isNone();
    if (name == "string")
        return input.isString();
    if (name == "number")
        return input.isNumber();
    if (name == "integer")
        return input.isInt();
    if (name == "float")
        return input.isFloat();
    if (name == "boolean")
        return input.isBool();
    if (name == "true")
        return input.isBool() && input.asBool();
    if (name == "false")
        return input.isBool() && !input.asBool();
    if (name == "mapping")
        return input.isDict();
    if (name == "sequence" || name == "iterable")
        return input.isList() || input.isString() || input.isDict();
    if (name == "callable")
        return input.isFunction();
    if (name == "odd" || name == "even") {
        if (!input.isInt())
            return fail("test '" + name + "' needs an integer");
        return (input.asInt() % 2 != 0) == (name == "odd");
    }
    if (name == "divisibleby") {
        if (!input.isInt() || !arg || !arg->isInt() || arg->asInt() == 0)
            return fail("divisibleby needs integers and a non-zero divisor");
        return input.asInt() % arg->asInt() == 0;
    }
    if (name == "lower")
        return input.isString() && lower(input.asString()) == input.asString();
    if (name == "upper")
        return input.isString() && upper(input.asString()) == input.asString();
    if (name == "eq" || name == "equalto" || name == "==" || name == "sameas")
        return arg && input.equals(*arg);
    if (name == "ne" || name == "!=")
        return !arg || !input.equals(*arg);
    if (name == "lt" || name == "lessthan" || name == "<")
        return compare([](int c) { return c < 0; });
    if (name == "le" || name == "<=")
        return compare([](int c) { return c <= 0; });
    if (name == "gt" || name == "greaterthan" || name == ">")
        return compare([](int c) { return c > 0; });
    if (name == "ge" || name == ">=")
        return compare([](int c) { return c >= 0; });
    if (name == "in") {
        if (!arg)
            return fail("test 'in' needs an argument");
        if (arg->isString()) {
            if (!input.isString())
                return false;
            spendSearch(arg->asString().size(), input.asString().size());
            return arg->asString().find(input.asString()) != std::string::npos;
        }
        if (arg->isDict())
            return input.isString() && arg->asDict().find(input.asString()) != nullptr;
        if (arg->isList())
            return std::any_of(arg->asList().begin(), arg->asList().end(), [&](const Value& v) { return v.equals(input); });
        return false;
    }
    return fail("unknown test '" + name + "'");
}

bool hasMethod(const Value& object, const std::string& name)
{
    static constexpr std::string_view stringMethods[] = {"strip",  "lstrip", "rstrip",     "startswith", "endswith", "split",
                                                         "upper",  "lower",  "title",      "capitalize", "replace",  "find",
                                                         "count",  "join",   "splitlines", "isdigit",    "isspace",  "rsplit"};
    static constexpr std::string_view dictMethods[] = {"items", "keys", "values", "get"};
    const auto contains = [&](const auto& names) {
        return std::find(std::begin(names), std::end(names), name) != std::end(names);
    };
    if (object.isString())
        return contains(stringMethods);
    if (object.isDict())
        return contains(dictMethods);
    return false;
}

Result<Value> callMethod(const Value& object, const std::string& name, const CallArgs& args)
{
    spendOnCall(object, args);
    if (object.isDict()) {
        const ValueDict& dict = object.asDict();
        if (name == "get") {
            const Value* key = args.get("key", 0);
            const Value* found = key && key->isString() ? dict.find(key->asString()) : nullptr;
            if (found)
                return *found;
            const Value* fallback = args.get("default", 1);
            return fallback ? *fallback : Value::none();
        }
        ValueList out;
        for (const auto& [k, v] : dict.entries) {
            if (name == "items")
                out.emplace_back(ValueList{Value(k), v});
            else if (name == "keys")
                out.emplace_back(k);
            else
                out.push_back(v);
        }
        return Value(std::move(out));
    }

    const std::string& s = object.asString();
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        const StripSide side = name == "strip" ? StripSide::Both : name == "lstrip" ? StripSide::Left : StripSide::Right;
        return Value(strip(s, side, stringArg(args, "chars", 0)));
    }
    if (name == "startswith" || name == "endswith") {
        const Value* arg = args.get("prefix", 0);
        if (!arg)
            return fail(name + "() needs an argument");
        const auto matches = [&](const Value& v) {
            if (!v.isString())
                return false;
            return name == "startswith" ? s.starts_with(v.asString()) : s.ends_with(v.asString());
        };
        if (arg->isList())
            return Value(std::any_of(arg->asList().begin(), arg->asList().end(), matches));
        return Value(matches(*arg));
    }
    if (name == "split" || name == "rsplit") // rsplit without maxsplit splits the same way
        return Value(split(s, args.get("sep", 0), name == "split" ? intArg(args, "maxsplit", 1, -1) : -1));
    if (name == "splitlines") {
        ValueList lines;
        std::size_t start = 0;
        while (start < s.size()) {
            std::size_t nl = s.find('\n', start);
            if (nl == std::string::npos)
                nl = s.size();
            std::string line = s.substr(start, nl - start);
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            lines.emplace_back(std::move(line));
            start = nl + 1;
        }
        return Value(std::move(lines));
    }
    if (name == "upper")
        return Value(upper(s));
    if (name == "lower")
        return Value(lower(s));
    if (name == "title")
        return Value(title(s));
    if (name == "capitalize")
        return Value(capitalize(s));
    if (name == "isdigit")
        return Value(!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }));
    if (name == "isspace")
        return Value(!s.empty() && std::all_of(s.begin(), s.end(), isPySpace));
    if (name == "replace") {
        if (args.positional.size() < 2)
            return fail("replace() needs the text to find and its replacement");
        auto r = replace(s, args.positional[0].str(), args.positional[1].str(), intArg(args, "count", 2, -1));
        if (!r)
            return r.status();
        return Value(std::move(r).value());
    }
    if (name == "find" || name == "count") {
        const std::string needle = stringArg(args, "sub", 0);
        spendSearch(s.size(), needle.size());
        if (name == "find") {
            const std::size_t hit = s.find(needle);
            return Value(hit == std::string::npos ? std::int64_t(-1) : static_cast<std::int64_t>(hit));
        }
        if (needle.empty())
            return Value(static_cast<std::int64_t>(codePointCount(s) + 1));
        std::int64_t n = 0;
        for (std::size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + needle.size()))
            ++n;
        return Value(n);
    }
    if (name == "join") {
        const Value* arg = args.get("iterable", 0);
        if (!arg)
            return fail("join() needs an argument");
        CallArgs joinArgs;
        joinArgs.positional.emplace_back(s);
        return applyFilter("join", *arg, joinArgs);
    }
    return fail("unknown method '" + name + "'");
}

ValueDict standardGlobals()
{
    ValueDict globals;
    globals.set("range", Value(NativeFunction([](const CallArgs& args) -> Result<Value> {
        std::int64_t start = 0;
        std::int64_t stop = 0;
        std::int64_t step = 1;
        for (const auto& a : args.positional) {
            if (!a.isInt())
                return fail("range() needs integers");
        }
        switch (args.positional.size()) {
        case 1:
            stop = args.positional[0].asInt();
            break;
        case 2:
        case 3:
            start = args.positional[0].asInt();
            stop = args.positional[1].asInt();
            if (args.positional.size() == 3)
                step = args.positional[2].asInt();
            break;
        default:
            return fail("range() takes one to three arguments");
        }
        if (step == 0)
            return fail("range() step must not be zero");
        ValueList out;
        for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
            if (out.size() >= 1'000'000)
                return tooLarge("range() is too long");
            out.emplace_back(i);
            if (addOverflows(i, step, i))
                break; // the next value would be past any stop
        }
        return Value(std::move(out));
    })));
    globals.set("namespace", Value(NativeFunction([](const CallArgs& args) -> Result<Value> {
        ValueDict ns;
        if (!args.positional.empty()) {
            if (!args.positional[0].isDict())
                return fail("namespace() takes keyword arguments or a dict");
            ns = args.positional[0].asDict();
        }
        for (const auto& [k, v] : args.named)
            ns.set(k, v);
        return Value(std::move(ns));
    })));
    globals.set("raise_exception", Value(NativeFunction([](const CallArgs& args) -> Result<Value> {
        const Value* message = args.get("message", 0);
        return fail(message ? message->str() : std::string("the chat template raised an exception"));
    })));
    // Llama 3.1+ templates print today's date.
    globals.set("strftime_now", Value(NativeFunction([](const CallArgs& args) -> Result<Value> {
        const Value* format = args.get("format", 0);
        if (!format || !format->isString() || format->asString().size() > 256)
            return fail("strftime_now() needs a format string");
        const std::time_t now = std::time(nullptr);
        std::tm local{};
#if defined(_WIN32)
        localtime_s(&local, &now);
#else
        localtime_r(&now, &local);
#endif
        char buffer[512];
        const std::size_t n = std::strftime(buffer, sizeof buffer, format->asString().c_str(), &local);
        return Value(std::string(buffer, n));
    })));
    return globals;
}

} // namespace hearth::jinja
