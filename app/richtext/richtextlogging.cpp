// SPDX-License-Identifier: MIT
#include "richtextlogging.h"

Q_LOGGING_CATEGORY(lcHighlight, "hearth.highlight", QtWarningMsg)
