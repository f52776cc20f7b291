// SPDX-License-Identifier: MIT
#pragma once

#include "codehighlighter.h"

namespace hearth {

/// No colours: the code HTML-escaped in a `<pre>`. Used when no KDE highlighter is available.
class PlainCodeHighlighter : public CodeHighlighter
{
    Q_OBJECT

public:
    explicit PlainCodeHighlighter(QObject* parent = nullptr);

    [[nodiscard]] RequestId request(const QString& code, const QString& language, bool dark) override;
    void cancel(RequestId id) override;
    [[nodiscard]] Backend backend() const override { return Backend::Plain; }
    [[nodiscard]] QString backendName() const override;
};

} // namespace hearth
