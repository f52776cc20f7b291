// SPDX-License-Identifier: MIT
// Converting a Hugging Face model folder (with optional predictor and activation folders) to a
// GGUF file, re-encoding a GGUF file with a llama-quantize preset, or making a dense ReLU GGUF
// model sparse (type "Sparse", with an optional calibration text): folder choosers, type and
// destination, Start / Cancel, progress with its phase, and the result. Emits modelConverted()
// with the new file so the Models page can list it.
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth.Models
import Hearth.Dialogs

Pane {
    id: root

    /// The job this panel drives; one is made when none is given.
    property ConversionJob job: ownJob
    /// A new model file is ready.
    signal modelConverted(string path)

    function localPath(url) {
        return root.job.pathFromUrl(url)
    }
    // Follows the source and the type until the user picks a destination of their own.
    function suggestDestination() {
        if (!destinationField.edited)
            root.job.destination = root.job.suggestedDestination()
    }
    // "Make Sparse…" on an installed model: that file, the Sparse type, a destination beside it.
    function prepareSparse(path) {
        if (root.job.running)
            return
        destinationField.edited = false
        root.job.source = path
        root.job.outputType = "Sparse"
        root.suggestDestination()
    }

    padding: 12

    ConversionJob {
        id: ownJob
    }

    Connections {
        target: root.job
        function onModelReady(path) {
            root.modelConverted(path)
        }
    }

    DialogProblem {
        id: dialogProblem
    }
    FolderDialog {
        id: modelDialog
        title: qsTr("Choose the model folder")
        onAccepted: {
            root.job.source = root.localPath(selectedFolder)
            root.suggestDestination()
        }
    }
    FolderDialog {
        id: predictorDialog
        title: qsTr("Choose the predictor folder")
        onAccepted: root.job.predictorFolder = root.localPath(selectedFolder)
    }
    FolderDialog {
        id: activationDialog
        title: qsTr("Choose the activation statistics folder")
        onAccepted: root.job.activationFolder = root.localPath(selectedFolder)
    }
    FileDialog {
        id: ggufDialog
        title: qsTr("Choose a GGUF model to quantize")
        nameFilters: [qsTr("GGUF models (*.gguf)")]
        onAccepted: {
            root.job.source = root.localPath(selectedFile)
            root.suggestDestination()
        }
    }
    FileDialog {
        id: calibrationDialog
        title: qsTr("Choose a calibration text")
        nameFilters: [qsTr("Text files (*.txt *.md)"), qsTr("All files (*)")]
        onAccepted: root.job.calibrationFile = root.localPath(selectedFile)
    }
    FileDialog {
        id: destinationDialog
        title: qsTr("Save the converted model as")
        fileMode: FileDialog.SaveFile
        nameFilters: [qsTr("GGUF models (*.gguf)")]
        onAccepted: {
            destinationField.edited = true
            root.job.destination = root.localPath(selectedFile)
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            text: qsTr("Convert, quantize or make a model sparse")
            font.bold: true
            font.pointSize: 12
            Layout.fillWidth: true
        }

        GridLayout {
            columns: 3
            columnSpacing: 8
            rowSpacing: 6
            enabled: !root.job.running
            Layout.fillWidth: true

            Label { text: qsTr("Model") }
            TextField {
                objectName: "sourceField"
                text: root.job.source
                placeholderText: qsTr("Hugging Face model folder, or a .gguf file")
                Layout.fillWidth: true
                onEditingFinished: {
                    root.job.source = text
                    root.suggestDestination()
                }
            }
            RowLayout {
                Button {
                    text: qsTr("Folder…")
                    onClicked: dialogProblem.openChooser(modelDialog)
                }
                Button {
                    text: qsTr("GGUF file…")
                    onClicked: dialogProblem.openChooser(ggufDialog)
                }
            }

            Label { text: qsTr("Predictors") }
            TextField {
                objectName: "predictorField"
                text: root.job.predictorFolder
                placeholderText: qsTr("Optional: folder with model_<n>.pt files (sparse model)")
                Layout.fillWidth: true
                onEditingFinished: root.job.predictorFolder = text
            }
            Button {
                text: qsTr("Folder…")
                onClicked: dialogProblem.openChooser(predictorDialog)
            }

            Label { text: qsTr("Activations") }
            TextField {
                objectName: "activationField"
                text: root.job.activationFolder
                placeholderText: qsTr("Optional: folder with activation_<n>.pt files")
                Layout.fillWidth: true
                onEditingFinished: root.job.activationFolder = text
            }
            Button {
                text: qsTr("Folder…")
                onClicked: dialogProblem.openChooser(activationDialog)
            }

            Label { text: qsTr("Type") }
            ComboBox {
                id: typeBox
                objectName: "typeBox"
                // As tall as its text (as the window's FittedComboBox): Qt 6.4's Fusion style keeps
                // a 24-pixel box, which cuts a larger font at the bottom.
                implicitHeight: Math.max(implicitBackgroundHeight + topInset + bottomInset, Math.ceil(typeMetrics.height) + 8)
                FontMetrics {
                    id: typeMetrics
                    font: typeBox.font
                }
                model: root.job.outputTypes
                currentIndex: Math.max(0, root.job.outputTypes.indexOf(root.job.outputType))
                onActivated: index => {
                    root.job.outputType = root.job.outputTypes[index]
                    root.suggestDestination()
                }
                Layout.fillWidth: true
            }
            Label {
                // In QML so that a language switch renews them.
                readonly property var hints: ({
                    "F16": qsTr("full quality"),
                    "Q8_0": qsTr("near full quality"),
                    "Q6_K": qsTr("close to Q8_0, a quarter smaller"),
                    "Q5_K_M": qsTr("high quality"),
                    "Q4_K_M": qsTr("the usual choice: good quality, small"),
                    "Q4_0": qsTr("small; sparse models need it or Q8_0"),
                    "IQ4_XS": qsTr("smallest, for small GPUs"),
                    "Sparse": qsTr("skips the neurons that matter least (ReLU: predictors, SwiGLU: thresholds)")
                })
                objectName: "typeHint"
                text: hints[typeBox.currentText] || ""
                opacity: 0.7
            }

            Label {
                visible: root.job.outputType === "Sparse"
                text: qsTr("Calibration")
            }
            TextField {
                objectName: "calibrationField"
                visible: root.job.outputType === "Sparse"
                text: root.job.calibrationFile
                placeholderText: qsTr("Optional: a text file to calibrate on (default: the built-in text)")
                Layout.fillWidth: true
                onEditingFinished: root.job.calibrationFile = text
            }
            Button {
                visible: root.job.outputType === "Sparse"
                text: qsTr("File…")
                onClicked: dialogProblem.openChooser(calibrationDialog)
            }

            Label { text: qsTr("Save as") }
            TextField {
                id: destinationField
                objectName: "destinationField"
                property bool edited: false
                text: root.job.destination
                placeholderText: qsTr("Where the .gguf file goes")
                Layout.fillWidth: true
                onEditingFinished: {
                    edited = text.length > 0
                    root.job.destination = text
                }
            }
            Button {
                text: qsTr("Browse…")
                onClicked: {
                    if (root.job.destination.length > 0)
                        destinationDialog.selectedFile = root.job.urlFromPath(root.job.destination)
                    dialogProblem.openChooser(destinationDialog)
                }
            }
        }

        CheckBox {
            objectName: "replaceBox"
            visible: root.job.destinationExists
            enabled: !root.job.running
            text: qsTr("The file exists: replace it")
            checked: root.job.allowReplace
            onToggled: root.job.allowReplace = checked
        }

        RowLayout {
            Layout.fillWidth: true
            spacing: 8

            Button {
                objectName: "startButton"
                text: qsTr("Start", "button: start converting")
                enabled: !root.job.running && root.job.source.length > 0 && root.job.destination.length > 0
                         && (!root.job.destinationExists || root.job.allowReplace)
                onClicked: root.job.start()
            }
            Button {
                objectName: "cancelButton"
                text: qsTr("Cancel", "button: stop converting")
                enabled: root.job.running
                onClicked: root.job.cancel()
            }
            ProgressBar {
                objectName: "progressBar"
                from: 0
                to: 1
                value: root.job.progress
                visible: root.job.running
                Layout.fillWidth: true
            }
        }

        Label {
            objectName: "phaseLabel"
            visible: root.job.running
            text: root.job.estimatedBytes > 0
                  ? qsTr("%1 (%2 %)  ·  output about %3").arg(root.job.phase)
                        .arg(Math.floor(root.job.progress * 100))
                        .arg(Qt.locale().formattedDataSize(root.job.estimatedBytes, 1))
                  : qsTr("%1 (%2 %)").arg(root.job.phase).arg(Math.floor(root.job.progress * 100))
            Layout.fillWidth: true
            elide: Text.ElideRight
        }

        Label {
            objectName: "resultLabel"
            visible: !root.job.running && root.job.message.length > 0
            text: root.job.message
            color: root.job.state === ConversionJob.Failed ? "#c0392b" : palette.windowText
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        Item {
            Layout.fillHeight: true
        }
    }
}
