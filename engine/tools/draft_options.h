// SPDX-License-Identifier: MIT
#pragma once

// Speculative decoding in the tools that generate (hearth-cli, hearth-bench): --draft FILE (a
// smaller model of the same vocabulary), --prompt-lookup (guesses from the context itself) and
// --draft-max N, made into a hearth::Drafter the same way in each.

#include "tool_options.h"

#include <hearth/hearth.h>
#include <hearth/speculative.h>

#include <memory>
#include <string>

namespace hearth::tools {

struct DraftOptions {
    std::string model;  // empty: no draft model
    bool promptLookup = false;
    int maxDraft = 0;   // 0: the drafter's own default
    float minProbability = 0.75f;
};

inline void addDraftOptions(ToolOptions& options, DraftOptions* target)
{
    options.addString("--draft", "FILE",
                      "speculative decoding: a smaller model of the same vocabulary guesses the next tokens",
                      &target->model);
    options.addFlag("--prompt-lookup", "speculative decoding: guess the next tokens from where the context repeats",
                    &target->promptLookup);
    options.addInt("--draft-max", "N", "speculative decoding: tokens guessed at most per pass (default 4, 8 for --prompt-lookup)",
                   &target->maxDraft, 0, 64);
    options.addFloat("--draft-p-min", "P",
                     "speculative decoding: the least probability the draft model must give a guess (default 0.75)",
                     &target->minProbability);
}

// The drafter @p draft asks for (null when none), for @p target made with @p params (a draft
// model's session as DraftModel::sessionParamsFor says).
inline Result<std::unique_ptr<Drafter>> makeDrafter(const DraftOptions& draft, const Session& target,
                                                    const SessionParams& params)
{
    if (!draft.model.empty() && draft.promptLookup)
        return Status(ErrorCode::InvalidArgument, "--draft and --prompt-lookup exclude each other");
    if (draft.promptLookup)
        return std::unique_ptr<Drafter>(std::make_unique<PromptLookup>(draft.maxDraft > 0 ? draft.maxDraft : 8));
    if (draft.model.empty())
        return std::unique_ptr<Drafter>();
    auto model = Model::load(draft.model);
    if (!model)
        return Status(model.code(), "cannot load the draft model '" + draft.model + "': " + model.message());
    const SessionParams draftParams = DraftModel::sessionParamsFor(target, params);
    auto drafter = DraftModel::create(*model, target.model(), draftParams, draft.maxDraft > 0 ? draft.maxDraft : 4,
                                      draft.minProbability);
    if (!drafter)
        return Status(drafter.code(), "cannot use the draft model '" + draft.model + "': " + drafter.message());
    return std::unique_ptr<Drafter>(std::move(*drafter));
}

} // namespace hearth::tools
