// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

class QTextStream;

namespace hearth::app {

/// `hearth --self-test --model FILE`: proves an installed Hearth can load a model and answer.
/// Loads the model on the engine thread, generates a few tokens for a short prompt and reports
/// the answer and its speed on @p out (errors on @p err).
class SelfTest
{
public:
    explicit SelfTest(QString modelPath, int maxTokens = 24);

    /// Runs the check, spinning a local event loop; returns the process exit code: 0 when at
    /// least one token came back, 1 otherwise.
    [[nodiscard]] int run(QTextStream& out, QTextStream& err);

private:
    QString m_modelPath;
    int m_maxTokens;
};

} // namespace hearth::app
