// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The catalog's descriptions (resources/catalog/models.json) in the interface language. The
/// JSON keeps the English text; catalogdescriptions.cpp lists every description for lupdate, and
/// tst_catalog fails when the two differ, so a new catalog entry cannot go untranslated.

#include <QString>
#include <QStringList>

namespace hearth::models {

/// @p english (a catalog description) in the interface language; unknown text as it is.
[[nodiscard]] QString translatedDescription(const QString& english);

/// Every description the translations know, in English.
[[nodiscard]] QStringList translatableDescriptions();

} // namespace hearth::models
