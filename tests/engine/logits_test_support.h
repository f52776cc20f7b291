// SPDX-License-Identifier: MIT
#pragma once

// What the conversion, quantization and sparsify tests (tst_public_convert, tst_quantize,
// tst_sparsify, tst_magnitude_sparsity, tests/app/tst_conversion_job) compare files by: the
// logits a model file gives after a prompt, fed at once or token by token, and their relative
// RMS difference.

#include <hearth/convert.h>
#include <hearth/model.h>
#include <hearth/session.h>

#include <QtGlobal>

#include <algorithm>
#include <span>

#include <cmath>
#include <string>
#include <vector>

namespace hearth::test {

// The logits after @p prompt (one batch, one thread) of the model file @p path; empty when it
// does not load or run. @p vramBudgetGiB and @p denseFfn as in SessionParams (0: CPU only).
inline std::vector<float> promptLogits(const std::string& path, const std::vector<Token>& prompt,
                                       int contextLength = 64, double vramBudgetGiB = -1, bool denseFfn = false)
{
    auto model = Model::load(path);
    if (!model) {
        qWarning("%s", model.message().c_str());
        return {};
    }
    SessionParams params;
    params.kvCache = KvCacheType::F32; // compared with a float reference
    params.contextLength = contextLength;
    params.threads = 1;
    params.vramBudgetGiB = vramBudgetGiB;
    params.denseFfn = denseFfn;
    auto session = Session::create(*model, params);
    if (!session || !(*session)->prefill(prompt).ok())
        return {};
    const auto logits = (*session)->logits();
    return {logits.begin(), logits.end()};
}

// Root-mean-square of (a - b) over the RMS of @p b; 1e9 when the sizes differ or are 0.
inline double relativeRms(const std::vector<float>& a, const std::vector<float>& b)
{
    if (a.size() != b.size() || a.empty())
        return 1e9;
    double num = 0;
    double den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        den += double(b[i]) * double(b[i]);
    }
    return std::sqrt(num / den);
}

// The logits after feeding @p prompt one token at a time, as a chat's answer runs (one thread,
// CPU only); empty when the file does not load or run.
inline std::vector<float> decodedLogits(const std::string& path, const std::vector<Token>& prompt,
                                        int contextLength = 128, bool denseFfn = false)
{
    auto model = Model::load(path);
    if (!model || prompt.empty())
        return {};
    SessionParams params;
    params.kvCache = KvCacheType::F32;
    params.contextLength = contextLength;
    params.threads = 1;
    params.vramBudgetGiB = 0;
    params.denseFfn = denseFfn;
    auto session = Session::create(*model, params);
    if (!session || !(*session)->prefill(std::span<const Token>(prompt.data(), 1)).ok())
        return {};
    for (std::size_t i = 1; i < prompt.size(); ++i) {
        if (!(*session)->decode(prompt[i]).ok())
            return {};
    }
    const auto logits = (*session)->logits();
    return {logits.begin(), logits.end()};
}

// The first @p count tokens of the built-in calibration text under the model at @p path.
inline std::vector<Token> calibrationPrompt(const std::string& path, int count)
{
    auto model = Model::load(path);
    if (!model)
        return {};
    std::vector<Token> tokens = (*model)->tokenizer().encode(std::string(builtinCalibrationText()), true, false);
    tokens.resize(std::min<std::size_t>(tokens.size(), std::size_t(count)));
    return tokens;
}

} // namespace hearth::test
