// SPDX-License-Identifier: MIT
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Models

// Hugging Face search: each result says whether Hearth runs it sparse, dense only, or not at all
// and why; a result's files can be listed and its GGUF files downloaded.
Item {
    id: root

    required property HubSearch search

    signal downloadStarted()

    function supportText(support) {
        switch (support) {
        case "sparse":
            return qsTr("Sparse", "search result: runs with hot/cold neuron placement");
        case "dense":
            return qsTr("Dense only", "search result: runs without predictors");
        default:
            return qsTr("Unsupported", "search result: Hearth cannot run it");
        }
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 10

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 3
            spacing: 8

            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: query
                    objectName: "hubSearchField"
                    Layout.fillWidth: true
                    placeholderText: qsTr("Search Hugging Face, e.g. ReluLLaMA or PowerInfer")
                    onAccepted: root.search.search(text)
                    Accessible.name: qsTr("Search models on Hugging Face")
                }
                Button {
                    objectName: "hubSearchButton"
                    text: qsTr("Search", "button: search Hugging Face")
                    enabled: query.text.trim().length > 0 && !root.search.busy
                    onClicked: root.search.search(query.text)
                }
                BusyIndicator {
                    running: root.search.busy
                    visible: running
                    Layout.preferredHeight: 28
                    Layout.preferredWidth: 28
                }
            }
            Label {
                Layout.fillWidth: true
                visible: root.search.errorText.length > 0
                textFormat: Text.PlainText
                text: root.search.errorText
                color: "#c0392b"
                wrapMode: Text.Wrap
            }

            ListView {
                id: results
                objectName: "hubResultList"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                spacing: 4
                model: root.search
                ScrollBar.vertical: ScrollBar {}

                delegate: ItemDelegate {
                    id: result

                    required property string repoId
                    required property string support
                    required property string reason
                    required property string architecture
                    required property string format
                    required property var downloads
                    required property var likes

                    width: ListView.view.width - 12
                    highlighted: ModelManager.filesRepo === repoId
                    onClicked: ModelManager.listRepoFiles(repoId)
                    Accessible.name: repoId

                    contentItem: ColumnLayout {
                        spacing: 2
                        RowLayout {
                            Layout.fillWidth: true
                            Label {
                                Layout.fillWidth: true
                                textFormat: Text.PlainText
                                text: result.repoId
                                font.bold: true
                                elide: Text.ElideRight
                            }
                            FitBadgeLabel {
                                kind: result.support
                                text: root.supportText(result.support)
                                detail: result.reason
                            }
                        }
                        Label {
                            Layout.fillWidth: true
                            textFormat: Text.PlainText
                            text: result.reason
                            wrapMode: Text.Wrap
                            opacity: 0.8
                        }
                        Label {
                            text: qsTr("%1 downloads · %2 likes").arg(Number(result.downloads).toLocaleString(Qt.locale(), 'f', 0))
                                  .arg(Number(result.likes).toLocaleString(Qt.locale(), 'f', 0))
                            opacity: 0.6
                            font.pointSize: Qt.application.font.pointSize * 0.85
                        }
                    }
                }

                Label {
                    anchors.centerIn: parent
                    width: parent.width - 20
                    horizontalAlignment: Text.AlignHCenter
                    wrapMode: Text.Wrap
                    visible: results.count === 0 && !root.search.busy
                    text: qsTr("Search for a model by name. Results say whether Hearth runs them with hot neurons on the GPU (sparse), without (dense only), or not at all.")
                    opacity: 0.6
                }
            }
        }

        // The chosen result's files.
        Frame {
            objectName: "repoFilesPane"
            Layout.fillHeight: true
            Layout.fillWidth: true
            Layout.preferredWidth: 2
            visible: ModelManager.filesRepo.length > 0

            ColumnLayout {
                anchors.fill: parent
                spacing: 6
                Label {
                    Layout.fillWidth: true
                    textFormat: Text.PlainText
                    text: qsTr("Files of %1").arg(ModelManager.filesRepo)
                    font.bold: true
                    elide: Text.ElideMiddle
                }
                BusyIndicator {
                    running: ModelManager.listingFiles
                    visible: running
                }
                ListView {
                    id: files
                    objectName: "repoFileList"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    model: ModelManager.repoFiles
                    ScrollBar.vertical: ScrollBar {}
                    delegate: RowLayout {
                        id: fileRow
                        required property var modelData
                        width: ListView.view.width - 12
                        Label {
                            Layout.fillWidth: true
                            textFormat: Text.PlainText
                            text: qsTr("%1 (%2)").arg(fileRow.modelData.path).arg(fileRow.modelData.sizeText)
                            elide: Text.ElideMiddle
                            opacity: fileRow.modelData.isModel ? 1 : 0.6
                        }
                        Button {
                            visible: fileRow.modelData.isModel
                            text: qsTr("Download", "button: download a model file")
                            onClicked: {
                                ModelManager.downloadRepoFile(ModelManager.filesRepo, fileRow.modelData.path);
                                root.downloadStarted();
                            }
                            Accessible.name: qsTr("Download %1").arg(fileRow.modelData.path)
                        }
                    }
                    Label {
                        anchors.centerIn: parent
                        visible: files.count === 0 && !ModelManager.listingFiles
                        text: qsTr("No files listed.")
                        opacity: 0.6
                    }
                }
            }
        }
    }
}
