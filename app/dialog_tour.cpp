// SPDX-License-Identifier: MIT
#include "dialog_tour.h"

#include "filedialogsupport.h"

#include <QMetaObject>
#include <QQmlEngine>
#include <QVariant>

namespace hearth::app {

namespace {

// QtQuick.Dialogs' base (FileDialog, FolderDialog, MessageDialog, ...) and QtQuick.Controls'
// Dialog. Both are private classes, known here by name only.
bool isDialog(const QObject* object)
{
    return object->inherits("QQuickAbstractDialog") || object->inherits("QQuickDialog");
}

bool isFileChooser(const QObject* object)
{
    return object->inherits("QQuickFileDialog") || object->inherits("QQuickFolderDialog");
}

constexpr int kPollMs = 50;
constexpr int kMaxPolls = 100; // a dialog has 5 s to show

} // namespace

DialogTour::DialogTour(QObject* root, QObject* parent)
    : QObject(parent)
    , m_root(root)
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &DialogTour::checkOpened);
}

QList<QObject*> DialogTour::dialogs() const
{
    QList<QObject*> found;
    if (!m_root)
        return found;
    const QList<QObject*> all = m_root->findChildren<QObject*>();
    for (QObject* object : all) {
        if (isDialog(object))
            found.append(object);
    }
    return found;
}

QString DialogTour::describe(QObject* dialog)
{
    if (!dialog->objectName().isEmpty())
        return dialog->objectName();
    QString path = QString::fromLatin1(dialog->metaObject()->className());
    for (QObject* p = dialog->parent(); p; p = p->parent()) {
        if (!p->objectName().isEmpty()) {
            path = p->objectName() + QLatin1Char('/') + path;
            break;
        }
    }
    if (const QVariant title = dialog->property("title"); title.isValid() && !title.toString().isEmpty())
        path += QStringLiteral(" “%1”").arg(title.toString());
    return path;
}

void DialogTour::start()
{
    const QList<QObject*> found = dialogs();
    for (QObject* d : found)
        m_pending.append(d);
    // Qt's file chooser crashes the process in Qt 6.4 when its modules are missing: report
    // that instead of opening one.
    if (m_root) {
        FileDialogSupport support(qmlEngine(m_root), FileDialogSupport::defaultRequirements());
        if (!support.available()) {
            m_report.append(QStringLiteral("FAILED file choosers: %1").arg(support.problem()));
            m_allOpened = false;
            for (auto it = m_pending.begin(); it != m_pending.end();) {
                it = (*it && isFileChooser(*it)) ? m_pending.erase(it) : it + 1;
            }
        }
    }
    if (m_pending.isEmpty() && m_report.isEmpty()) {
        m_report.append(QStringLiteral("FAILED no dialog found"));
        m_allOpened = false;
    }
    QTimer::singleShot(0, this, &DialogTour::openNext);
}

void DialogTour::openNext()
{
    while (!m_pending.isEmpty() && !m_pending.constFirst())
        m_pending.removeFirst();
    if (m_pending.isEmpty()) {
        Q_EMIT finished(m_allOpened);
        return;
    }
    m_current = m_pending.takeFirst();
    m_waitedPolls = 0;
    QMetaObject::invokeMethod(m_current, "open");
    m_poll.start();
}

void DialogTour::checkOpened()
{
    if (!m_current) {
        m_poll.stop();
        openNext();
        return;
    }
    const bool visible = m_current->property("visible").toBool();
    if (!visible && ++m_waitedPolls < kMaxPolls)
        return;
    m_poll.stop();
    const QString name = describe(m_current);
    if (visible) {
        m_report.append(QStringLiteral("opened %1").arg(name));
        Q_EMIT dialogOpened(name);
    } else {
        m_report.append(QStringLiteral("FAILED %1 did not open").arg(name));
        m_allOpened = false;
        Q_EMIT dialogFailed(name);
    }
    QMetaObject::invokeMethod(m_current, m_current->inherits("QQuickAbstractDialog") ? "reject" : "close");
    QTimer::singleShot(kPollMs, this, &DialogTour::openNext);
}

} // namespace hearth::app
