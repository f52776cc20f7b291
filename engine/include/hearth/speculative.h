// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Speculative decoding: something cheap guesses the next few tokens, the model checks them all
/// in one batched pass and keeps the ones it samples itself. Each token is still drawn by the
/// caller's sampler from the model's own logits, one draw per token as without guesses, so the
/// answer is the one the model would have written (up to the rounding of batched products),
/// only sooner when the guesses are good: decoding reads every weight once per pass, and a pass
/// over a few tokens costs little more than over one.
///
///     auto guesses = hearth::DraftModel::create(smallModel, *model, draftParams); // same vocabulary
///     session->generate(prompt, sampler, 512, onToken, guesses->get());
///
///     hearth::PromptLookup lookup;  // no second model: repeats of the conversation's own text
///     session->generate(prompt, sampler, 512, onToken, &lookup);

#include <hearth/model.h>
#include <hearth/session.h>
#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearth {

/// Guesses the tokens that follow a context.
class Drafter {
public:
    virtual ~Drafter() = default;
    /// Up to @p count tokens likely to follow @p history and then @p next, into @p out (cleared
    /// first). Fewer or none is fine: the session then decodes as usual.
    virtual Status draft(std::span<const Token> history, Token next, int count, std::vector<Token>& out) = 0;
    /// How many tokens one batched check should carry at most. The session asks for fewer
    /// after guesses that were not taken, and more again while they are.
    [[nodiscard]] virtual int maxDraft() const = 0;
};

/// A smaller model with the same vocabulary (Qwen3-0.6B for Qwen3-8B, Llama 3.2 1B for Llama 3.1
/// 8B) guesses greedily, in a session of its own that follows the conversation, as long as it is
/// sure enough: a guess it gives less than @p minProbability costs a wider pass and is seldom
/// taken (llama.cpp's --draft-p-min, same default).
class DraftModel final : public Drafter {
public:
    /// Fails with Unsupported, saying why, when @p draft's vocabulary is not @p target's (other
    /// token texts, BOS or EOS, or sizes more than 128 apart). @p params make the draft's
    /// session; a context longer than @p draft was trained on is cut to that.
    [[nodiscard]] static Result<std::unique_ptr<DraftModel>> create(std::shared_ptr<const Model> draft,
                                                                    const Model& target,
                                                                    const SessionParams& params = {},
                                                                    int maxDraft = 4, float minProbability = 0.75f);
    ~DraftModel() override;

    /// The parameters of a draft session for @p target, made with @p targetParams: the same
    /// threads, device, cache type and context; on the GPU memory the target left when the
    /// target is on the GPU under an automatic budget (a draft model on the CPU would guess
    /// slower than the model writes), else on the CPU.
    [[nodiscard]] static SessionParams sessionParamsFor(const Session& target, const SessionParams& targetParams);

    Status draft(std::span<const Token> history, Token next, int count, std::vector<Token>& out) override;
    [[nodiscard]] int maxDraft() const override { return m_maxDraft; }
    [[nodiscard]] const Session& session() const { return *m_session; }

private:
    DraftModel(std::unique_ptr<Session> session, int targetVocab, int maxDraft, float minProbability);

    std::unique_ptr<Session> m_session;
    int m_targetVocab = 0;
    int m_maxDraft = 4;
    float m_minProbability = 0.75f;
    std::vector<Token> m_missing; // scratch: what the draft session has not seen yet
};

/// Guesses from the context itself: where the last few tokens appeared before, what followed
/// them then (code being edited, a document being quoted or summarised). Costs no model.
class PromptLookup final : public Drafter {
public:
    /// Matches of @p longestMatch tokens down to @p shortestMatch are looked for, the longest first.
    explicit PromptLookup(int maxDraft = 8, int shortestMatch = 2, int longestMatch = 4);

    Status draft(std::span<const Token> history, Token next, int count, std::vector<Token>& out) override;
    [[nodiscard]] int maxDraft() const override { return m_maxDraft; }

private:
    int m_maxDraft;
    int m_shortestMatch;
    int m_longestMatch;
};

/// Whether @p draft can guess tokens for @p target: OK, or Unsupported with the reason.
[[nodiscard]] Status checkDraftVocabulary(const Model& draft, const Model& target);

/// A fingerprint of the vocabulary of the GGUF file at @p path, read from its metadata without
/// loading the model (to offer only draft models that can guess for it): the texts of its first
/// 65536 tokens and its BOS and EOS ids. Models of one family share it, whatever the padding at
/// the end of their vocabularies; checkDraftVocabulary() still checks every token.
[[nodiscard]] Result<std::uint64_t> vocabularyFingerprint(const std::string& path);

} // namespace hearth
