// SPDX-License-Identifier: MIT
#include "convert/output_file.h"

#include <hearth/model.h>
#include <hearth/session.h>

#include <cmath>
#include <cstdint>
#include <filesystem>

namespace hearth::convert {

namespace {

std::string mebibytes(std::uint64_t bytes)
{
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

} // namespace

std::string partialPath(const std::string& path)
{
    return path + ".part";
}

Status checkFreeSpace(const std::string& path, std::uint64_t needed)
{
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) {
        dir = ".";
    }
    std::error_code ec;
    const std::filesystem::space_info space = std::filesystem::space(dir, ec);
    if (ec) {
        return {ErrorCode::IoError, "cannot access the output folder '" + dir.string() + "': " + ec.message()};
    }
    if (space.available < needed) {
        return {ErrorCode::IoError, "not enough disk space in '" + dir.string() + "': the output needs "
                                        + mebibytes(needed) + ", " + mebibytes(space.available) + " are free"};
    }
    return {};
}

Status verifyModelFile(const std::string& path, const ProgressCallback& progress)
{
    LoadParams load;
    load.progress = progress;
    auto model = Model::load(path, load);
    if (!model) {
        if (model.code() == ErrorCode::Cancelled) {
            return model.status();
        }
        return {model.code(), "the written model does not load: " + model.message()};
    }
    SessionParams params;
    params.contextLength = 64;
    params.threads = 1;
    params.batchSize = 16;
    auto session = Session::create(*model, params);
    if (!session) {
        return {session.code(), "the written model cannot start a session: " + session.message()};
    }
    const Tokenizer& tokenizer = (*model)->tokenizer();
    std::vector<Token> prompt = tokenizer.encode("Hello", true, false);
    if (prompt.empty()) {
        prompt.push_back(tokenizer.bos() != InvalidToken ? tokenizer.bos() : 0);
    }
    if (prompt.size() > 16) {
        prompt.resize(16);
    }
    HEARTH_TRY((*session)->prefill(prompt));
    const auto logits = (*session)->logits();
    if (logits.empty()) {
        return {ErrorCode::Internal, "the written model produced no logits"};
    }
    for (const float l : logits) {
        if (!std::isfinite(l)) {
            return {ErrorCode::InvalidFile, "the written model produces non-finite logits"};
        }
    }
    return {};
}

Status commitFile(const std::string& from, const std::string& to)
{
    std::error_code ec;
    std::filesystem::rename(from, to, ec);
    if (ec) {
        return {ErrorCode::IoError, "cannot rename '" + from + "' to '" + to + "': " + ec.message()};
    }
    return {};
}

void discardFile(const std::string& path)
{
    std::error_code ec;
    std::filesystem::remove(path, ec);
}

} // namespace hearth::convert
