// SPDX-License-Identifier: MIT
#pragma once

#include <QLoggingCategory>

// One category per area. Only warnings are shown by default; more with
// QT_LOGGING_RULES="hearth.*.info=true" (or .debug).
Q_DECLARE_LOGGING_CATEGORY(lcApp) // hearth.app: start-up, command line, paths
Q_DECLARE_LOGGING_CATEGORY(lcLanguage) // hearth.app.i18n: translations
