// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Jinja's built-in filters, tests, global functions and the Python methods of strings and dicts
/// that chat templates call. Errors carry no position: the interpreter adds the caller's.

#include "chat/jinja_budget.h"
#include "chat/jinja_value.h"

#include <hearth/status.h>

#include <cstddef>
#include <string>

namespace hearth::jinja {

/// x|name(args). Unknown filters are an error naming the filter.
[[nodiscard]] Result<Value> applyFilter(const std::string& name, const Value& input, const CallArgs& args);
/// x is name(args). Unknown tests are an error naming the test.
[[nodiscard]] Result<bool> applyTest(const std::string& name, const Value& input, const CallArgs& args);
/// True when @p object has a built-in method @p name (str.strip, dict.items, ...).
[[nodiscard]] bool hasMethod(const Value& object, const std::string& name);
/// object.name(args) for a built-in method; hasMethod() must hold.
[[nodiscard]] Result<Value> callMethod(const Value& object, const std::string& name, const CallArgs& args);
/// range, namespace, raise_exception, strftime_now.
[[nodiscard]] ValueDict standardGlobals();

/// Python's str.strip family; @p chars empty means whitespace.
enum class StripSide { Left, Right, Both };
[[nodiscard]] std::string strip(const std::string& s, StripSide side, const std::string& chars = {});

} // namespace hearth::jinja
