// SPDX-License-Identifier: MIT
#include "huggingfaceapi.h"

#include "downloadlogging.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QTimer>
#include <QUrlQuery>

namespace hearth {

namespace {

const QUrl kDefaultEndpoint(QStringLiteral("https://huggingface.co"));

// Keeps the '/' of "owner/name" and of nested paths but encodes everything else, so a file
// called "a b#c.gguf" or a revision "refs/pr/1" reaches the Hub intact.
QString encodeSegments(const QString& path)
{
    QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (QString& part : parts)
        part = QString::fromLatin1(QUrl::toPercentEncoding(part));
    return parts.join(QLatin1Char('/'));
}

QString endpointBase(const QUrl& endpoint)
{
    QString base = endpoint.toString(QUrl::StripTrailingSlash | QUrl::RemoveQuery | QUrl::RemoveFragment);
    return base;
}

int defaultPort(const QUrl& url)
{
    return url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
}

QByteArray normalisedSha(const QString& value)
{
    const QByteArray hex = value.trimmed().toLower().toLatin1();
    static const QRegularExpression kHex(QStringLiteral("^[0-9a-f]{64}$"));
    return kHex.match(QString::fromLatin1(hex)).hasMatch() ? hex : QByteArray();
}

std::optional<QUrl> nextPageUrl(const QNetworkReply* reply)
{
    const QString link = QString::fromLatin1(reply->rawHeader("Link"));
    static const QRegularExpression kNext(QStringLiteral(R"(<([^>]+)>\s*;\s*rel="?next"?)"));
    const auto match = kNext.match(link);
    if (!match.hasMatch())
        return std::nullopt;
    return reply->url().resolved(QUrl(match.captured(1)));
}

} // namespace

HuggingFaceApi::HuggingFaceApi(QNetworkAccessManager* nam, QObject* parent)
    : QObject(parent)
    , m_nam(nam ? nam : new QNetworkAccessManager(this))
{
}

HuggingFaceApi::~HuggingFaceApi() = default;

QUrl HuggingFaceApi::endpoint() const
{
    if (m_endpointOverride.isValid() && !m_endpointOverride.isEmpty())
        return m_endpointOverride;
    const QString env = qEnvironmentVariable("HF_ENDPOINT").trimmed();
    if (!env.isEmpty()) {
        const QUrl url(env);
        if (url.isValid() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")))
            return url;
        qCWarning(lcDownloads) << "ignoring HF_ENDPOINT, not an http(s) URL:" << env;
    }
    return kDefaultEndpoint;
}

void HuggingFaceApi::setEndpoint(const QUrl& endpoint)
{
    m_endpointOverride = endpoint;
}

QString HuggingFaceApi::token() const
{
    if (!m_tokenOverride.isEmpty())
        return m_tokenOverride;
    return qEnvironmentVariable("HF_TOKEN").trimmed();
}

void HuggingFaceApi::setToken(const QString& token)
{
    m_tokenOverride = token.trimmed();
}

QUrl HuggingFaceApi::fileUrl(const QString& repo, const QString& path, const QString& revision) const
{
    return QUrl(endpointBase(endpoint()) + QLatin1Char('/') + encodeSegments(repo) + QStringLiteral("/resolve/")
            + QString::fromLatin1(QUrl::toPercentEncoding(revision)) + QLatin1Char('/') + encodeSegments(path),
        QUrl::StrictMode);
}

QUrl HuggingFaceApi::treeUrl(const QString& repo, const QString& revision) const
{
    QUrl url(endpointBase(endpoint()) + QStringLiteral("/api/models/") + encodeSegments(repo) + QStringLiteral("/tree/")
            + QString::fromLatin1(QUrl::toPercentEncoding(revision)),
        QUrl::StrictMode);
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("recursive"), QStringLiteral("true"));
    url.setQuery(query);
    return url;
}

QUrl HuggingFaceApi::searchUrl(const QString& query, int limit) const
{
    QUrl url(endpointBase(endpoint()) + QStringLiteral("/api/models"));
    QUrlQuery items;
    items.addQueryItem(QStringLiteral("search"), QString::fromLatin1(QUrl::toPercentEncoding(query)));
    items.addQueryItem(QStringLiteral("limit"), QString::number(std::clamp(limit, 1, 1000)));
    url.setQuery(items);
    return url;
}

bool HuggingFaceApi::isEndpointOrigin(const QUrl& url) const
{
    const QUrl ep = endpoint();
    return url.scheme().compare(ep.scheme(), Qt::CaseInsensitive) == 0
        && url.host().compare(ep.host(), Qt::CaseInsensitive) == 0 && defaultPort(url) == defaultPort(ep);
}

QNetworkRequest HuggingFaceApi::makeRequest(const QUrl& url) const
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("Hearth/1.0"));
    request.setTransferTimeout(m_transferTimeoutMs);
    const QString tok = token();
    if (!tok.isEmpty() && isEndpointOrigin(url))
        request.setRawHeader("Authorization", "Bearer " + tok.toUtf8());
    return request;
}

