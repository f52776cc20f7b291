// SPDX-License-Identifier: MIT
#pragma once

#include "sampling_settings.h"

#include <QFont>
#include <QObject>
#include <QPalette>
#include <QSettings>
#include <QStringList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <memory>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

/// The Settings page: appearance, engine threads, the data folder and the defaults every new
/// chat starts with. Kept in QSettings (an INI file inside --data-dir when one is given, so
/// tests and portable installs leave the user's settings alone).
class AppSettings : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY themeChanged)
    Q_PROPERTY(bool dark READ dark NOTIFY themeChanged)
    /// The theme's colours by palette role name (window, base, text, ...), for the window's
    /// palette in QML: Quick Controls resolve a palette per control type from the platform theme,
    /// so setting the application palette alone leaves some controls light.
    Q_PROPERTY(QVariantMap colors READ colors NOTIFY themeChanged)
    Q_PROPERTY(int fontSize READ fontSize WRITE setFontSize NOTIFY fontSizeChanged)
    /// The interface font at the chosen size, for the window (so a change shows at once).
    Q_PROPERTY(QFont font READ font NOTIFY fontSizeChanged)
    Q_PROPERTY(int threads READ threads WRITE setThreads NOTIFY threadsChanged)
    Q_PROPERTY(bool fastSparsePrompts READ fastSparsePrompts WRITE setFastSparsePrompts NOTIFY fastSparsePromptsChanged)
    Q_PROPERTY(QString dataDir READ dataDir WRITE setDataDir NOTIFY dataDirChanged)
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY defaultsChanged)
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY defaultsChanged)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY defaultsChanged)
    Q_PROPERTY(QStringList recentModels READ recentModels NOTIFY recentModelsChanged)
    /// Hugging Face mirror, e.g. https://hf-mirror.com; empty: HF_ENDPOINT or huggingface.co.
    Q_PROPERTY(QString hfEndpoint READ hfEndpoint WRITE setHfEndpoint NOTIFY hubChanged)
    /// Access token for gated models; empty: HF_TOKEN or anonymous. Kept with the other settings
    /// and never written to the log.
    Q_PROPERTY(QString hfToken READ hfToken WRITE setHfToken NOTIFY hubChanged)
    /// The OpenAI-compatible API server of Settings: off unless the user turns it on.
    Q_PROPERTY(bool serverEnabled READ serverEnabled WRITE setServerEnabled NOTIFY serverChanged)
    Q_PROPERTY(QString serverHost READ serverHost WRITE setServerHost NOTIFY serverChanged)
    Q_PROPERTY(int serverPort READ serverPort WRITE setServerPort NOTIFY serverChanged)
    Q_PROPERTY(QString serverApiKey READ serverApiKey WRITE setServerApiKey NOTIFY serverChanged)
    /// The remote server the chat used last, to offer it again.
    Q_PROPERTY(QString remoteUrl READ remoteUrl WRITE setRemoteUrl NOTIFY remoteChanged)
    Q_PROPERTY(QString remoteApiKey READ remoteApiKey WRITE setRemoteApiKey NOTIFY remoteChanged)
    Q_PROPERTY(QString remoteModel READ remoteModel WRITE setRemoteModel NOTIFY remoteChanged)

