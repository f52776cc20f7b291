// SPDX-License-Identifier: MIT
#pragma once

// What converters do around the bytes they write: check the disk has room before starting,
// write to "<output>.part", prove the result loads and runs, and only then rename it into place.
// A failed or cancelled run therefore never leaves a file under the final name.

#include <hearth/model.h>
#include <hearth/status.h>

#include <cstdint>
#include <string>

namespace hearth::convert {

// "<path>.part": where a file is written until it is known to be good.
[[nodiscard]] std::string partialPath(const std::string& path);

// IoError when the folder of @p path has less than @p needed bytes available.
[[nodiscard]] Status checkFreeSpace(const std::string& path, std::uint64_t needed);

// Loads @p path with hearth::Model::load and evaluates a short prompt; Ok when the logits of the
// last prompt token are finite (the model produces a token). @p progress sees the load's
// fraction and may cancel it.
[[nodiscard]] Status verifyModelFile(const std::string& path, const ProgressCallback& progress = {});

// Renames @p from to @p to, replacing an older @p to.
[[nodiscard]] Status commitFile(const std::string& from, const std::string& to);

// Removes @p path, ignoring errors (cleanup after a failure).
void discardFile(const std::string& path);

} // namespace hearth::convert