std::optional<QUrl> HuggingFaceApi::redirectTarget(const QNetworkReply* reply)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308)
        return std::nullopt;
    const QUrl location = reply->attribute(QNetworkRequest::RedirectionTargetAttribute).toUrl();
    if (!location.isValid() || location.isEmpty())
        return std::nullopt;
    return reply->url().resolved(location);
}

bool HuggingFaceApi::isAllowedRedirect(const QUrl& from, const QUrl& to)
{
    const QString scheme = to.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return false;
    return !(from.scheme().toLower() == QLatin1String("https") && scheme == QLatin1String("http"));
}

std::optional<int> HuggingFaceApi::retryAfterSeconds(const QNetworkReply* reply)
{
    const QByteArray value = reply->rawHeader("Retry-After").trimmed();
    if (value.isEmpty())
        return std::nullopt;
    bool ok = false;
    const int seconds = value.toInt(&ok);
    if (ok)
        return std::max(0, seconds);
    const QDateTime when = QDateTime::fromString(QString::fromLatin1(value), Qt::RFC2822Date);
    if (!when.isValid())
        return std::nullopt;
    return static_cast<int>(std::max<qint64>(0, QDateTime::currentDateTimeUtc().secsTo(when)));
}

bool HuggingFaceApi::isRetryableHttpStatus(int status)
{
    return status == 408 || status == 425 || status == 429 || (status >= 500 && status <= 599);
}

QString HuggingFaceApi::httpErrorText(int status, const QString& what, std::optional<int> retryAfter)
{
    switch (status) {
    case 401:
        return tr("%1 needs a Hugging Face access token. If the model is gated, accept the licence "
                  "on the model's page on the Hugging Face website and set a token in Settings.")
            .arg(what);
    case 403:
        return tr("Access to %1 was refused. The model is probably gated: accept the licence on the "
                  "model's page on the Hugging Face website and check that your token can read it.")
            .arg(what);
    case 404:
        return tr("%1 was not found. Check the repository name, the revision and the file name.").arg(what);
    case 429:
        if (retryAfter)
            return tr("Hugging Face is limiting requests (HTTP 429); try again in %n second(s).", nullptr, *retryAfter);
        return tr("Hugging Face is limiting requests (HTTP 429); try again later.");
    default:
        break;
    }
    if (status >= 500 && status <= 599)
        return tr("The server had a problem (HTTP %1) while fetching %2. Try again later.").arg(status).arg(what);
    return tr("The server answered HTTP %1 for %2.").arg(status).arg(what);
}

QString HuggingFaceApi::networkErrorText(const QNetworkReply* reply)
{
    switch (reply->error()) {
    case QNetworkReply::HostNotFoundError:
        return tr("Cannot find the server %1. Check the internet connection.").arg(reply->url().host());
    case QNetworkReply::ConnectionRefusedError:
        return tr("The server %1 refused the connection.").arg(reply->url().host());
    case QNetworkReply::RemoteHostClosedError:
        return tr("The connection was closed before the download finished.");
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError: // what a transfer timeout reports
        return tr("The connection stalled (no data for a while).");
    case QNetworkReply::SslHandshakeFailedError:
        return tr("A secure connection to %1 could not be established.").arg(reply->url().host());
    default:
        return tr("Network error: %1").arg(reply->errorString());
    }
}

std::optional<QList<HfFileEntry>> HuggingFaceApi::parseTree(const QByteArray& json, QString* error)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isArray()) {
        if (error)
            *error = tr("The repository listing could not be read (unexpected answer from the server).");
        return std::nullopt;
    }
    QList<HfFileEntry> entries;
    for (const QJsonValue& value : doc.array()) {
        const QJsonObject object = value.toObject();
        HfFileEntry entry;
        entry.path = object.value(QLatin1String("path")).toString();
        entry.type = object.value(QLatin1String("type")).toString();
        // Reject what could escape the destination folder when the path becomes a file name.
        if (entry.path.isEmpty() || entry.path.startsWith(QLatin1Char('/')) || entry.path.contains(QLatin1Char('\\'))
            || entry.path.split(QLatin1Char('/')).contains(QStringLiteral(".."))) {
            qCWarning(lcDownloads) << "skipping listing entry with an unusable path" << entry.path;
            continue;
        }
        entry.size = static_cast<qint64>(object.value(QLatin1String("size")).toDouble());
        entry.oid = object.value(QLatin1String("oid")).toString();
        const QJsonObject lfs = object.value(QLatin1String("lfs")).toObject();
        if (!lfs.isEmpty()) {
            // The Hub calls the LFS hash "oid" (and older answers "sha256").
            QString sha = lfs.value(QLatin1String("oid")).toString();
            if (sha.isEmpty())
                sha = lfs.value(QLatin1String("sha256")).toString();
            sha.remove(QStringLiteral("sha256:"));
            entry.lfsSha256 = normalisedSha(sha);
            if (lfs.contains(QLatin1String("size")))
                entry.lfsSize = static_cast<qint64>(lfs.value(QLatin1String("size")).toDouble());
        }
        entries.append(entry);
    }
    return entries;
}

