// SPDX-License-Identifier: MIT
#include "language_manager.h"

#include "logging.h"

#include <QCoreApplication>
#include <QJSEngine>
#include <QLibraryInfo>
#include <QLocale>
#include <QQmlEngine>

namespace hearth::app {

namespace {
QPointer<LanguageManager> s_instance;

struct Language
{
    const char* code;
    const char* nativeName; // shown in its own language so people can find theirs
};

constexpr Language kLanguages[] = {
    { "en", "English" },
    { "id", "Bahasa Indonesia" },
    { "zh_CN", "简体中文" },
};
} // namespace

LanguageManager::LanguageManager(QObject* parent)
    : QObject(parent)
{
}

LanguageManager::~LanguageManager()
{
    if (m_appTranslator)
        QCoreApplication::removeTranslator(m_appTranslator.get());
    if (m_qtTranslator)
        QCoreApplication::removeTranslator(m_qtTranslator.get());
}

LanguageManager* LanguageManager::create(QQmlEngine* qmlEngine, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    auto* manager = new LanguageManager(nullptr);
    manager->setQmlEngine(qmlEngine);
    return manager;
}

void LanguageManager::setInstance(LanguageManager* instance)
{
    s_instance = instance;
}

QStringList LanguageManager::availableLanguages()
{
    QStringList codes;
    for (const Language& language : kLanguages)
        codes.append(QString::fromLatin1(language.code));
    return codes;
}

QString LanguageManager::bestLanguage(const QStringList& uiLanguages)
{
    const QStringList available = availableLanguages();
    for (const QString& wanted : uiLanguages) {
        // "zh-Hans-CN" and "zh_CN" name the same thing; QLocale folds them.
        const QLocale locale(wanted);
        const QString exact = locale.name(); // e.g. "zh_CN", "id_ID"
        if (available.contains(exact))
            return exact;
        const QString languageOnly = exact.section(QLatin1Char('_'), 0, 0);
        if (languageOnly == QLatin1String("zh")) {
            // Only Simplified Chinese is translated; do not show it to Traditional readers.
            if (locale.script() == QLocale::SimplifiedChineseScript)
                return QStringLiteral("zh_CN");
            continue;
        }
        if (available.contains(languageOnly))
            return languageOnly;
    }
    return QStringLiteral("en");
}

bool LanguageManager::setLanguage(const QString& code)
{
    if (!availableLanguages().contains(code))
        return false;
    if (code == m_language && m_appTranslator)
        return true;

    auto appTranslator = std::make_unique<QTranslator>();
    if (!appTranslator->load(QStringLiteral(":/i18n/hearth_%1.qm").arg(code))) {
        qCWarning(lcLanguage) << "no compiled translation for" << code;
        return false;
    }
    // Qt's own strings (file dialogs, standard buttons); optional, not every system ships them.
    auto qtTranslator = std::make_unique<QTranslator>();
    if (!qtTranslator->load(
            QStringLiteral("qt_%1").arg(code), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        qtTranslator.reset();

    if (m_appTranslator)
        QCoreApplication::removeTranslator(m_appTranslator.get());
    if (m_qtTranslator)
        QCoreApplication::removeTranslator(m_qtTranslator.get());
    m_appTranslator = std::move(appTranslator);
    m_qtTranslator = std::move(qtTranslator);
    QCoreApplication::installTranslator(m_appTranslator.get());
    if (m_qtTranslator)
        QCoreApplication::installTranslator(m_qtTranslator.get());

    m_language = code;
    qCInfo(lcLanguage) << "language" << code;
    if (m_qmlEngine)
        m_qmlEngine->retranslate();
    Q_EMIT languageChanged();
    return true;
}

QVariantList LanguageManager::languages() const
{
    QVariantList list;
    for (const Language& language : kLanguages) {
        list.append(QVariantMap {
            { QStringLiteral("code"), QString::fromLatin1(language.code) },
            { QStringLiteral("name"), QString::fromUtf8(language.nativeName) },
        });
    }
    return list;
}

void LanguageManager::setQmlEngine(QQmlEngine* engine)
{
    m_qmlEngine = engine;
}

} // namespace hearth::app
