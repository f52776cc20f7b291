// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <QTimer>

namespace hearth::app {

/// Opens every dialog under a window, one after another, and says which opened: the file and
/// folder choosers (QtQuick.Dialogs) as well as the app's own (QtQuick.Controls Dialog). The
/// package check runs it on the installed program (HEARTH_TEST_OPEN_DIALOGS=1) so that a QML
/// module a dialog needs but the package does not depend on fails there, not on a user's desk.
///
/// @code
///     DialogTour tour(window);
///     QObject::connect(&tour, &DialogTour::finished, &app, [](bool ok) { QCoreApplication::exit(ok ? 0 : 1); });
///     tour.start();
/// @endcode
class DialogTour : public QObject
{
    Q_OBJECT

public:
    explicit DialogTour(QObject* root, QObject* parent = nullptr);

    /// The dialogs found under the root, in tree order.
    [[nodiscard]] QList<QObject*> dialogs() const;
    /// A readable name: objectName, else its type and the object names of its parents.
    [[nodiscard]] static QString describe(QObject* dialog);

    void start();
    /// "opened ..." or "FAILED ..." a line per dialog, as they happen.
    [[nodiscard]] const QStringList& report() const { return m_report; }

Q_SIGNALS:
    void dialogOpened(const QString& name);
    void dialogFailed(const QString& name);
    void finished(bool allOpened);

private:
    void openNext();
    void checkOpened();

    QObject* m_root;
    QList<QPointer<QObject>> m_pending;
    QPointer<QObject> m_current;
    QTimer m_poll;
    int m_waitedPolls = 0;
    bool m_allOpened = true;
    QStringList m_report;
};

} // namespace hearth::app
