// SPDX-License-Identifier: MIT
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Models

// The built-in catalog: what each model is, how big, under which licence, whether it runs sparse
// and how it fits this machine; a Download button per file.
Item {
    id: root

    required property ModelCatalog catalog

    signal downloadStarted()
    signal vramRequested(string catalogId)

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            TextField {
                objectName: "catalogFilter"
                Layout.fillWidth: true
                placeholderText: qsTr("Filter the catalog…")
                onTextChanged: root.catalog.filter = text
                Accessible.name: qsTr("Filter the catalog")
            }
            Label { text: qsTr("Fit for:") }
            FittedComboBox {
                objectName: "fitForBox"
                textRole: "text"
                valueRole: "value"
                implicitContentWidthPolicy: ComboBox.WidestText
                model: [
                    { value: 0, text: qsTr("This computer") },
                    { value: 8, text: qsTr("A GPU of %1 GB").arg(8) },
                    { value: 12, text: qsTr("A GPU of %1 GB").arg(12) },
                    { value: 16, text: qsTr("A GPU of %1 GB").arg(16) },
                    { value: 24, text: qsTr("A GPU of %1 GB").arg(24) }
                ]
                onActivated: root.catalog.previewGpuGiB = currentValue
                Accessible.name: qsTr("Show how the models fit this computer or a GPU of another size")
            }
        }

        ListView {
            id: list
            objectName: "catalogList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.catalog
            ScrollBar.vertical: ScrollBar {}

            delegate: Frame {
                id: entry

                required property string catalogId
                required property string name
                required property string repo
                required property string description
                required property string licence
                required property string sizeText
                required property string parametersText
                required property bool sparse
                required property int experts
                required property int expertsUsed
                required property bool needsConversion
                required property string fitKind
                required property string fitText
                required property string fitReason
                required property var files

                width: ListView.view.width - 12

                ColumnLayout {
                    anchors.fill: parent
                    spacing: 4

                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 8
                        Label {
                            text: entry.name
                            font.bold: true
                            elide: Text.ElideRight
                            Layout.fillWidth: true
                        }
                        FitBadgeLabel {
                            objectName: "kindBadge"
                            kind: entry.sparse ? "sparse" : entry.experts > 0 ? "mixture" : "dense"
                            text: entry.sparse ? qsTr("Sparse")
                                               : entry.experts > 0 ? qsTr("Mixture of experts") : qsTr("Dense")
                            detail: entry.sparse
                                    ? qsTr("Predictors available: hot neurons on the GPU, cold ones on the CPU.")
                                    : entry.experts > 0
                                      ? qsTr("Each token runs %1 of %2 experts a layer; only their weights are read.")
                                            .arg(entry.expertsUsed).arg(entry.experts)
                                      : qsTr("No predictors: every neuron is computed.")
                        }
                        FitBadgeLabel {
                            objectName: "fitBadge"
                            kind: entry.fitKind
                            text: entry.fitText
                            detail: entry.fitReason
                        }
                        Button {
                            text: qsTr("GPU Memory…")
                            onClicked: root.vramRequested(entry.catalogId)
                            Accessible.name: qsTr("Plan the GPU memory of %1").arg(entry.name)
                        }
                    }
                    Label {
                        Layout.fillWidth: true
                        text: qsTr("%1 · %2 parameters · %3 · licence: %4")
                              .arg(entry.repo).arg(entry.parametersText).arg(entry.sizeText).arg(entry.licence)
                        elide: Text.ElideRight
                        opacity: 0.75
                    }
                    Label {
                        Layout.fillWidth: true
                        text: entry.description
                        wrapMode: Text.Wrap
                    }
                    Label {
                        visible: entry.needsConversion
                        Layout.fillWidth: true
                        text: qsTr("Published as a checkpoint: it is converted to GGUF after downloading.")
                        wrapMode: Text.Wrap
                        opacity: 0.75
                        font.italic: true
                    }
                    Repeater {
                        model: entry.files
                        delegate: RowLayout {
                            id: fileRow
                            required property var modelData
                            Layout.fillWidth: true
                            Label {
                                Layout.fillWidth: true
                                text: fileRow.modelData.name === "*"
                                      ? qsTr("All files (%1)").arg(fileRow.modelData.sizeText)
                                      : qsTr("%1 · %2 · %3").arg(fileRow.modelData.name)
                                        .arg(fileRow.modelData.quantization).arg(fileRow.modelData.sizeText)
                                elide: Text.ElideMiddle
                            }
                            Button {
                                objectName: "downloadButton"
                                text: qsTr("Download", "button: download a model file")
                                onClicked: {
                                    if (ModelManager.downloadCatalogFile(entry.catalogId, fileRow.modelData.name))
                                        root.downloadStarted();
                                }
                                Accessible.name: qsTr("Download %1").arg(fileRow.modelData.name)
                            }
                        }
                    }
                }
            }

            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("No model in the catalog matches.")
                opacity: 0.6
            }
        }
    }
}
