// SPDX-License-Identifier: MIT
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Models

// The download queue: progress, speed and time left, what went wrong, and the actions that apply.
// The queue is kept in the data folder, so it survives a restart and resumes where it stopped.
Item {
    id: root

    required property DownloadListModel downloads

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: qsTr("Downloads are checked against the repository's SHA-256 before they are offered for loading.")
                wrapMode: Text.Wrap
                opacity: 0.7
            }
            Button {
                objectName: "clearFinishedButton"
                text: qsTr("Clear Finished")
                enabled: list.count > 0
                onClicked: root.downloads.clearFinished()
                Accessible.name: qsTr("Remove finished, failed and cancelled downloads from the list")
            }
        }

        ListView {
            id: list
            objectName: "downloadList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.downloads
            ScrollBar.vertical: ScrollBar {}

            delegate: Frame {
                id: item

                required property var downloadId
                required property string fileName
                required property string repo
                required property string state
                required property string stateText
                required property real progress
                required property string sizeText
                required property string speedText
                required property string etaText
                required property string errorText
                required property string verificationText
                required property bool canPause
                required property bool canResume
                required property bool canCancel
                required property bool canRetry
                required property bool canRemove

                width: ListView.view.width - 12

                ColumnLayout {
                    anchors.fill: parent
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        Label {
                            Layout.fillWidth: true
                            textFormat: Text.PlainText
                            text: item.repo.length > 0 ? qsTr("%1 from %2").arg(item.fileName).arg(item.repo) : item.fileName
                            font.bold: true
                            elide: Text.ElideMiddle
                        }
                        Label {
                            objectName: "downloadState"
                            text: item.stateText
                            color: item.state === "failed" ? "#c0392b" : item.state === "completed" ? "#2e9d5b" : palette.text
                        }
                    }
                    ProgressBar {
                        Layout.fillWidth: true
                        visible: item.state !== "completed" && item.state !== "cancelled"
                        from: 0
                        to: 1
                        value: Math.max(0, item.progress)
                        indeterminate: item.progress < 0 && item.state === "downloading"
                        Accessible.name: qsTr("Progress of %1").arg(item.fileName)
                    }
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 6
                        Label {
                            Layout.fillWidth: true
                            text: [item.sizeText, item.speedText, item.etaText, item.verificationText]
                                  .filter(part => part.length > 0).join(" · ")
                            elide: Text.ElideRight
                            opacity: 0.75
                        }
                        Button {
                            visible: item.canPause
                            text: qsTr("Pause")
                            onClicked: root.downloads.pause(item.downloadId)
                            Accessible.name: qsTr("Pause downloading %1").arg(item.fileName)
                        }
                        Button {
                            visible: item.canResume
                            text: qsTr("Resume")
                            onClicked: root.downloads.resume(item.downloadId)
                            Accessible.name: qsTr("Resume downloading %1").arg(item.fileName)
                        }
                        Button {
                            visible: item.canRetry
                            text: qsTr("Retry")
                            onClicked: root.downloads.retry(item.downloadId)
                            Accessible.name: qsTr("Try downloading %1 again").arg(item.fileName)
                        }
                        Button {
                            visible: item.canCancel
                            text: qsTr("Cancel", "button: stop a download and delete its partial file")
                            onClicked: root.downloads.cancel(item.downloadId)
                            Accessible.name: qsTr("Cancel downloading %1").arg(item.fileName)
                        }
                        Button {
                            visible: item.canRemove
                            text: qsTr("Remove", "button: forget a download; a finished file stays on disk")
                            onClicked: root.downloads.remove(item.downloadId)
                            Accessible.name: qsTr("Remove %1 from the list").arg(item.fileName)
                        }
                    }
                    Label {
                        objectName: "downloadError"
                        Layout.fillWidth: true
                        visible: item.errorText.length > 0
                        textFormat: Text.PlainText
                        text: item.errorText
                        color: "#c0392b"
                        wrapMode: Text.Wrap
                    }
                }
            }

            Label {
                anchors.centerIn: parent
                width: parent.width - 20
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                visible: list.count === 0
                text: qsTr("Nothing downloaded yet. Pick a model in the catalog or search Hugging Face.")
                opacity: 0.6
            }
        }
    }
}
