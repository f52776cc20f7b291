// SPDX-License-Identifier: MIT
#include "app_settings.h"

#include "placementpreview.h"

#include <hearth/session.h>

#include <QCryptographicHash>
#include <QFont>
#include <QGuiApplication>
#include <QJSEngine>
#include <QJsonDocument>
#include <QPointer>

namespace hearth::app {

namespace {
QPointer<AppSettings> s_instance;

int validFontSize(int points)
{
    return points <= 0 ? 0 : qBound(AppSettings::MinFontSize, points, AppSettings::MaxFontSize);
}

QPalette darkPalette()
{
    // Fusion's own colours for a dark desktop, so the window, controls and code blocks agree.
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x33, 0x36, 0x3a));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3d, 0x41));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x52));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x43, 0x47));
    p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5c));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xc7));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    return p;
}

QPalette lightPalette()
{
    QPalette p(QColor(0xef, 0xf0, 0xf1), QColor(0xf7, 0xf7, 0xf7));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf3, 0xf4, 0xf6));
    p.setColor(QPalette::Text, QColor(0x23, 0x26, 0x29));
    p.setColor(QPalette::WindowText, QColor(0x23, 0x26, 0x29));
    p.setColor(QPalette::ButtonText, QColor(0x23, 0x26, 0x29));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    // setColor(role, colour) sets every group; disabled controls must still look disabled.
    for (const QPalette::ColorRole role : { QPalette::Text, QPalette::WindowText, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, QColor(0xa0, 0xa0, 0xa0));
    return p;
}
} // namespace

AppSettings::AppSettings(const QString& iniPath, QObject* parent)
    : QObject(parent)
    , m_iniPath(iniPath)
    , m_settings(iniPath.isEmpty() ? std::make_unique<QSettings>()
                                   : std::make_unique<QSettings>(iniPath, QSettings::IniFormat))
{
    m_theme = m_settings->value(QStringLiteral("appearance/theme"), m_theme).toString();
    if (m_theme != QLatin1String("light") && m_theme != QLatin1String("dark"))
        m_theme = QStringLiteral("system");
    m_fontSize = validFontSize(m_settings->value(QStringLiteral("appearance/fontSize"), 0).toInt());
    m_threads = qBound(0, m_settings->value(QStringLiteral("engine/threads"), 0).toInt(), 256);
    m_fastSparsePrompts = m_settings->value(QStringLiteral("engine/fastSparsePrompts"), false).toBool();
    // Not "general/...": an INI file's [general] section reads back as the top level (QSettings
    // takes any case of "General" for it), so those keys were written and never found again.
    // Files written that way still hold the values at the top level.
    m_dataDir = m_settings->value(QStringLiteral("storage/dataDir"), m_settings->value(QStringLiteral("dataDir"))).toString();
    m_language = m_settings->value(QStringLiteral("interface/language"), m_settings->value(QStringLiteral("language"))).toString();
    m_systemPrompt = m_settings->value(QStringLiteral("defaults/systemPrompt")).toString();
    m_sampling = SamplingSettings::fromJson(
        QJsonDocument::fromJson(m_settings->value(QStringLiteral("defaults/sampling")).toByteArray()).object());
    m_recentModels = m_settings->value(QStringLiteral("models/recent")).toStringList().mid(0, MaxRecentModels);
    m_hfEndpoint = m_settings->value(QStringLiteral("hub/endpoint")).toString();
    m_hfToken = m_settings->value(QStringLiteral("hub/token")).toString();
    m_serverEnabled = m_settings->value(QStringLiteral("server/enabled"), false).toBool();
    m_serverHost = m_settings->value(QStringLiteral("server/host"), QStringLiteral("127.0.0.1")).toString();
    m_serverPort = qBound(1, m_settings->value(QStringLiteral("server/port"), 8080).toInt(), 65535);
    m_serverApiKey = m_settings->value(QStringLiteral("server/apiKey")).toString();
    m_remoteUrl = m_settings->value(QStringLiteral("remote/url")).toString();
    m_remoteApiKey = m_settings->value(QStringLiteral("remote/apiKey")).toString();
    m_remoteModel = m_settings->value(QStringLiteral("remote/model")).toString();
}

AppSettings::~AppSettings() = default;

AppSettings* AppSettings::create(QQmlEngine*, QJSEngine*)
{
    if (s_instance) {
        QJSEngine::setObjectOwnership(s_instance, QJSEngine::CppOwnership);
        return s_instance;
    }
    return new AppSettings(QString());
}

void AppSettings::setInstance(AppSettings* instance)
{
    s_instance = instance;
}

void AppSettings::setTheme(const QString& theme)
{
    const QString value = theme == QLatin1String("light") || theme == QLatin1String("dark") ? theme : QStringLiteral("system");
    if (value == m_theme)
        return;
    m_theme = value;
    m_settings->setValue(QStringLiteral("appearance/theme"), m_theme);
    applyAppearance();
    Q_EMIT themeChanged();
}

