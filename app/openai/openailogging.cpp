// SPDX-License-Identifier: MIT
#include "openailogging.h"

Q_LOGGING_CATEGORY(lcOpenAi, "hearth.openai", QtWarningMsg)
