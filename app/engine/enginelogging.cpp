// SPDX-License-Identifier: MIT
#include "enginelogging.h"

Q_LOGGING_CATEGORY(lcEngine, "hearth.app.engine", QtWarningMsg)
