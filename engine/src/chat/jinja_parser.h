// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Recursive-descent parser from Jinja tokens to a syntax tree.

#include "chat/jinja_ast.h"
#include "chat/jinja_lexer.h"

#include <hearth/status.h>

#include <vector>

namespace hearth::jinja {

/// Parses the tokens of a whole template. Errors name the line and column of the offending token.
[[nodiscard]] Result<Body> parse(const std::vector<LexToken>& tokens);

} // namespace hearth::jinja