bool AppSettings::dark() const
{
    if (m_theme == QLatin1String("dark"))
        return true;
    if (m_theme == QLatin1String("light"))
        return false;
    const QPalette palette = m_haveSystemLook ? m_systemPalette : QPalette();
    return palette.color(QPalette::Window).lightness() < 128;
}

QPalette AppSettings::themePalette() const
{
    if (m_theme == QLatin1String("dark"))
        return darkPalette();
    if (m_theme == QLatin1String("light"))
        return lightPalette();
    return m_haveSystemLook ? m_systemPalette : QPalette();
}

QVariantMap AppSettings::colors() const
{
    const QPalette p = themePalette();
    static const QList<QPair<const char*, QPalette::ColorRole>> roles {
        { "window", QPalette::Window },
        { "windowText", QPalette::WindowText },
        { "base", QPalette::Base },
        { "alternateBase", QPalette::AlternateBase },
        { "text", QPalette::Text },
        { "button", QPalette::Button },
        { "buttonText", QPalette::ButtonText },
        { "brightText", QPalette::BrightText },
        { "highlight", QPalette::Highlight },
        { "highlightedText", QPalette::HighlightedText },
        { "light", QPalette::Light },
        { "midlight", QPalette::Midlight },
        { "mid", QPalette::Mid },
        { "dark", QPalette::Dark },
        { "shadow", QPalette::Shadow },
        { "link", QPalette::Link },
        { "placeholderText", QPalette::PlaceholderText },
        { "toolTipBase", QPalette::ToolTipBase },
        { "toolTipText", QPalette::ToolTipText },
    };
    QVariantMap map;
    for (const auto& [name, role] : roles)
        map.insert(QString::fromLatin1(name), p.color(QPalette::Active, role));
    map.insert(QStringLiteral("disabledText"), p.color(QPalette::Disabled, QPalette::Text));
    return map;
}

void AppSettings::setFontSize(int points)
{
    points = validFontSize(points);
    if (points == m_fontSize)
        return;
    m_fontSize = points;
    m_settings->setValue(QStringLiteral("appearance/fontSize"), m_fontSize);
    applyAppearance();
    Q_EMIT fontSizeChanged();
}

void AppSettings::setThreads(int threads)
{
    threads = qBound(0, threads, 256);
    if (threads == m_threads)
        return;
    m_threads = threads;
    m_settings->setValue(QStringLiteral("engine/threads"), m_threads);
    Q_EMIT threadsChanged();
}

void AppSettings::setFastSparsePrompts(bool on)
{
    if (on == m_fastSparsePrompts)
        return;
    m_fastSparsePrompts = on;
    m_settings->setValue(QStringLiteral("engine/fastSparsePrompts"), on);
    Q_EMIT fastSparsePromptsChanged();
}

void AppSettings::setDataDir(const QString& dir)
{
    if (dir == m_dataDir)
        return;
    m_dataDir = dir;
    m_settings->setValue(QStringLiteral("storage/dataDir"), m_dataDir);
    m_settings->remove(QStringLiteral("dataDir"));
    Q_EMIT dataDirChanged();
}

void AppSettings::setLanguage(const QString& code)
{
    if (code == m_language)
        return;
    m_language = code;
    m_settings->setValue(QStringLiteral("interface/language"), m_language);
    m_settings->remove(QStringLiteral("language"));
    Q_EMIT languageChanged();
}

void AppSettings::setSystemPrompt(const QString& prompt)
{
    if (prompt == m_systemPrompt)
        return;
    m_systemPrompt = prompt;
    m_settings->setValue(QStringLiteral("defaults/systemPrompt"), m_systemPrompt);
    Q_EMIT defaultsChanged();
}

void AppSettings::setTemperature(double temperature)
{
    SamplingSettings s = m_sampling;
    s.temperature = temperature;
    s = s.clamped();
    if (qFuzzyCompare(s.temperature + 1, m_sampling.temperature + 1))
        return;
    m_sampling = s;
    saveSampling();
}

void AppSettings::setMaxTokens(int maxTokens)
{
    SamplingSettings s = m_sampling;
    s.maxTokens = maxTokens;
    s = s.clamped();
    if (s.maxTokens == m_sampling.maxTokens)
        return;
    m_sampling = s;
    saveSampling();
}

void AppSettings::saveSampling()
{
    m_settings->setValue(QStringLiteral("defaults/sampling"),
        QJsonDocument(m_sampling.toJson()).toJson(QJsonDocument::Compact));
    Q_EMIT defaultsChanged();
}

void AppSettings::addRecentModel(const QString& path)
{
    if (path.isEmpty())
        return;
    QStringList recent = m_recentModels;
    recent.removeAll(path);
    recent.prepend(path);
    recent = recent.mid(0, MaxRecentModels);
    if (recent == m_recentModels)
        return;
    m_recentModels = recent;
    m_settings->setValue(QStringLiteral("models/recent"), m_recentModels);
    Q_EMIT recentModelsChanged();
}

void AppSettings::setHfEndpoint(const QString& endpoint)
{
    if (store(m_hfEndpoint, endpoint.trimmed(), QStringLiteral("hub/endpoint")))
        Q_EMIT hubChanged();
}

