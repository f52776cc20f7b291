// SPDX-License-Identifier: MIT
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth.App
import Hearth.Models
import Hearth.Dialogs

// The models that can be loaded: verified downloads and imported GGUF files.
Item {
    id: root

    required property ModelLibrary library
    required property ModelSession session

    signal loadRequested(string path)
    signal vramRequested(string path)
    signal sparsifyRequested(string path)

    readonly property bool engineBusy: session.state === ModelSession.Loading
                                       || session.state === ModelSession.Generating

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: qsTr("Verified downloads and imported model files. Unfinished or unverified downloads are not listed.")
                wrapMode: Text.Wrap
                opacity: 0.7
            }
            BusyIndicator {
                running: root.library.busy
                visible: running
                Layout.preferredHeight: 28
                Layout.preferredWidth: 28
            }
            Button {
                objectName: "importButton"
                text: qsTr("Import…")
                onClicked: dialogProblem.openChooser(importDialog)
                Accessible.name: qsTr("Add a GGUF model file from this computer")
            }
        }
        Label {
            objectName: "importErrorLabel"
            Layout.fillWidth: true
            visible: root.library.errorText.length > 0
            textFormat: Text.PlainText
            text: root.library.errorText
            color: "#c0392b"
            wrapMode: Text.Wrap
        }

        ListView {
            id: list
            objectName: "installedList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.library
            ScrollBar.vertical: ScrollBar {}

            delegate: Frame {
                id: entry

                required property var modelId
                required property string name
                required property string path
                required property url folderUrl
                required property bool imported
                required property string sizeText
                required property string architecture
                required property string weightType
                required property bool sparse
                required property bool sparsifiable
                required property int layers
                required property string fitKind
                required property string fitText
                required property string fitReason
                required property string note

                readonly property bool loaded: root.session.modelPath === path

                width: ListView.view.width - 12

                ColumnLayout {
                    anchors.fill: parent
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 8
                        Label {
                            Layout.fillWidth: true
                            textFormat: Text.PlainText
                            text: entry.loaded ? qsTr("%1 (loaded)").arg(entry.name) : entry.name
                            font.bold: true
                            elide: Text.ElideRight
                        }
                        FitBadgeLabel {
                            visible: entry.architecture.length > 0
                            kind: entry.sparse ? "sparse" : "dense"
                            text: entry.sparse ? qsTr("Sparse") : qsTr("Dense")
                        }
                        FitBadgeLabel {
                            visible: entry.fitText.length > 0
                            kind: entry.fitKind
                            text: entry.fitText
                            detail: entry.fitReason
                        }
                    }
                    Label {
                        Layout.fillWidth: true
                        text: entry.architecture.length > 0
                              ? qsTr("%1 · %2 · %3 · %4 · %5").arg(entry.architecture).arg(entry.weightType)
                                .arg(qsTr("%n layer(s)", "", entry.layers)).arg(entry.sizeText)
                                .arg(entry.imported ? qsTr("imported") : qsTr("downloaded"))
                              : entry.sizeText
                        elide: Text.ElideRight
                        opacity: 0.75
                    }
                    Label {
                        Layout.fillWidth: true
                        textFormat: Text.PlainText
                        text: entry.path
                        elide: Text.ElideMiddle
                        opacity: 0.6
                        font.pointSize: Qt.application.font.pointSize * 0.85
                    }
                    Label {
                        Layout.fillWidth: true
                        visible: entry.note.length > 0
                        text: entry.note
                        wrapMode: Text.Wrap
                        color: "#b07d1a"
                    }
                    RowLayout {
                        Button {
                            objectName: "loadButton"
                            text: entry.loaded ? qsTr("Reload") : qsTr("Load", "button: load this model for chatting")
                            enabled: !root.engineBusy
                            onClicked: root.loadRequested(entry.path)
                            Accessible.name: qsTr("Load %1").arg(entry.name)
                        }
                        Button {
                            text: qsTr("GPU Memory…")
                            onClicked: root.vramRequested(entry.path)
                            Accessible.name: qsTr("Plan the GPU memory of %1").arg(entry.name)
                        }
                        Button {
                            objectName: "sparsifyButton"
                            visible: entry.sparsifiable
                            text: qsTr("Make Sparse…")
                            onClicked: root.sparsifyRequested(entry.path)
                            Accessible.name: qsTr("Make %1 sparse, so that it skips the neurons that matter least").arg(entry.name)
                        }
                        Button {
                            text: qsTr("Show in Folder")
                            onClicked: Qt.openUrlExternally(entry.folderUrl)
                            Accessible.name: qsTr("Open the folder that holds %1").arg(entry.name)
                        }
                        Button {
                            text: qsTr("Remove from List")
                            enabled: !entry.loaded
                            onClicked: root.library.removeFromList(entry.modelId)
                            Accessible.name: qsTr("Remove %1 from the list; the file stays on disk").arg(entry.name)
                        }
                        Button {
                            objectName: "deleteModelButton"
                            // An imported file is the user's own: only downloads are deleted.
                            visible: !entry.imported
                            text: qsTr("Delete…", "button: delete a downloaded model from the disk")
                            enabled: !entry.loaded && !root.engineBusy
                            onClicked: {
                                deleteModelDialog.modelId = entry.modelId;
                                deleteModelDialog.modelName = entry.name;
                                deleteModelDialog.open();
                            }
                            Accessible.name: qsTr("Delete %1 from the disk").arg(entry.name)
                        }
                    }
                }
            }

            Label {
                anchors.centerIn: parent
                width: parent.width - 20
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                visible: list.count === 0 && !root.library.busy
                text: qsTr("No models yet. Download one, or import a GGUF file you already have.")
                opacity: 0.6
            }
        }
    }

    DialogProblem {
        id: dialogProblem
    }
    Dialog {
        id: deleteModelDialog
        objectName: "deleteModelDialog"

        property var modelId: 0
        property string modelName

        title: qsTr("Delete Model")
        modal: true
        anchors.centerIn: parent
        standardButtons: Dialog.Ok | Dialog.Cancel
        contentWidth: 360
        Component.onCompleted: standardButton(Dialog.Ok).text = qsTr("Delete")
        onAccepted: root.library.deleteModel(modelId)

        Label {
            width: 360 // fixed: a width from the dialog would loop through its implicit size
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            text: qsTr("Delete %1? Its file is removed from the disk; using it again means downloading it again.").arg(deleteModelDialog.modelName)
        }
    }
    FileDialog {
        id: importDialog
        title: qsTr("Import a Model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: root.library.importFile(selectedFile)
    }
}
