// SPDX-License-Identifier: MIT
#pragma once

// A minimal JSON object writer for the tools' machine-readable output (no Qt, no dependency).
// Flat or nested objects of strings, numbers and booleans are all the tools need.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace hearth::tools {

class JsonWriter {
public:
    JsonWriter()
        : m_out(1, '{')
    {
    }

    void add(std::string_view key, std::string_view value)
    {
        field(key);
        quote(value);
    }
    void add(std::string_view key, const char* value) { add(key, std::string_view(value)); }
    void add(std::string_view key, bool value)
    {
        field(key);
        m_out += value ? "true" : "false";
    }
    void add(std::string_view key, int value) { add(key, static_cast<std::int64_t>(value)); }
    void add(std::string_view key, std::int64_t value)
    {
        field(key);
        m_out += std::to_string(value);
    }
    void add(std::string_view key, std::uint64_t value)
    {
        field(key);
        m_out += std::to_string(value);
    }
    // Non-finite numbers have no JSON form: they become null.
    void add(std::string_view key, double value)
    {
        field(key);
        if (!std::isfinite(value)) {
            m_out += "null";
            return;
        }
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.6g", value);
        m_out += buffer;
    }
    // Nests another object.
    void add(std::string_view key, const JsonWriter& object)
    {
        field(key);
        m_out += object.str();
    }

    [[nodiscard]] std::string str() const { return m_out + "}"; }

private:
    void field(std::string_view key)
    {
        if (m_out.size() > 1)
            m_out += ",";
        quote(key);
        m_out += ":";
    }
    void quote(std::string_view s)
    {
        m_out += '"';
        for (const char c : s) {
            switch (c) {
            case '"': m_out += "\\\""; break;
            case '\\': m_out += "\\\\"; break;
            case '\n': m_out += "\\n"; break;
            case '\r': m_out += "\\r"; break;
            case '\t': m_out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    m_out += buffer;
                } else {
                    m_out += c;
                }
            }
        }
        m_out += '"';
    }

    std::string m_out;
};

} // namespace hearth::tools