std::optional<QList<HfModelSummary>> HuggingFaceApi::parseSearch(const QByteArray& json, QString* error)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isArray()) {
        if (error)
            *error = tr("The search results could not be read (unexpected answer from the server).");
        return std::nullopt;
    }
    QList<HfModelSummary> models;
    for (const QJsonValue& value : doc.array()) {
        const QJsonObject object = value.toObject();
        HfModelSummary model;
        model.id = object.value(QLatin1String("id")).toString();
        if (model.id.isEmpty())
            model.id = object.value(QLatin1String("modelId")).toString();
        if (model.id.isEmpty())
            continue;
        for (const QJsonValue& tag : object.value(QLatin1String("tags")).toArray())
            model.tags.append(tag.toString());
        model.downloads = static_cast<qint64>(object.value(QLatin1String("downloads")).toDouble());
        model.likes = static_cast<qint64>(object.value(QLatin1String("likes")).toDouble());
        model.pipelineTag = object.value(QLatin1String("pipeline_tag")).toString();
        models.append(model);
    }
    return models;
}

quint64 HuggingFaceApi::listFiles(const QString& repo, const QString& revision)
{
    Call call;
    call.kind = CallKind::Tree;
    call.repo = repo;
    call.what = repo;
    call.url = treeUrl(repo, revision);
    return startCall(std::move(call));
}

quint64 HuggingFaceApi::search(const QString& query, int limit)
{
    Call call;
    call.kind = CallKind::Search;
    call.what = query;
    call.url = searchUrl(query, limit);
    return startCall(std::move(call));
}

quint64 HuggingFaceApi::startCall(Call call)
{
    call.id = m_nextId++;
    const quint64 id = call.id;
    m_calls.insert(id, std::move(call));
    // Results always arrive after the caller has the id, even for answers that fail at once.
    QTimer::singleShot(0, this, [this, id] { send(id); });
    return id;
}

void HuggingFaceApi::send(quint64 id)
{
    const auto it = m_calls.constFind(id);
    if (it == m_calls.constEnd())
        return;
    QNetworkReply* reply = m_nam->get(makeRequest(it->url));
    connect(reply, &QNetworkReply::finished, this, [this, reply, id] { onFinished(reply, id); });
}

void HuggingFaceApi::fail(quint64 id, const QString& text, int status)
{
    m_calls.remove(id);
    qCInfo(lcDownloads) << "API request failed:" << text;
    Q_EMIT requestFailed(id, text, status);
}

void HuggingFaceApi::onFinished(QNetworkReply* reply, quint64 id)
{
    reply->deleteLater();
    auto it = m_calls.find(id);
    if (it == m_calls.end())
        return;
    Call& call = *it;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();

    if (const auto target = redirectTarget(reply)) {
        if (++call.redirects > MaxRedirects || !isAllowedRedirect(call.url, *target)) {
            fail(id, tr("Too many or unsafe redirects while fetching %1.").arg(call.what), status);
            return;
        }
        call.url = *target;
        send(id);
        return;
    }
    if (status == 0 || reply->error() != QNetworkReply::NoError) {
        if (status == 0) {
            fail(id, networkErrorText(reply), 0);
            return;
        }
        const auto retryAfter = retryAfterSeconds(reply);
        if ((status == 429 || status == 503) && retryAfter && *retryAfter <= MaxAutomaticRetryAfterSeconds
            && call.rateLimitRetries < MaxRateLimitRetries) {
            ++call.rateLimitRetries;
            QTimer::singleShot(*retryAfter * 1000, this, [this, id] { send(id); });
            return;
        }
        fail(id, httpErrorText(status, call.what, retryAfter), status);
        return;
    }

    QString error;
    const QByteArray body = reply->readAll();
    if (call.kind == CallKind::Search) {
        const auto models = parseSearch(body, &error);
        if (!models) {
            fail(id, error, status);
            return;
        }
        m_calls.remove(id);
        Q_EMIT searchFinished(id, *models);
        return;
    }
    const auto entries = parseTree(body, &error);
    if (!entries) {
        fail(id, error, status);
        return;
    }
    call.entries.append(*entries);
    if (const auto next = nextPageUrl(reply)) {
        if (isEndpointOrigin(*next)) {
            call.url = *next;
            call.redirects = 0;
            send(id);
            return;
        }
    }
    const QList<HfFileEntry> all = std::move(call.entries);
    const QString repo = call.repo;
    m_calls.remove(id);
    Q_EMIT filesListed(id, repo, all);
}

} // namespace hearth
