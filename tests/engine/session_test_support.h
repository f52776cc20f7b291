// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the tests that run sessions on the emulated device (tst_session_hybrid,
// tst_session_offload, tst_device_layers, tst_family_sparse) and against reference engines
// (tst_llama_families, tst_sparse): the session parameters that pick a device and a budget,
// greedy ids, a prompt-then-decode run, the logits' error measure, reading counts out of a
// placement report, and a conversation (prompt, decode, regenerate, reset, full context) that
// records every step's logits.

#include <hearth/model.h>
#include <hearth/session.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace hearth::test {

// Small-session parameters on @p device ("emulated:<bytes>", or empty for the CUDA back end)
// under a budget of @p budgetGiB (negative: the device's own figure, 0: CPU only). The KV cache
// is F32, as device sessions keep it, so that CPU and device sessions compare bit for bit.
inline SessionParams deviceSessionParams(const std::string& device, double budgetGiB, int contextLength, int batchSize)
{
    SessionParams p;
    p.contextLength = contextLength;
    p.batchSize = batchSize;
    p.threads = 2;
    p.deviceOverride = device;
    p.vramBudgetGiB = budgetGiB;
    p.kvCache = KvCacheType::F32;
    return p;
}

// @p count greedy ids after @p prompt (argmax of the last logits each step), in a CPU session
// with an F32 KV cache and the 512-token context the reference engines ran with; nothing when
// a step fails. Against an F16 cache llama.cpp rounds q and the attention weights to F16 as
// well, which Hearth does not, so near ties could go either way.
inline std::vector<Token> greedyIds(const std::shared_ptr<const Model>& model, const std::vector<Token>& prompt,
                                    int count)
{
    auto session = Session::create(model, deviceSessionParams({}, 0, 512, 64));
    if (!session || !(*session)->prefill(prompt).ok())
        return {};
    std::vector<Token> ids;
    for (int i = 0; i < count; ++i) {
        const auto logits = (*session)->logits();
        const Token best = Token(std::max_element(logits.begin(), logits.end()) - logits.begin());
        ids.push_back(best);
        if (!(*session)->decode(best).ok())
            return {};
    }
    return ids;
}

// Where a reference engine's greedy @p ids part from this engine's, teacher-forced: each step
// feeds the reference's token and checks that it is this engine's best or within @p nearTie x
// (1 + |best|) of it, since two engines that round differently may break a near tie apart.
// Returns an empty string, or what failed; @p ties counts the steps decided within the margin.
inline QString followsGreedyIds(const std::shared_ptr<const Model>& model, const std::vector<Token>& prompt,
                                const std::vector<Token>& ids, double nearTie, int* ties = nullptr)
{
    auto session = Session::create(model, deviceSessionParams({}, 0, 512, 64));
    if (!session || !(*session)->prefill(prompt).ok())
        return QStringLiteral("the prompt did not run");
    int parted = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto logits = (*session)->logits();
        const auto best = std::max_element(logits.begin(), logits.end());
        const float wanted = logits[std::size_t(ids[i])];
        if (Token(best - logits.begin()) != ids[i]) {
            if (double(*best - wanted) > nearTie * (1.0 + std::fabs(double(*best))))
                return QStringLiteral("step %1: %2 (logit %3) where the reference took %4 (logit %5)")
                    .arg(i).arg(best - logits.begin()).arg(double(*best)).arg(ids[i]).arg(double(wanted));
            ++parted;
        }
        if (!(*session)->decode(ids[i]).ok())
            return QStringLiteral("step %1 did not decode").arg(i);
    }
    if (ties)
        *ties = parted;
    return {};
}

// A reference engine's outputs stored as test data (@p path, a JSON object whose "cases" are
// objects): one data row "reference" per case, named by the values of @p nameKeys.
inline void addReferenceRows(const QString& path, std::initializer_list<const char*> nameKeys)
{
    QTest::addColumn<QJsonObject>("reference");
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray cases = QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("cases")).toArray();
    QVERIFY(!cases.isEmpty());
    for (const QJsonValue& c : cases) {
        QStringList name;
        for (const char* key : nameKeys)
            name << c.toObject().value(QLatin1String(key)).toString();
        QTest::newRow(qPrintable(name.join(QLatin1Char(' ')))) << c.toObject();
    }
}

// The token ids under @p key of a reference case.
inline std::vector<Token> referenceTokens(const QJsonObject& reference, const char* key)
{
    std::vector<Token> ids;
    for (const QJsonValue& v : reference.value(QLatin1String(key)).toArray())
        ids.push_back(Token(v.toInt()));
    return ids;
}

// The logits after prefilling @p prompt in a new session, or nothing when that fails.
inline std::vector<float> promptLogits(const std::shared_ptr<const Model>& model, const SessionParams& params,
                                       const std::vector<Token>& prompt)
{
    auto session = Session::create(model, params);
    if (!session || !(*session)->prefill(prompt).ok())
        return {};
    return { (*session)->logits().begin(), (*session)->logits().end() };
}

