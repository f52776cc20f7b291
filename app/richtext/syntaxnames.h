// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Maps the language word of a code fence ("py", "c++", "sh", "rs", ...) to the name of a KDE
/// syntax definition ("Python", "C++", "Bash", "Rust", ...). Both highlighting back ends use the
/// same KDE definitions, so they share this table.

#include <QString>
#include <QStringList>

namespace hearth {

/// The KDE definition name for a fence language, or the language itself when no alias is known
/// (a back end then looks it up case-insensitively among its definitions). Empty stays empty.
[[nodiscard]] QString syntaxNameForLanguage(const QString& language);

/// Finds @p language among @p available definition names: through the alias table first, then
/// case-insensitively by name. Returns an empty string when there is no such definition.
[[nodiscard]] QString resolveSyntaxName(const QString& language, const QStringList& available);

} // namespace hearth
