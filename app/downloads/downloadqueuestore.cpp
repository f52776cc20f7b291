// SPDX-License-Identifier: MIT
#include "downloadqueuestore.h"

#include "downloadlogging.h"

#include <QAtomicInt>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace hearth {

namespace {

struct SchemaStep {
    int version;
    QStringList statements;
};

// Step N turns version N-1 into version N. Released steps are never edited.
const QList<SchemaStep>& schemaSteps()
{
    static const QList<SchemaStep> steps{
        {1,
            {QStringLiteral("CREATE TABLE IF NOT EXISTS download_schema (version INTEGER NOT NULL)"),
                QStringLiteral("CREATE TABLE hearth_downloads ("
                               " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                               " repo TEXT NOT NULL DEFAULT '',"
                               " file TEXT NOT NULL DEFAULT '',"
                               " revision TEXT NOT NULL DEFAULT 'main',"
                               " url TEXT NOT NULL,"
                               " destination TEXT NOT NULL,"
                               " expected_size INTEGER NOT NULL DEFAULT -1,"
                               " expected_sha256 TEXT NOT NULL DEFAULT '',"
                               " bytes_done INTEGER NOT NULL DEFAULT 0,"
                               " state TEXT NOT NULL,"
                               " error_text TEXT NOT NULL DEFAULT '',"
                               " retries INTEGER NOT NULL DEFAULT 0,"
                               " verification TEXT NOT NULL DEFAULT 'none',"
                               " created_at INTEGER NOT NULL,"
                               " updated_at INTEGER NOT NULL)")}},
        // A completed download the user cleared from the Downloads list stays installed.
        {2, {QStringLiteral("ALTER TABLE hearth_downloads ADD COLUMN cleared INTEGER NOT NULL DEFAULT 0")}},
    };
    return steps;
}

QString verificationName(Verification v)
{
    switch (v) {
    case Verification::Sha256:
        return QStringLiteral("sha256");
    case Verification::Size:
        return QStringLiteral("size");
    case Verification::None:
        break;
    }
    return QStringLiteral("none");
}

Verification verificationFromName(const QString& name)
{
    if (name == QLatin1String("sha256"))
        return Verification::Sha256;
    if (name == QLatin1String("size"))
        return Verification::Size;
    return Verification::None;
}

// A null QString binds as SQL NULL; the text columns are NOT NULL.
QString text(const QString& value)
{
    return value.isNull() ? QStringLiteral("") : value;
}

void bindItem(QSqlQuery& query, const DownloadItem& item)
{
    query.bindValue(QStringLiteral(":repo"), text(item.repo));
    query.bindValue(QStringLiteral(":file"), text(item.file));
    query.bindValue(QStringLiteral(":revision"), text(item.revision));
    query.bindValue(QStringLiteral(":url"), item.url.toString(QUrl::FullyEncoded));
    query.bindValue(QStringLiteral(":destination"), text(item.destination));
    query.bindValue(QStringLiteral(":expected_size"), item.expectedSize);
    query.bindValue(QStringLiteral(":expected_sha256"), text(QString::fromLatin1(item.expectedSha256)));
    query.bindValue(QStringLiteral(":bytes_done"), item.bytesDone);
    query.bindValue(QStringLiteral(":state"), downloadStateName(item.state));
    query.bindValue(QStringLiteral(":error_text"), text(item.errorText));
    query.bindValue(QStringLiteral(":retries"), item.retries);
    query.bindValue(QStringLiteral(":verification"), verificationName(item.verification));
    query.bindValue(QStringLiteral(":created_at"), item.createdAt.toMSecsSinceEpoch());
    query.bindValue(QStringLiteral(":updated_at"), item.updatedAt.toMSecsSinceEpoch());
    query.bindValue(QStringLiteral(":cleared"), item.cleared ? 1 : 0);
}

} // namespace

DownloadQueueStore::DownloadQueueStore()
{
    static QAtomicInt counter;
    m_connectionName = QStringLiteral("hearth.downloads.%1").arg(counter.fetchAndAddRelaxed(1));
}

DownloadQueueStore::~DownloadQueueStore()
{
    close();
}

int DownloadQueueStore::latestSchemaVersion()
{
    return schemaSteps().constLast().version;
}

bool DownloadQueueStore::fail(const QString& what, const QString& detail)
{
    m_lastError = what;
    qCWarning(lcDownloads) << what << detail;
    return false;
}

bool DownloadQueueStore::open(const QString& path)
{
    close();
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    db.setDatabaseName(path);
    // The chat store may hold the same file; wait for its locks instead of failing at once.
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open()) {
        return fail(QCoreApplication::translate("hearth::DownloadQueueStore", "Cannot open the download list %1.")
                        .arg(path),
            db.lastError().text());
    }
    return migrate();
}

void DownloadQueueStore::close()
{
    if (!QSqlDatabase::contains(m_connectionName))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
    m_schemaVersion = 0;
}

bool DownloadQueueStore::isOpen() const
{
    return QSqlDatabase::contains(m_connectionName) && QSqlDatabase::database(m_connectionName, false).isOpen();
}

