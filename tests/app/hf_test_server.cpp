// SPDX-License-Identifier: MIT
#include "hf_test_server.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrlQuery>

namespace hearth::test {

struct HfTestServer::Connection {
    QByteArray buffer;
    bool handled = false;
    QByteArray pending;       ///< body bytes still to send when throttled
    int bytesPerTick = 0;
    QTimer* timer = nullptr;
};

namespace {

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

QByteArray errorJson(const QString& text)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("error"), text}}).toJson(QJsonDocument::Compact);
}

} // namespace

HfTestServer::HfTestServer(QObject* parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &HfTestServer::onNewConnection);
}

HfTestServer::~HfTestServer()
{
    for (auto it = m_connections.begin(); it != m_connections.end(); ++it) {
        it.key()->disconnect(this);
        it.key()->abort();
        delete it.value()->timer;
        delete it.value();
    }
}

bool HfTestServer::listen()
{
    // Loopback only: tests must never open a port to the network.
    return m_server->listen(QHostAddress::LocalHost, 0);
}

quint16 HfTestServer::port() const
{
    return m_server->serverPort();
}

QUrl HfTestServer::endpoint() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port()));
}

HfTestFile& HfTestServer::addFile(const QString& repo, const QString& path, const QByteArray& body, bool lfs)
{
    HfTestFile& file = m_repos[repo][path];
    file = HfTestFile{};
    file.body = body;
    file.lfs = lfs;
    return file;
}

HfTestFile& HfTestServer::file(const QString& repo, const QString& path)
{
    return m_repos[repo][path];
}

QString HfTestServer::pinCommit(const QString& repo)
{
    const QString commit = QString::fromLatin1(
        QCryptographicHash::hash((repo + QString::number(m_commits.size())).toUtf8(), QCryptographicHash::Sha1).toHex());
    m_commits.insert(commit, m_repos.value(repo));
    m_headCommit.insert(repo, commit);
    return commit;
}

void HfTestServer::setRequiredToken(const QString& repo, const QByteArray& token)
{
    m_tokens.insert(repo, token);
}

void HfTestServer::addSearchResult(const QJsonObject& model)
{
    m_searchResults.append(model);
}

QList<HfRecordedRequest> HfTestServer::requestsFor(const QString& part) const
{
    QList<HfRecordedRequest> found;
    for (const HfRecordedRequest& request : m_requests) {
        if (request.target.contains(part))
            found.append(request);
    }
    return found;
}

QByteArray HfTestServer::makeBody(qint64 size, quint32 seed)
{
    QByteArray data(size, Qt::Uninitialized);
    quint32 state = seed ? seed : 0x9e3779b9u;
    for (qint64 i = 0; i < size; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        data[i] = static_cast<char>(state & 0xff);
    }
    return data;
}

QByteArray HfTestServer::sha256Hex(const QByteArray& data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

void HfTestServer::onNewConnection()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        auto* connection = new Connection;
        m_connections.insert(socket, connection);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            if (Connection* c = m_connections.take(socket)) {
                if (c->timer)
                    c->timer->deleteLater(); // this may run inside the timer's own timeout
                delete c;
            }
            socket->deleteLater();
        });
    }
}

void HfTestServer::onReadyRead(QTcpSocket* socket)
{
    Connection* connection = m_connections.value(socket);
    if (!connection || connection->handled)
        return;
    connection->buffer += socket->readAll();
    const qsizetype end = connection->buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return;
    connection->handled = true;
    const QList<QByteArray> lines = connection->buffer.left(end).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    HfRecordedRequest request;
    request.method = requestLine.value(0);
    request.target = QString::fromLatin1(requestLine.value(1));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            request.headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
    }
    handle(socket, request);
    m_requests.append(request);
}

void HfTestServer::handle(QTcpSocket* socket, HfRecordedRequest& request)
{
    const QUrl url(QStringLiteral("http://test") + request.target);
    const QStringList segments = url.path().split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (segments.size() >= 5 && segments.at(0) == QLatin1String("api") && segments.at(1) == QLatin1String("models")
        && segments.at(4) == QLatin1String("tree")) {
        serveTree(socket, request, segments.at(2) + QLatin1Char('/') + segments.at(3));
        return;
    }
    if (segments.size() == 2 && segments.at(0) == QLatin1String("api") && segments.at(1) == QLatin1String("models")) {
        serveSearch(socket, request, url);
        return;
    }
    if (segments.size() >= 4 && segments.at(0) == QLatin1String("cdn")) {
        serveFile(socket, request, segments.at(1) + QLatin1Char('/') + segments.at(2), segments.mid(3).join(QLatin1Char('/')),
            true);
        return;
    }
    if (segments.size() >= 5 && segments.at(2) == QLatin1String("resolve")) {
        serveFile(socket, request, segments.at(0) + QLatin1Char('/') + segments.at(1),
            segments.mid(4).join(QLatin1Char('/')), false, segments.at(3));
        return;
    }
    sendSimple(socket, request, 404, errorJson(QStringLiteral("Not found")));
}

