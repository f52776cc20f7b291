// SPDX-License-Identifier: MIT
#include "downloadlogging.h"

Q_LOGGING_CATEGORY(lcDownloads, "hearth.downloads", QtWarningMsg)