void AppSettings::setHfToken(const QString& token)
{
    if (store(m_hfToken, token.trimmed(), QStringLiteral("hub/token")))
        Q_EMIT hubChanged();
}

bool AppSettings::store(QString& member, const QString& value, const QString& key)
{
    if (value == member)
        return false;
    member = value;
    m_settings->setValue(key, value);
    return true;
}

void AppSettings::setServerEnabled(bool enabled)
{
    if (enabled == m_serverEnabled)
        return;
    m_serverEnabled = enabled;
    m_settings->setValue(QStringLiteral("server/enabled"), enabled);
    Q_EMIT serverChanged();
}

void AppSettings::setServerHost(const QString& host)
{
    const QString value = host.trimmed().isEmpty() ? QStringLiteral("127.0.0.1") : host.trimmed();
    if (store(m_serverHost, value, QStringLiteral("server/host")))
        Q_EMIT serverChanged();
}

void AppSettings::setServerPort(int port)
{
    port = qBound(1, port, 65535);
    if (port == m_serverPort)
        return;
    m_serverPort = port;
    m_settings->setValue(QStringLiteral("server/port"), port);
    Q_EMIT serverChanged();
}

void AppSettings::setServerApiKey(const QString& key)
{
    if (store(m_serverApiKey, key.trimmed(), QStringLiteral("server/apiKey")))
        Q_EMIT serverChanged();
}

void AppSettings::setRemoteUrl(const QString& url)
{
    if (store(m_remoteUrl, url.trimmed(), QStringLiteral("remote/url")))
        Q_EMIT remoteChanged();
}

void AppSettings::setRemoteApiKey(const QString& key)
{
    if (store(m_remoteApiKey, key.trimmed(), QStringLiteral("remote/apiKey")))
        Q_EMIT remoteChanged();
}

void AppSettings::setRemoteModel(const QString& model)
{
    if (store(m_remoteModel, model.trimmed(), QStringLiteral("remote/model")))
        Q_EMIT remoteChanged();
}

double AppSettings::vramBudgetGiB(const QString& modelPath) const
{
    if (modelPath.isEmpty())
        return -1;
    m_settings->sync(); // the VRAM panel writes through its own QSettings object
    const auto choice = hearth::models::PlacementPreview::remembered(*m_settings, modelPath);
    if (!choice || choice->autoBudget)
        return -1;
    return double(choice->budgetBytes) / double(quint64(1) << 30);
}

namespace {

// A setting of the model at @p modelPath in @p group. QSettings keys must not contain a path's
// '/' or '\\'; a hash of the path is stable and short.
QString modelKey(const QString& group, const QString& modelPath)
{
    const QByteArray hash = QCryptographicHash::hash(modelPath.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return group + QLatin1Char('/') + QString::fromLatin1(hash);
}

QString contextLengthKey(const QString& modelPath)
{
    return modelKey(QStringLiteral("contextLength"), modelPath);
}

} // namespace

int AppSettings::contextLength(const QString& modelPath) const
{
    if (modelPath.isEmpty())
        return 0;
    return qBound(0, m_settings->value(contextLengthKey(modelPath), 0).toInt(), 1 << 24);
}

void AppSettings::setContextLength(const QString& modelPath, int tokens)
{
    if (modelPath.isEmpty())
        return;
    if (tokens > 0)
        m_settings->setValue(contextLengthKey(modelPath), tokens);
    else
        m_settings->remove(contextLengthKey(modelPath));
}

QString AppSettings::speculation(const QString& modelPath) const
{
    return modelPath.isEmpty() ? QString() : m_settings->value(modelKey(QStringLiteral("speculation"), modelPath)).toString();
}

void AppSettings::setSpeculation(const QString& modelPath, const QString& choice)
{
    if (modelPath.isEmpty())
        return;
    if (choice.isEmpty())
        m_settings->remove(modelKey(QStringLiteral("speculation"), modelPath));
    else
        m_settings->setValue(modelKey(QStringLiteral("speculation"), modelPath), choice);
}

QString AppSettings::kvCacheType() const
{
    const QString name = m_settings->value(QStringLiteral("kvCacheType")).toString();
    return hearth::kvCacheTypeFromName(name.toStdString()) ? name : QStringLiteral("f16");
}

void AppSettings::setKvCacheType(const QString& name)
{
    if (hearth::kvCacheTypeFromName(name.toStdString()))
        m_settings->setValue(QStringLiteral("kvCacheType"), name);
}

QFont AppSettings::font() const
{
    QFont font = QGuiApplication::font();
    const int system = m_haveSystemLook ? m_systemFontSize : font.pointSize();
    font.setPointSize(m_fontSize > 0 ? m_fontSize : qMax(1, system));
    return font;
}

void AppSettings::applyAppearance()
{
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return;
    if (!m_haveSystemLook) {
        m_systemPalette = QGuiApplication::palette();
        m_systemFontSize = QGuiApplication::font().pointSize();
        m_haveSystemLook = true;
    }
    // The Fusion style draws from the application palette, so one palette themes every window.
    QGuiApplication::setPalette(themePalette());

    QGuiApplication::setFont(font());
}

} // namespace hearth::app
