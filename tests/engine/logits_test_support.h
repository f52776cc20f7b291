// SPDX-License-Identifier: MIT
#pragma once

// What the conversion and quantization tests (tst_public_convert, tst_quantize,
// tests/app/tst_conversion_job) compare files by: the logits a model file gives after a prompt,
// and their relative RMS difference.

#include <hearth/model.h>
#include <hearth/session.h>

#include <QtGlobal>

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

} // namespace hearth::test
