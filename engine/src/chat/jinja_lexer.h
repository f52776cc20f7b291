// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Splits Jinja source into text and tag tokens, applying whitespace control.

#include <hearth/status.h>

#include <string>
#include <string_view>
#include <vector>

namespace hearth::jinja {

struct SourcePos {
    int line = 1;
    int column = 1;
};

/// "line 3, column 7: " prefix for messages about a place in the template.
[[nodiscard]] std::string describe(SourcePos pos);

struct LexToken {
    enum class Type {
        Text,       ///< literal template text (already trimmed by whitespace control)
        VarBegin,   ///< {{
        VarEnd,     ///< }}
        BlockBegin, ///< {%
        BlockEnd,   ///< %}
        Name,
        String, ///< text holds the unescaped value
        Integer,
        Float,
        Operator, ///< punctuation and operators: + - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : |
        End,
    };
    Type type = Type::End;
    std::string text;
    SourcePos pos;
};

struct LexOptions {
    /// Drop the first newline after a block or comment tag (Hugging Face renders with trim_blocks).
    bool trimBlocks = true;
    /// Strip spaces and tabs before a block or comment tag that starts a line (lstrip_blocks).
    bool lstripBlocks = true;
};

/// Tokenizes @p source. Comments are dropped; {% raw %} sections become text.
[[nodiscard]] Result<std::vector<LexToken>> tokenize(std::string_view source, const LexOptions& options = {});

} // namespace hearth::jinja
