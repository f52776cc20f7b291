// SPDX-License-Identifier: MIT
#pragma once

#include <QLoggingCategory>

// hearth.highlight: code block highlighting (back end choice, tool failures, timeouts).
// More with QT_LOGGING_RULES="hearth.highlight.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcHighlight)
