// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// HuggingFaceApi: the parts of the Hugging Face Hub HTTP API that Hearth uses.
///
/// * Repository listings (`/api/models/{repo}/tree/{revision}?recursive=true`, following the
///   `Link: rel="next"` pages) with each file's size and, for LFS files, its SHA-256.
/// * Model search (`/api/models?search=...&limit=...`).
/// * File URLs (`/{repo}/resolve/{revision}/{path}`) and the requests that fetch them.
///
/// The endpoint comes from HF_ENDPOINT (default https://huggingface.co) and the access token from
/// HF_TOKEN; both can be overridden from the settings. Redirects are followed by hand so that the
/// token is only ever sent to the endpoint's own origin: the Hub redirects file downloads to a
/// CDN host with a signed URL, and that host must not see the user's token. Everything is
/// asynchronous; nothing here blocks the calling thread.

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QNetworkRequest>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace hearth {

/// One entry of a repository listing.
struct HfFileEntry {
    QString path;          ///< relative to the repository root, '/'-separated
    QString type;          ///< "file" or "directory"
    qint64 size = 0;       ///< bytes (for LFS files the size of the real file, not the pointer)
    QString oid;           ///< git object id
    QByteArray lfsSha256;  ///< lower-case hex; empty when the file is not in LFS
    qint64 lfsSize = -1;

    [[nodiscard]] bool isFile() const { return type == QLatin1String("file"); }
    [[nodiscard]] bool isLfs() const { return !lfsSha256.isEmpty(); }
    /// The number of bytes a download of this file yields.
    [[nodiscard]] qint64 downloadSize() const { return isLfs() && lfsSize >= 0 ? lfsSize : size; }
};

/// One hit of a model search.
struct HfModelSummary {
    QString id;            ///< "owner/name"
    QStringList tags;
    qint64 downloads = 0;
    qint64 likes = 0;
    QString pipelineTag;
};

class HuggingFaceApi : public QObject
{
    Q_OBJECT

public:
    static constexpr int MaxRedirects = 10;
    /// Automatic retries of a listing or search answered with 429 / 503 and a Retry-After.
    static constexpr int MaxRateLimitRetries = 2;
    /// Longest Retry-After honoured automatically; longer waits are reported instead.
    static constexpr int MaxAutomaticRetryAfterSeconds = 30;

    /// Uses @p nam when given (not owned), otherwise creates its own.
    explicit HuggingFaceApi(QNetworkAccessManager* nam = nullptr, QObject* parent = nullptr);
    ~HuggingFaceApi() override;

    [[nodiscard]] QNetworkAccessManager* networkAccessManager() const { return m_nam; }

    /// The settings override if set, else HF_ENDPOINT, else https://huggingface.co.
    [[nodiscard]] QUrl endpoint() const;
    /// An empty URL removes the override.
    void setEndpoint(const QUrl& endpoint);
    /// The settings override if set, else HF_TOKEN (empty: anonymous).
    [[nodiscard]] QString token() const;
    /// An empty token removes the override.
    void setToken(const QString& token);

    /// No data for this long (connection lost, laptop asleep) aborts a request so it can retry.
    void setTransferTimeout(int milliseconds) { m_transferTimeoutMs = milliseconds; }
    [[nodiscard]] int transferTimeout() const { return m_transferTimeoutMs; }

    [[nodiscard]] QUrl fileUrl(const QString& repo, const QString& path,
        const QString& revision = QStringLiteral("main")) const;
    [[nodiscard]] QUrl treeUrl(const QString& repo, const QString& revision = QStringLiteral("main")) const;
    [[nodiscard]] QUrl searchUrl(const QString& query, int limit) const;

    /// Whether @p url has the endpoint's scheme, host and port: the only place the token goes.
    [[nodiscard]] bool isEndpointOrigin(const QUrl& url) const;
    /// A GET request for @p url: redirects left to the caller, the token only for the endpoint's
    /// origin, the transfer timeout set.
    [[nodiscard]] QNetworkRequest makeRequest(const QUrl& url) const;

    // Helpers shared with DownloadManager -------------------------------------------------------

    /// The resolved Location of a 3xx answer; nullopt when @p reply is not a redirect.
    [[nodiscard]] static std::optional<QUrl> redirectTarget(const QNetworkReply* reply);
    /// http(s) only, and never from https down to http.
    [[nodiscard]] static bool isAllowedRedirect(const QUrl& from, const QUrl& to);
    /// Retry-After in seconds (delta-seconds or an HTTP date); nullopt when absent or unreadable.
    [[nodiscard]] static std::optional<int> retryAfterSeconds(const QNetworkReply* reply);
    /// 408, 425, 429 and 5xx: worth trying again later.
    [[nodiscard]] static bool isRetryableHttpStatus(int status);
    /// A message for people about an HTTP error status; @p what names the repository or file.
    [[nodiscard]] static QString httpErrorText(int status, const QString& what,
        std::optional<int> retryAfter = std::nullopt);
    /// A message for people about a transport error (no HTTP status).
    [[nodiscard]] static QString networkErrorText(const QNetworkReply* reply);

    [[nodiscard]] static std::optional<QList<HfFileEntry>> parseTree(const QByteArray& json, QString* error = nullptr);
    [[nodiscard]] static std::optional<QList<HfModelSummary>> parseSearch(const QByteArray& json, QString* error = nullptr);

    // Asynchronous calls: each returns a request id echoed by the result signal -----------------

    quint64 listFiles(const QString& repo, const QString& revision = QStringLiteral("main"));
    quint64 search(const QString& query, int limit = 20);

Q_SIGNALS:
    void filesListed(quint64 requestId, const QString& repo, const QList<hearth::HfFileEntry>& files);
    void searchFinished(quint64 requestId, const QList<hearth::HfModelSummary>& models);
    /// @p httpStatus is 0 for transport errors.
    void requestFailed(quint64 requestId, const QString& errorText, int httpStatus);

private:
    enum class CallKind { Tree, Search };
    struct Call {
        quint64 id = 0;
        CallKind kind = CallKind::Tree;
        QString what;   ///< the repository or query, for messages
        QString repo;
        QUrl url;
        int redirects = 0;
        int rateLimitRetries = 0;
        QList<HfFileEntry> entries; ///< pages gathered so far
    };

    quint64 startCall(Call call);
    void send(quint64 id);
    void onFinished(QNetworkReply* reply, quint64 id);
    void fail(quint64 id, const QString& text, int status);

    QNetworkAccessManager* m_nam = nullptr;
    QUrl m_endpointOverride;
    QString m_tokenOverride;
    int m_transferTimeoutMs = 30000;
    quint64 m_nextId = 1;
    QHash<quint64, Call> m_calls;
};

} // namespace hearth

Q_DECLARE_METATYPE(hearth::HfFileEntry)
Q_DECLARE_METATYPE(hearth::HfModelSummary)
