// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The chat database schema as a table of migration steps. Step N turns a version N-1 database
/// into version N; ChatStore applies each missing step in its own transaction and records the
/// version in PRAGMA user_version. Steps are never edited once released: a change is a new step.

#include <QList>
#include <QStringList>

namespace hearth {

struct MigrationStep {
    int version = 0;
    QStringList statements; ///< one SQL statement each (Qt's SQLite driver runs one per exec)
};

namespace ChatSchema {

/// Every step, in ascending version order, starting at 1.
[[nodiscard]] const QList<MigrationStep>& steps();

/// The version this build writes; a database with a larger user_version is refused.
[[nodiscard]] int latestVersion();

} // namespace ChatSchema

} // namespace hearth