bool HfTestServer::checkToken(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo)
{
    const auto it = m_tokens.constFind(repo);
    if (it == m_tokens.constEnd())
        return true;
    const QByteArray auth = request.headers.value("authorization");
    if (auth.isEmpty()) {
        sendSimple(socket, request, 401,
            errorJson(QStringLiteral("Access to model %1 is restricted. You must be authenticated to access it.").arg(repo)));
        return false;
    }
    if (auth != "Bearer " + *it) {
        sendSimple(socket, request, 403,
            errorJson(QStringLiteral("Access to model %1 is restricted and you are not in the authorized list.").arg(repo)));
        return false;
    }
    return true;
}

void HfTestServer::serveTree(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo)
{
    if (!m_repos.contains(repo)) {
        sendSimple(socket, request, 404, errorJson(QStringLiteral("Repository not found")));
        return;
    }
    if (!checkToken(socket, request, repo))
        return;
    QJsonArray all;
    QSet<QString> directories;
    const auto& files = m_repos.value(repo);
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QStringList parts = it.key().split(QLatin1Char('/'));
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QString dir = parts.mid(0, i).join(QLatin1Char('/'));
            if (!directories.contains(dir)) {
                directories.insert(dir);
                all.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("directory")},
                    {QStringLiteral("oid"), QString::fromLatin1(QCryptographicHash::hash(dir.toUtf8(), QCryptographicHash::Sha1).toHex())},
                    {QStringLiteral("size"), 0}, {QStringLiteral("path"), dir}});
            }
        }
        const HfTestFile& file = it.value();
        QJsonObject entry{{QStringLiteral("type"), QStringLiteral("file")},
            {QStringLiteral("oid"), QString::fromLatin1(QCryptographicHash::hash(file.body, QCryptographicHash::Sha1).toHex())},
            {QStringLiteral("size"), double(file.body.size())}, {QStringLiteral("path"), it.key()}};
        if (file.lfs) {
            entry.insert(QStringLiteral("lfs"),
                QJsonObject{{QStringLiteral("oid"), QString::fromLatin1(sha256Hex(file.body))},
                    {QStringLiteral("size"), double(file.body.size())}, {QStringLiteral("pointerSize"), 134}});
        }
        all.append(entry);
    }
    const QUrlQuery query(QUrl(QStringLiteral("http://test") + request.target));
    qsizetype start = query.queryItemValue(QStringLiteral("cursor")).toLongLong();
    QJsonArray page;
    QList<QPair<QByteArray, QByteArray>> headers;
    if (m_treePageSize > 0) {
        start = std::clamp<qsizetype>(start, 0, all.size());
        for (qsizetype i = start; i < std::min<qsizetype>(all.size(), start + m_treePageSize); ++i)
            page.append(all.at(i));
        if (start + m_treePageSize < all.size()) {
            QUrl next = endpoint();
            next.setPath(QUrl(QStringLiteral("http://test") + request.target).path());
            next.setQuery(QStringLiteral("recursive=true&cursor=%1").arg(start + m_treePageSize));
            headers.append(qMakePair(QByteArray("Link"), "<" + next.toEncoded() + ">; rel=\"next\""));
        }
    } else {
        page = all;
    }
    headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    sendSimple(socket, request, 200, QJsonDocument(page).toJson(QJsonDocument::Compact), headers);
}

void HfTestServer::serveSearch(QTcpSocket* socket, HfRecordedRequest& request, const QUrl& url)
{
    const QUrlQuery query(url);
    const QString search = query.queryItemValue(QStringLiteral("search"), QUrl::FullyDecoded);
    const int limit = query.hasQueryItem(QStringLiteral("limit")) ? query.queryItemValue(QStringLiteral("limit")).toInt() : 1000;
    QJsonArray results;
    for (const QJsonObject& model : std::as_const(m_searchResults)) {
        if (results.size() >= limit)
            break;
        if (model.value(QStringLiteral("id")).toString().contains(search, Qt::CaseInsensitive))
            results.append(model);
    }
    sendSimple(socket, request, 200, QJsonDocument(results).toJson(QJsonDocument::Compact),
        {{"Content-Type", "application/json"}});
}

