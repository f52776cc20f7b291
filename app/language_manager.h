// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTranslator>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include <memory>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

/// Loads Hearth's translations (compiled into the app under :/i18n) and switches language while
/// running: it replaces the installed translators and asks the QML engine to retranslate.
class LanguageManager : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    /// [{code: "en", name: "English"}, ...] in the languages' own names.
    Q_PROPERTY(QVariantList languages READ languages CONSTANT)

public:
    // No default arguments: Qt 6.4 prefers a default constructor over create(), and QML must
    // get the instance main() made.
    explicit LanguageManager(QObject* parent);
    ~LanguageManager() override;

    static LanguageManager* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(LanguageManager* instance);

    /// Codes with a translation file: "en", "id", "zh_CN".
    [[nodiscard]] static QStringList availableLanguages();
    /// The best available language for @p uiLanguages (QLocale::uiLanguages() order); "en" if none fits.
    [[nodiscard]] static QString bestLanguage(const QStringList& uiLanguages);

    [[nodiscard]] QString language() const { return m_language; }
    /// Installs @p code's translation; returns false (and changes nothing) for an unknown code.
    Q_INVOKABLE bool setLanguage(const QString& code);
    [[nodiscard]] QVariantList languages() const;

    /// The engine to retranslate on a switch; main() sets it once the UI exists.
    void setQmlEngine(QQmlEngine* engine);

Q_SIGNALS:
    void languageChanged();

private:
    QString m_language;
    std::unique_ptr<QTranslator> m_appTranslator;
    std::unique_ptr<QTranslator> m_qtTranslator;
    QPointer<QQmlEngine> m_qmlEngine;
};

} // namespace hearth::app
