// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// HfTestServer: a small HTTP/1.1 server on 127.0.0.1 that imitates the Hugging Face Hub for the
/// download tests: repository listings with LFS hashes, model search, file downloads with Range
/// (206, Content-Range, 416) and HEAD, redirects to a "CDN" path (optionally on another host
/// name), and per-file failure modes. It listens on an ephemeral loopback port only and answers
/// one request per connection ("Connection: close"), on the thread that created it.

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QString>
#include <QUrl>

class QTcpServer;
class QTcpSocket;
class QTimer;

namespace hearth::test {

/// One file of a fake repository and how the server misbehaves when serving it.
struct HfTestFile {
    QByteArray body;
    bool lfs = true;            ///< listed with lfs {oid: sha256, size}
    int dropAfterBytes = -1;    ///< send only this many body bytes, then close the connection...
    int dropTimes = 0;          ///< ...for this many GETs
    int stallAfterBytes = -1;   ///< send only this many body bytes, then keep the connection
    int stallTimes = 0;         ///< open and silent (a lost network), for this many GETs
    int failStatus = 0;         ///< answer this status...
    int failTimes = 0;          ///< ...to this many GETs first
    int retryAfterSeconds = -1; ///< Retry-After on those failures (-1: none)
    bool wrongBody = false;     ///< serve different bytes of the same size (hash mismatch)
    bool ignoreRange = false;   ///< always 200 with the whole body
    int throttleBytesPerSecond = 0; ///< 0: as fast as possible
    bool redirect = false;      ///< resolve/ answers 302 to /cdn/...
    QString redirectHost;       ///< host name in that Location ("localhost" for another origin)
};

struct HfRecordedRequest {
    QByteArray method;
    QString target;                       ///< path and query as sent
    QHash<QByteArray, QByteArray> headers; ///< lower-case names
    int status = 0;                       ///< what the server answered
};

class HfTestServer : public QObject
{
    Q_OBJECT

public:
    explicit HfTestServer(QObject* parent = nullptr);
    ~HfTestServer() override;

    [[nodiscard]] bool listen();
    [[nodiscard]] quint16 port() const;
    /// http://127.0.0.1:<port>
    [[nodiscard]] QUrl endpoint() const;

    /// Adds (or replaces) a file; returns it for setting failure modes.
    HfTestFile& addFile(const QString& repo, const QString& path, const QByteArray& body, bool lfs = true);
    [[nodiscard]] HfTestFile& file(const QString& repo, const QString& path);
    /// Listing and downloads of @p repo need "Authorization: Bearer <token>": 401 without, 403
    /// with another token (like a gated model whose licence was not accepted).
    void setRequiredToken(const QString& repo, const QByteArray& token);
    /// Records the files of @p repo as they are now under a new commit id (40 hex digits), which
    /// from then on resolves to them (resolve/<commit>/...) while later addFile() calls change
    /// only "main"; answers to resolve requests of @p repo carry it as X-Repo-Commit, as the
    /// Hub's do. Returns the id.
    QString pinCommit(const QString& repo);
    /// Splits listings into pages of @p entries linked with "Link: <...>; rel=\"next\"" (0: one page).
    void setTreePageSize(int entries) { m_treePageSize = entries; }
    /// An entry of /api/models search results (needs at least "id").
    void addSearchResult(const QJsonObject& model);

    [[nodiscard]] QList<HfRecordedRequest> requests() const { return m_requests; }
    /// Requests whose target contains @p part.
    [[nodiscard]] QList<HfRecordedRequest> requestsFor(const QString& part) const;
    void clearRequests() { m_requests.clear(); }

    /// @p size deterministic pseudo-random bytes (xorshift from @p seed).
    [[nodiscard]] static QByteArray makeBody(qint64 size, quint32 seed);
    [[nodiscard]] static QByteArray sha256Hex(const QByteArray& data);

private:
    struct Connection;

    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void handle(QTcpSocket* socket, HfRecordedRequest& request);
    void serveTree(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo);
    void serveSearch(QTcpSocket* socket, HfRecordedRequest& request, const QUrl& url);
    /// @p revision: "main" (the current files) or a commit of pinCommit().
    void serveFile(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo, const QString& path,
        bool viaCdn, const QString& revision = QStringLiteral("main"));
    void sendSimple(QTcpSocket* socket, HfRecordedRequest& request, int status, const QByteArray& body,
        const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {});
    /// Sends @p data, then closes the connection unless @p keepOpen.
    void startBody(QTcpSocket* socket, const QByteArray& data, int throttleBytesPerSecond, bool keepOpen = false);
    bool checkToken(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo);

    QTcpServer* m_server = nullptr;
    QMap<QString, QMap<QString, HfTestFile>> m_repos; ///< repo -> path -> file
    QHash<QString, QMap<QString, HfTestFile>> m_commits; ///< commit -> path -> file
    QHash<QString, QString> m_headCommit;                 ///< repo -> its last pinned commit
    QHash<QString, QByteArray> m_tokens;
    QList<QJsonObject> m_searchResults;
    QList<HfRecordedRequest> m_requests;
    QHash<QTcpSocket*, Connection*> m_connections;
    int m_treePageSize = 0;
};

} // namespace hearth::test
