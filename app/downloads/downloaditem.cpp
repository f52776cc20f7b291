// SPDX-License-Identifier: MIT
#include "downloaditem.h"

#include <array>
#include <utility>

namespace hearth {

namespace {

constexpr std::array<std::pair<DownloadState, const char*>, 7> kStateNames{{
    {DownloadState::Queued, "queued"},
    {DownloadState::Downloading, "downloading"},
    {DownloadState::Paused, "paused"},
    {DownloadState::Verifying, "verifying"},
    {DownloadState::Completed, "completed"},
    {DownloadState::Failed, "failed"},
    {DownloadState::Cancelled, "cancelled"},
}};

} // namespace

QString downloadStateName(DownloadState state)
{
    for (const auto& [value, name] : kStateNames) {
        if (value == state)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("queued");
}

std::optional<DownloadState> downloadStateFromName(const QString& name)
{
    for (const auto& [value, stateName] : kStateNames) {
        if (name == QLatin1String(stateName))
            return value;
    }
    return std::nullopt;
}

} // namespace hearth
