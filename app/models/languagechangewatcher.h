// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

namespace hearth::models {

/// Tells a model that the interface language changed, so it can hand out its texts anew.
///
/// Installing a translator sends QEvent::LanguageChange to the application object only (and
/// windows); list models and other QObjects that return translated text from data() or property
/// getters never see it, and views would keep showing the old language next to the new one.
///
/// @code
///   auto* watcher = new LanguageChangeWatcher(this);
///   connect(watcher, &LanguageChangeWatcher::languageChanged, this, &MyModel::retranslate);
/// @endcode
class LanguageChangeWatcher : public QObject
{
    Q_OBJECT

public:
    explicit LanguageChangeWatcher(QObject* parent);

Q_SIGNALS:
    void languageChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace hearth::models
