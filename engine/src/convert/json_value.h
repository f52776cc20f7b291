// SPDX-License-Identifier: MIT
#pragma once

// A strict JSON (RFC 8259) reader for the small headers of checkpoint formats: safetensors
// headers, model.safetensors.index.json, config.json. Duplicate keys, trailing commas, comments,
// NaN and invalid UTF-8 escapes are errors, because a header that two readers understand
// differently is a way to smuggle data past one of them.

#include <hearth/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth::convert {

class JsonValue {
public:
    enum class Kind { Null, Bool, Integer, Number, String, Array, Object };
    using Member = std::pair<std::string, JsonValue>;

    JsonValue() = default;

    [[nodiscard]] Kind kind() const { return m_kind; }
    [[nodiscard]] bool isNull() const { return m_kind == Kind::Null; }
    [[nodiscard]] bool isBool() const { return m_kind == Kind::Bool; }
    // True for numbers written without fraction or exponent that fit in 64 bits.
    [[nodiscard]] bool isInteger() const { return m_kind == Kind::Integer; }
    [[nodiscard]] bool isNumber() const { return m_kind == Kind::Integer || m_kind == Kind::Number; }
    [[nodiscard]] bool isString() const { return m_kind == Kind::String; }
    [[nodiscard]] bool isArray() const { return m_kind == Kind::Array; }
    [[nodiscard]] bool isObject() const { return m_kind == Kind::Object; }

    [[nodiscard]] bool toBool() const { return m_bool; }
    [[nodiscard]] std::int64_t toInteger() const { return m_integer; }
    [[nodiscard]] double toNumber() const { return m_kind == Kind::Integer ? static_cast<double>(m_integer) : m_number; }
    [[nodiscard]] const std::string& toString() const { return m_string; }
    [[nodiscard]] const std::vector<JsonValue>& items() const { return m_items; }
    // Members in the order the document lists them.
    [[nodiscard]] const std::vector<Member>& members() const { return m_members; }
    // The member named @p key, or nullptr (also when this is not an object).
    [[nodiscard]] const JsonValue* find(std::string_view key) const;

    static JsonValue makeNull() { return {}; }
    static JsonValue makeBool(bool value);
    static JsonValue makeInteger(std::int64_t value);
    static JsonValue makeNumber(double value);
    static JsonValue makeString(std::string value);
    static JsonValue makeArray(std::vector<JsonValue> items);
    static JsonValue makeObject(std::vector<Member> members);

private:
    Kind m_kind = Kind::Null;
    bool m_bool = false;
    std::int64_t m_integer = 0;
    double m_number = 0.0;
    std::string m_string;
    std::vector<JsonValue> m_items;
    std::vector<Member> m_members;
};

// Parses one JSON document; whitespace may surround it, nothing else. Nesting is limited to
// @p maxDepth levels so hostile input cannot exhaust the stack.
[[nodiscard]] Result<JsonValue> parseJson(std::string_view text, int maxDepth = 128);

} // namespace hearth::convert
