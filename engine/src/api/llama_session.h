// SPDX-License-Identifier: MIT
#pragma once

// The Session implementation for every architecture: token history, logits and the ContextFull
// rules over a model::ArchitectureForward (llama, falcon or opt forward pass).

#include "model/architecture_forward.h"

#include <hearth/session.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth {

class HybridDecode;

class LlamaSession final : public Session {
public:
    static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, const SessionParams& params);
    ~LlamaSession() override;

    Status prefill(std::span<const Token> tokens) override;
    Status decode(Token token) override;
    [[nodiscard]] std::span<const float> logits() const override;
    Status evaluateAll(std::span<const Token> tokens, std::vector<float>& allLogits) override;

    [[nodiscard]] int position() const override { return int(m_history.size()); }
    [[nodiscard]] int contextLength() const override { return m_forward->contextLength(); }
    [[nodiscard]] std::uint64_t kvCacheBytes() const override { return m_forward->kvCache().byteSize(); }
    [[nodiscard]] std::uint64_t kvCacheBytesAt(int contextLength) const override { return m_forward->kvCache().byteSizeAt(contextLength); }
    [[nodiscard]] KvCacheType kvCacheType() const override;
    [[nodiscard]] std::span<const Token> history() const override { return m_history; }
    void truncate(int keep) override;

    [[nodiscard]] const Model& model() const override { return *m_model; }
    [[nodiscard]] std::string placementReport() const override;
    [[nodiscard]] SessionPlacement placement() const override;

private:
    LlamaSession(std::shared_ptr<const Model> model, std::unique_ptr<model::ArchitectureForward> forward);
    // Checks ids and room; the session is unchanged when this fails.
    Status checkTokens(std::span<const Token> tokens) const;
    // Runs @p tokens in batches; @p allLogits receives every row when not null.
    void run(std::span<const Token> tokens, float* allLogits);

    std::shared_ptr<const Model> m_model; // keeps the weights mapped while the session lives
    std::unique_ptr<model::ArchitectureForward> m_forward;
    std::vector<Token> m_history;
    std::vector<float> m_logits;
    bool m_logitsValid = false;
    HybridDecode* m_hybrid = nullptr; // owned by m_forward; null when the FFN runs on the CPU
    std::string m_placementReport;
};

} // namespace hearth
