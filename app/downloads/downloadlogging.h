// SPDX-License-Identifier: MIT
#pragma once

#include <QLoggingCategory>

// hearth.downloads: queue, transfers, retries and verification. Warnings by default; more with
// QT_LOGGING_RULES="hearth.downloads.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcDownloads)
