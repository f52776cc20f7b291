// SPDX-License-Identifier: MIT
#include "logging.h"

Q_LOGGING_CATEGORY(lcApp, "hearth.app", QtWarningMsg)
Q_LOGGING_CATEGORY(lcLanguage, "hearth.app.i18n", QtWarningMsg)
