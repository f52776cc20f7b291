// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

namespace hearth::app {

/// Whether QtQuick.Dialogs' FileDialog and FolderDialog can open in this installation.
///
/// Where the platform has no native file chooser (most Linux desktops without a Qt 6 platform
/// theme), Qt draws its own, which imports QML modules of other packages at the moment it opens.
/// Qt 6.4 crashes when one of them is missing instead of failing the open, so every place that
/// opens a file chooser asks here first and shows `problem` instead:
///
/// @code
///     onClicked: FileDialogSupport.available ? modelDialog.open() : dialogProblem.open()
/// @endcode
class FileDialogSupport : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

    Q_PROPERTY(bool available READ available CONSTANT)
    Q_PROPERTY(QString problem READ problem CONSTANT)
    Q_PROPERTY(QStringList missingModules READ missingModules CONSTANT)

public:
    /// A required QML module and the Debian package that ships it.
    struct Requirement {
        QString module;
        QString package;
    };
    /// What Qt's own file and folder choosers import beyond what the app itself imports.
    static QList<Requirement> defaultRequirements();

    /// Checks @p requirements against @p engine's import paths, once, now.
    FileDialogSupport(QQmlEngine* engine, const QList<Requirement>& requirements, QObject* parent = nullptr);

    /// QML's factory: checks defaultRequirements() in the engine that asks.
    static FileDialogSupport* create(QQmlEngine* qmlEngine, QJSEngine* jsEngine);

    [[nodiscard]] bool available() const { return m_missing.isEmpty(); }
    /// A translated sentence naming the missing modules and the packages to install; empty
    /// when available().
    [[nodiscard]] QString problem() const;
    [[nodiscard]] QStringList missingModules() const;

private:
    QList<Requirement> m_missing;
};

} // namespace hearth::app