void HfTestServer::serveFile(QTcpSocket* socket, HfRecordedRequest& request, const QString& repo, const QString& path,
    bool viaCdn, const QString& revision)
{
    const bool pinned = m_commits.contains(revision);
    if (!m_repos.contains(repo) || !(pinned ? m_commits.value(revision) : m_repos.value(repo)).contains(path)) {
        sendSimple(socket, request, 404, errorJson(QStringLiteral("Entry not found")));
        return;
    }
    // The CDN path stands for a signed URL: no token needed there, and none should arrive.
    if (!viaCdn && !checkToken(socket, request, repo))
        return;
    HfTestFile& file = pinned ? m_commits[revision][path] : m_repos[repo][path];
    const bool isGet = request.method == "GET";
    const QByteArray commit = viaCdn ? QByteArray() : m_headCommit.value(repo).toLatin1();
    if (file.redirect && !viaCdn) {
        const QString host = file.redirectHost.isEmpty() ? QStringLiteral("127.0.0.1") : file.redirectHost;
        const QByteArray location = QStringLiteral("http://%1:%2/cdn/%3/%4").arg(host).arg(port()).arg(repo, path).toUtf8();
        QList<QPair<QByteArray, QByteArray>> headers{{"Location", location}};
        if (!commit.isEmpty())
            headers.append(qMakePair(QByteArray("X-Repo-Commit"), commit));
        sendSimple(socket, request, 302, QByteArray(), headers);
        return;
    }
    if (isGet && file.failTimes > 0) {
        --file.failTimes;
        QList<QPair<QByteArray, QByteArray>> headers;
        if (file.retryAfterSeconds >= 0)
            headers.append(qMakePair(QByteArray("Retry-After"), QByteArray::number(file.retryAfterSeconds)));
        sendSimple(socket, request, file.failStatus, errorJson(QStringLiteral("Try again")), headers);
        return;
    }

    QByteArray body = file.body;
    if (file.wrongBody && !body.isEmpty())
        body[body.size() / 2] = static_cast<char>(body.at(body.size() / 2) ^ 0x5a);
    const qint64 size = body.size();
    qint64 from = 0;
    qint64 to = size - 1;
    int status = 200;
    const QByteArray range = request.headers.value("range");
    if (!range.isEmpty() && !file.ignoreRange && range.startsWith("bytes=")) {
        const QList<QByteArray> bounds = range.mid(6).split('-');
        from = bounds.value(0).toLongLong();
        if (!bounds.value(1).isEmpty())
            to = std::min(to, bounds.value(1).toLongLong());
        if (from >= size) {
            sendSimple(socket, request, 416, QByteArray(), {{"Content-Range", "bytes */" + QByteArray::number(size)}});
            return;
        }
        status = 206;
    }
    const QByteArray slice = body.mid(from, to - from + 1);
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Content-Type: application/octet-stream\r\n";
    head += "Content-Length: " + QByteArray::number(slice.size()) + "\r\n";
    head += "Accept-Ranges: bytes\r\n";
    head += "ETag: \"" + sha256Hex(file.body) + "\"\r\n";
    head += "X-Linked-Size: " + QByteArray::number(file.body.size()) + "\r\n";
    if (!commit.isEmpty())
        head += "X-Repo-Commit: " + commit + "\r\n";
    if (status == 206)
        head += "Content-Range: bytes " + QByteArray::number(from) + '-' + QByteArray::number(to) + '/' + QByteArray::number(size) + "\r\n";
    head += "Connection: close\r\n\r\n";
    request.status = status;
    socket->write(head);
    if (!isGet) {
        socket->disconnectFromHost();
        return;
    }
    if (file.dropTimes > 0 && file.dropAfterBytes >= 0) {
        --file.dropTimes;
        startBody(socket, slice.left(file.dropAfterBytes), file.throttleBytesPerSecond);
        return;
    }
    if (file.stallTimes > 0 && file.stallAfterBytes >= 0) {
        --file.stallTimes;
        startBody(socket, slice.left(file.stallAfterBytes), file.throttleBytesPerSecond, true);
        return;
    }
    startBody(socket, slice, file.throttleBytesPerSecond, false);
}

void HfTestServer::startBody(QTcpSocket* socket, const QByteArray& data, int throttleBytesPerSecond, bool keepOpen)
{
    // A closed connection before Content-Length bytes is a drop; an open, silent one a stall.
    if (throttleBytesPerSecond <= 0) {
        socket->write(data);
        if (!keepOpen)
            socket->disconnectFromHost();
        return;
    }
    Connection* connection = m_connections.value(socket);
    connection->pending = data;
    constexpr int kTickMs = 20;
    connection->bytesPerTick = std::max(1, throttleBytesPerSecond * kTickMs / 1000);
    connection->timer = new QTimer;
    QObject::connect(connection->timer, &QTimer::timeout, this, [this, socket, keepOpen] {
        Connection* c = m_connections.value(socket);
        if (!c)
            return;
        const QByteArray chunk = c->pending.left(c->bytesPerTick);
        c->pending.remove(0, chunk.size());
        socket->write(chunk);
        if (c->pending.isEmpty()) {
            c->timer->stop();
            if (!keepOpen)
                socket->disconnectFromHost();
        }
    });
    connection->timer->start(kTickMs);
}

void HfTestServer::sendSimple(QTcpSocket* socket, HfRecordedRequest& request, int status, const QByteArray& body,
    const QList<QPair<QByteArray, QByteArray>>& extraHeaders)
{
    request.status = status;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto& [name, value] : extraHeaders)
        head += name + ": " + value + "\r\n";
    if (!body.isEmpty() && !head.contains("Content-Type"))
        head += "Content-Type: application/json\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n";
    socket->write(head);
    if (request.method != "HEAD")
        socket->write(body);
    socket->disconnectFromHost();
}

} // namespace hearth::test
