// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Evaluates a parsed Jinja template against a set of global variables.

#include "chat/jinja_ast.h"
#include "chat/jinja_budget.h"
#include "chat/jinja_value.h"

#include <hearth/status.h>

#include <string>

namespace hearth::jinja {

/// Renders @p body. @p globals are visible everywhere, on top of the standard ones (range,
/// namespace, raise_exception, ...). Errors name the line and column where evaluation failed.
/// Whatever the template does, the render ends within @p limits with the text or an error.
[[nodiscard]] Result<std::string> render(const Body& body, const ValueDict& globals, const RenderLimits& limits = {});

} // namespace hearth::jinja