public:
    static constexpr int MaxRecentModels = 8;

    /// @p iniPath empty: the platform's settings store.
    explicit AppSettings(const QString& iniPath, QObject* parent = nullptr);
    ~AppSettings() override;

    static AppSettings* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);
    static void setInstance(AppSettings* instance);

    /// "system", "light" or "dark".
    [[nodiscard]] QString theme() const { return m_theme; }
    void setTheme(const QString& theme);
    [[nodiscard]] bool dark() const;
    [[nodiscard]] QVariantMap colors() const;
    [[nodiscard]] QPalette themePalette() const;
    /// Point size of the interface font; 0 keeps the system's. Sizes below MinFontSize are
    /// raised to it: a 1 to 3 pt window cannot be read, not even to change it back.
    [[nodiscard]] int fontSize() const { return m_fontSize; }
    void setFontSize(int points);
    [[nodiscard]] QFont font() const;
    static constexpr int MinFontSize = 7;
    static constexpr int MaxFontSize = 32;
    /// Engine threads; 0: one per physical core.
    [[nodiscard]] int threads() const { return m_threads; }
    void setThreads(int threads);
    /// Sparse models keep their FFN a second time, laid out as a dense model's, so that prompts
    /// run as fast as the dense model's (hearth::LoadParams::sparsePromptCopies); from the next load.
    [[nodiscard]] bool fastSparsePrompts() const { return m_fastSparsePrompts; }
    void setFastSparsePrompts(bool on);
    /// Where chats are kept from the next start on; empty: the platform's data folder.
    [[nodiscard]] QString dataDir() const { return m_dataDir; }
    void setDataDir(const QString& dir);
    /// Interface language code; empty: follow the system.
    [[nodiscard]] QString language() const { return m_language; }
    void setLanguage(const QString& code);

    [[nodiscard]] QString systemPrompt() const { return m_systemPrompt; }
    void setSystemPrompt(const QString& prompt);
    [[nodiscard]] double temperature() const { return m_sampling.temperature; }
    void setTemperature(double temperature);
    [[nodiscard]] int maxTokens() const { return m_sampling.maxTokens; }
    void setMaxTokens(int maxTokens);
    /// What a new chat starts with.
    [[nodiscard]] SamplingSettings defaultSampling() const { return m_sampling; }

    [[nodiscard]] QStringList recentModels() const { return m_recentModels; }
    /// Puts @p path first in the recent models.
    void addRecentModel(const QString& path);

    [[nodiscard]] QString hfEndpoint() const { return m_hfEndpoint; }
    void setHfEndpoint(const QString& endpoint);
    [[nodiscard]] QString hfToken() const { return m_hfToken; }
    void setHfToken(const QString& token);

    /// The INI file these settings live in; empty when they use the platform's store.
    [[nodiscard]] bool serverEnabled() const { return m_serverEnabled; }
    void setServerEnabled(bool enabled);
    [[nodiscard]] QString serverHost() const { return m_serverHost; }
    void setServerHost(const QString& host);
    [[nodiscard]] int serverPort() const { return m_serverPort; }
    void setServerPort(int port);
    [[nodiscard]] QString serverApiKey() const { return m_serverApiKey; }
    void setServerApiKey(const QString& key);

    [[nodiscard]] QString remoteUrl() const { return m_remoteUrl; }
    void setRemoteUrl(const QString& url);
    [[nodiscard]] QString remoteApiKey() const { return m_remoteApiKey; }
    void setRemoteApiKey(const QString& key);
    [[nodiscard]] QString remoteModel() const { return m_remoteModel; }
    void setRemoteModel(const QString& model);

    [[nodiscard]] QString iniPath() const { return m_iniPath; }
    /// The VRAM budget remembered for the model at @p modelPath by the VRAM panel, in GiB as
    /// SessionParams::vramBudgetGiB takes it: < 0 for Auto or when nothing is remembered.
    [[nodiscard]] double vramBudgetGiB(const QString& modelPath) const;
    /// The context length chosen in Chat Settings for the model at @p modelPath, in tokens; 0:
    /// the engine's default (the trained context, at most 4096).
    [[nodiscard]] int contextLength(const QString& modelPath) const;
    void setContextLength(const QString& modelPath, int tokens);
    /// How answers of the model at @p modelPath come sooner by guessing ahead (speculative
    /// decoding, Chat Settings): "" not at all, "lookup" from the conversation's own text, or
    /// the path of a smaller draft model of the same vocabulary.
    [[nodiscard]] QString speculation(const QString& modelPath) const;
    void setSpeculation(const QString& modelPath, const QString& choice);
    /// How sessions store the conversation's keys and values, by the engine's name ("f16", the
    /// default, or "q8_0": about half the memory); for every model.
    [[nodiscard]] QString kvCacheType() const;
    void setKvCacheType(const QString& name);

    /// Applies theme and font size to the application (palette and font); main() calls it once,
    /// the setters again on each change. Needs a QGuiApplication.
    void applyAppearance();

Q_SIGNALS:
    void themeChanged();
    void fontSizeChanged();
    void threadsChanged();
    void fastSparsePromptsChanged();
    void dataDirChanged();
    void languageChanged();
    void defaultsChanged();
    void recentModelsChanged();
    void hubChanged();
    void serverChanged();
    void remoteChanged();

private:
    void saveSampling();

    /// Stores @p value as @p key when it differs from @p member; true when it did.
    bool store(QString& member, const QString& value, const QString& key);

    QString m_iniPath;
    std::unique_ptr<QSettings> m_settings;
    QString m_theme = QStringLiteral("system");
    int m_fontSize = 0;
    int m_threads = 0;
    bool m_fastSparsePrompts = false;
    QString m_dataDir;
    QString m_language;
    QString m_systemPrompt;
    SamplingSettings m_sampling;
    QStringList m_recentModels;
    QString m_hfEndpoint;
    QString m_hfToken;
    bool m_serverEnabled = false;
    QString m_serverHost;
    int m_serverPort = 8080;
    QString m_serverApiKey;
    QString m_remoteUrl;
    QString m_remoteApiKey;
    QString m_remoteModel;
    QPalette m_systemPalette;
    int m_systemFontSize = 0;
    bool m_haveSystemLook = false;
};

} // namespace hearth::app