bool DownloadQueueStore::migrate()
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    const QString failedText
        = QCoreApplication::translate("hearth::DownloadQueueStore", "The download list could not be prepared.");
    int version = 0;
    {
        QSqlQuery query(db);
        if (query.exec(QStringLiteral("SELECT version FROM download_schema LIMIT 1")) && query.next())
            version = query.value(0).toInt();
    }
    if (version > latestSchemaVersion()) {
        return fail(QCoreApplication::translate("hearth::DownloadQueueStore",
                        "The download list was written by a newer version of Hearth and is left untouched."),
            QString::number(version));
    }
    for (const SchemaStep& step : schemaSteps()) {
        if (step.version <= version)
            continue;
        if (!db.transaction())
            return fail(failedText, db.lastError().text());
        QSqlQuery query(db);
        for (const QString& statement : step.statements) {
            if (!query.exec(statement)) {
                const QString detail = query.lastError().text();
                db.rollback();
                return fail(failedText, detail);
            }
        }
        const bool recorded = query.exec(QStringLiteral("DELETE FROM download_schema"))
            && query.exec(QStringLiteral("INSERT INTO download_schema (version) VALUES (%1)").arg(step.version));
        if (!recorded || !db.commit()) {
            const QString detail = query.lastError().text();
            db.rollback();
            return fail(failedText, detail);
        }
        version = step.version;
    }
    m_schemaVersion = version;
    return true;
}

std::optional<qint64> DownloadQueueStore::insert(const DownloadItem& item)
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.prepare(QStringLiteral(
        "INSERT INTO hearth_downloads (repo, file, revision, url, destination, expected_size, expected_sha256,"
        " bytes_done, state, error_text, retries, verification, created_at, updated_at, cleared) VALUES (:repo,"
        " :file, :revision, :url, :destination, :expected_size, :expected_sha256, :bytes_done, :state,"
        " :error_text, :retries, :verification, :created_at, :updated_at, :cleared)"));
    bindItem(query, item);
    if (!query.exec()) {
        fail(QCoreApplication::translate("hearth::DownloadQueueStore", "The download could not be saved."),
            query.lastError().text());
        return std::nullopt;
    }
    return query.lastInsertId().toLongLong();
}

bool DownloadQueueStore::update(const DownloadItem& item)
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.prepare(QStringLiteral(
        "UPDATE hearth_downloads SET repo = :repo, file = :file, revision = :revision, url = :url,"
        " destination = :destination, expected_size = :expected_size, expected_sha256 = :expected_sha256,"
        " bytes_done = :bytes_done, state = :state, error_text = :error_text, retries = :retries,"
        " verification = :verification, created_at = :created_at, updated_at = :updated_at, cleared = :cleared"
        " WHERE id = :id"));
    bindItem(query, item);
    query.bindValue(QStringLiteral(":id"), item.id);
    if (!query.exec()) {
        return fail(QCoreApplication::translate("hearth::DownloadQueueStore", "The download could not be saved."),
            query.lastError().text());
    }
    return true;
}

bool DownloadQueueStore::remove(qint64 id)
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.prepare(QStringLiteral("DELETE FROM hearth_downloads WHERE id = :id"));
    query.bindValue(QStringLiteral(":id"), id);
    if (!query.exec()) {
        return fail(QCoreApplication::translate("hearth::DownloadQueueStore", "The download could not be removed."),
            query.lastError().text());
    }
    return true;
}

QList<DownloadItem> DownloadQueueStore::loadAll()
{
    QList<DownloadItem> items;
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    if (!query.exec(QStringLiteral(
            "SELECT id, repo, file, revision, url, destination, expected_size, expected_sha256, bytes_done, state,"
            " error_text, retries, verification, created_at, updated_at, cleared FROM hearth_downloads ORDER BY id"))) {
        fail(QCoreApplication::translate("hearth::DownloadQueueStore", "The download list could not be read."),
            query.lastError().text());
        return items;
    }
    while (query.next()) {
        DownloadItem item;
        item.id = query.value(0).toLongLong();
        item.repo = query.value(1).toString();
        item.file = query.value(2).toString();
        item.revision = query.value(3).toString();
        item.url = QUrl(query.value(4).toString(), QUrl::StrictMode);
        item.destination = query.value(5).toString();
        item.expectedSize = query.value(6).toLongLong();
        item.expectedSha256 = query.value(7).toString().toLatin1();
        item.bytesDone = query.value(8).toLongLong();
        // An unknown state (a damaged row) is retried rather than trusted.
        item.state = downloadStateFromName(query.value(9).toString()).value_or(DownloadState::Queued);
        item.errorText = query.value(10).toString();
        item.retries = query.value(11).toInt();
        item.verification = verificationFromName(query.value(12).toString());
        item.createdAt = QDateTime::fromMSecsSinceEpoch(query.value(13).toLongLong());
        item.updatedAt = QDateTime::fromMSecsSinceEpoch(query.value(14).toLongLong());
        item.cleared = query.value(15).toInt() != 0;
        items.append(item);
    }
    return items;
}

} // namespace hearth