struct SessionRun {
    std::vector<Token> tokens;              // decoded one by one after the prompt
    std::vector<std::vector<float>> logits; // after the prompt and after each decoded token
    std::string report;                     // the session's placement report
    std::string reportAfter;                // the same after the run (a device that failed says so)
};

// Prefills @p prompt, then decodes @p decodeCount tokens, each the one @p next picks from its
// step and the logits so far. A failing step ends the run early (fewer logits).
inline SessionRun runSession(const std::shared_ptr<const Model>& model, const SessionParams& params,
                             const std::vector<Token>& prompt, int decodeCount,
                             const std::function<Token(int, std::span<const float>)>& next)
{
    SessionRun run;
    auto session = Session::create(model, params);
    if (!session) {
        qWarning("%s", session.message().c_str());
        return run;
    }
    run.report = (*session)->placementReport();
    if (!(*session)->prefill(prompt).ok())
        return run;
    run.logits.emplace_back((*session)->logits().begin(), (*session)->logits().end());
    for (int i = 0; i < decodeCount; ++i) {
        const Token t = next(i, (*session)->logits());
        run.tokens.push_back(t);
        if (!(*session)->decode(t).ok())
            return run;
        run.logits.emplace_back((*session)->logits().begin(), (*session)->logits().end());
    }
    run.reportAfter = (*session)->placementReport();
    return run;
}

// Largest |a - b|; infinity when the sizes differ.
inline float maxAbsDiff(std::span<const float> a, std::span<const float> b)
{
    if (a.size() != b.size())
        return std::numeric_limits<float>::infinity();
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

// Largest |a - b| over the largest |a|: a relative error that ignores near-zero logits.
// Infinity when the sizes differ.
inline double relativeError(std::span<const float> a, std::span<const float> b)
{
    if (a.size() != b.size())
        return std::numeric_limits<double>::infinity();
    double diff = 0;
    double scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, double(std::fabs(a[i] - b[i])));
        scale = std::max(scale, double(std::fabs(a[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

// "K of T FFN neurons hot" in a report, or {-1, -1}.
inline std::pair<long long, long long> hotCounts(const std::string& report)
{
    static const QRegularExpression re(QStringLiteral("(\\d+) of (\\d+) FFN neurons hot"));
    const auto m = re.match(QString::fromStdString(report));
    if (!m.hasMatch())
        return {-1, -1};
    return {m.captured(1).toLongLong(), m.captured(2).toLongLong()};
}

// "K of N layers (attention, KV cache and FFN)" in a whole-layer offload report: K, or -1.
inline int offloadedLayers(const std::string& report)
{
    static const QRegularExpression re(QStringLiteral("(\\d+) of (\\d+) layers \\(attention"));
    const auto m = re.match(QString::fromStdString(report));
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

// "attention of A/N layers and predictors of P/N layers" in a hybrid report: {A, N, P}, or
// {-1, -1, -1}.
inline std::tuple<int, int, int> deviceLayerCounts(const std::string& report)
{
    static const QRegularExpression re(QStringLiteral("attention of (\\d+)/(\\d+) layers and predictors of (\\d+)/"));
    const auto m = re.match(QString::fromStdString(report));
    if (!m.hasMatch())
        return {-1, -1, -1};
    return {m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt()};
}

// A prompt of @p n ordinary tokens, different for each @p seed.
inline std::vector<Token> conversationPrompt(int n, int seed)
{
    std::vector<Token> tokens;
    for (int i = 0; i < n; ++i)
        tokens.push_back(Token(3 + (seed + 17 * i) % 250));
    return tokens;
}

// One conversation's logits after each step, as a chat front end drives a session: a prompt of
// @p promptTokens, decoded tokens, a regeneration (drop three tokens, take another path), a reset
// and another prompt, then the context filled to the end and trimmed to a prefix with new tokens
// after it. A failing step ends it early (fewer logits).
inline std::vector<std::vector<float>> converse(Session& s, int promptTokens)
{
    std::vector<std::vector<float>> out;
    const auto keep = [&] { out.emplace_back(s.logits().begin(), s.logits().end()); };
    if (!s.prefill(conversationPrompt(promptTokens, 1)).ok())
        return out;
    keep();
    for (int i = 0; i < 5; ++i) {
        if (!s.decode(Token(10 + 7 * i)).ok())
            return out;
        keep();
    }
    s.truncate(s.position() - 3);
    for (int i = 0; i < 4; ++i) {
        if (!s.decode(Token(40 + 11 * i)).ok())
            return out;
        keep();
    }
    s.reset();
    if (!s.prefill(conversationPrompt(5, 9)).ok())
        return out;
    keep();
    while (s.position() < s.contextLength()) {
        if (!s.decode(Token(5 + s.position() % 200)).ok())
            return out;
    }
    keep();
    s.truncate(4);
    if (!s.prefill(conversationPrompt(9, 3)).ok())
        return out;
    keep();
    if (!s.decode(Token(77)).ok())
        return out;
    keep();
    return out;
}


} // namespace hearth::test
