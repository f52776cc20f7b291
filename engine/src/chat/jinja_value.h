// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The dynamic value of the Jinja interpreter: Python-like semantics for what chat templates use.

#include <hearth/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hearth::jinja {

class Value;

using ValueList = std::vector<Value>;

/// A dictionary with string keys that keeps insertion order, as Python's dict does: templates
/// iterate over items() and tojson prints keys in the order they were written.
struct ValueDict {
    std::vector<std::pair<std::string, Value>> entries;

    [[nodiscard]] const Value* find(std::string_view key) const;
    void set(std::string key, Value value);
    /// set() on a dict a Value holds (a namespace): a new entry is charged to the render.
    void setAttribute(std::string key, Value value);
};

/// Arguments of a call, a filter or a test, already evaluated.
struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> named;

    /// The named argument @p name, else positional @p index, else nullptr.
    [[nodiscard]] const Value* get(std::string_view name, std::size_t index) const;
};

using NativeFunction = std::function<Result<Value>(const CallArgs&)>;

class Value {
public:
    enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Function };

    Value() = default; ///< undefined
    Value(bool v) : m_data(v) {}
    Value(int v) : m_data(std::int64_t(v)) {}
    Value(std::int64_t v) : m_data(v) {}
    Value(double v) : m_data(v) {}
    /// Strings, lists, dicts and functions are shared, so copying a Value never copies its
    /// contents; creating one charges its bytes to the render's budget (jinja_budget.h).
    Value(std::string v);
    Value(std::string_view v) : Value(std::string(v)) {}
    Value(const char* v) : Value(std::string(v)) {}
    Value(ValueList v);
    Value(ValueDict v);
    Value(NativeFunction f);

    [[nodiscard]] static Value none();

    [[nodiscard]] Kind kind() const { return static_cast<Kind>(m_data.index()); }
    [[nodiscard]] bool isUndefined() const { return kind() == Kind::Undefined; }
    [[nodiscard]] bool isNone() const { return kind() == Kind::None; }
    [[nodiscard]] bool isBool() const { return kind() == Kind::Bool; }
    [[nodiscard]] bool isInt() const { return kind() == Kind::Int; }
    [[nodiscard]] bool isFloat() const { return kind() == Kind::Float; }
    [[nodiscard]] bool isNumber() const { return isInt() || isFloat(); }
    [[nodiscard]] bool isString() const { return kind() == Kind::String; }
    [[nodiscard]] bool isList() const { return kind() == Kind::List; }
    [[nodiscard]] bool isDict() const { return kind() == Kind::Dict; }
    [[nodiscard]] bool isFunction() const { return kind() == Kind::Function; }

    [[nodiscard]] bool asBool() const { return std::get<bool>(m_data); }
    [[nodiscard]] std::int64_t asInt() const { return std::get<std::int64_t>(m_data); }
    /// Int or float as a double (bools count as 0/1, as in Python).
    [[nodiscard]] double asNumber() const;
    [[nodiscard]] const std::string& asString() const { return *std::get<std::shared_ptr<const std::string>>(m_data); }
    /// Lists and dicts are shared by reference, like Python objects (namespace attributes rely on it).
    [[nodiscard]] ValueList& asList() const { return *std::get<std::shared_ptr<ValueList>>(m_data); }
    [[nodiscard]] ValueDict& asDict() const { return *std::get<std::shared_ptr<ValueDict>>(m_data); }
    [[nodiscard]] const NativeFunction& asFunction() const { return *std::get<std::shared_ptr<NativeFunction>>(m_data); }

    /// Python truthiness: undefined, none, false, 0, "" and empty containers are false.
    [[nodiscard]] bool truthy() const;
    /// Python str(): what {{ value }} prints. Undefined prints nothing.
    [[nodiscard]] std::string str() const;
    /// Python repr(): how a value prints inside a list or dict.
    [[nodiscard]] std::string repr() const;
    /// JSON text; @p indent < 0 means one line with ", " and ": " separators (Python's json.dumps).
    [[nodiscard]] std::string toJson(int indent = -1) const;
    /// Python ==: numbers compare by value, containers element-wise (the same container is
    /// equal to itself without a walk).
    [[nodiscard]] bool equals(const Value& other) const;
    /// True when both are the same list, dict or function (Python's `is` for containers).
    [[nodiscard]] bool sameObject(const Value& other) const;
    /// A short type name for error messages.
    [[nodiscard]] std::string typeName() const;

private:
    struct Undefined {};
    struct None {};
    // Depth-limited workers that charge the render per element: a template can make a namespace
    // hold itself (ns.self = ns) or build a list that holds another twice, forty times over,
    // and printing or comparing that must end instead of overflowing the stack or running for hours.
    void appendJson(std::string& out, int indent, int level) const;
    void appendRepr(std::string& out, int depth) const;
    [[nodiscard]] bool equalsAt(const Value& other, int depth) const;

    std::variant<Undefined, None, bool, std::int64_t, double, std::shared_ptr<const std::string>, std::shared_ptr<ValueList>,
                 std::shared_ptr<ValueDict>, std::shared_ptr<NativeFunction>>
        m_data;
};

/// Python ordering for numbers and strings: <0, 0 or >0; nullopt when the two do not compare.
[[nodiscard]] std::optional<int> compareValues(const Value& a, const Value& b);

/// Python's repr of a float ("1.0", "0.1", "1e+16").
[[nodiscard]] std::string formatFloat(double v);

} // namespace hearth::jinja
