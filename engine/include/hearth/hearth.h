// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Everything a front end needs from the engine.

#include <hearth/chat.h>
#include <hearth/model.h>
#include <hearth/sampling.h>
#include <hearth/session.h>
#include <hearth/speculative.h>
#include <hearth/status.h>
#include <hearth/tokenizer.h>
