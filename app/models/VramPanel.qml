// SPDX-License-Identifier: MIT
// The VRAM budget panel: a slider from 0 to the GPU's memory plus "Auto", the planner's answer
// drawn live (per layer: attention on GPU or CPU, hot neurons on the GPU against cold ones on the
// CPU; the GPU memory breakdown; the expected speed) and an Apply button.
pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Models

Pane {
    id: root

    required property PlacementPreview preview
    /// Emitted with the effective budget when the user applies it.
    signal budgetApplied(real budgetBytes, bool autoBudget)
    /// False hides Apply (a plan from catalog figures: nothing to place or remember yet).
    property bool canApply: true

    readonly property color gpuColor: "#2e9d5b"
    readonly property color cpuColor: "#8a94a6"
    readonly property real gib: 1024 * 1024 * 1024

    function gibText(bytes) {
        return qsTr("%1 GiB").arg((bytes / gib).toLocaleString(Qt.locale(), 'f', bytes < 10 * gib ? 2 : 1))
    }

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            text: root.preview.modelName.length > 0
                  ? qsTr("GPU memory for %1").arg(root.preview.modelName)
                  : qsTr("GPU memory budget")
            font.bold: true
            font.pointSize: 12
            Layout.fillWidth: true
            elide: Text.ElideRight
        }

        // Without a GPU: say so, and offer to plan for one.
        ColumnLayout {
            objectName: "noGpuBox"
            visible: !root.preview.hasGpu
            Layout.fillWidth: true
            spacing: 4
            Label {
                objectName: "noGpuMessage"
                text: root.preview.previewGpuGiB > 0
                      ? qsTr("No GPU found on this computer. Planning for a GPU of %1 GB.").arg(root.preview.previewGpuGiB)
                      : qsTr("No GPU found on this computer: models run on the processor.")
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            RowLayout {
                Label { text: qsTr("Plan for a GPU of:") }
                Repeater {
                    model: root.preview.previewSizesGiB
                    delegate: Button {
                        required property int modelData
                        objectName: "preview" + modelData
                        text: qsTr("%1 GB").arg(modelData)
                        checkable: true
                        checked: root.preview.previewGpuGiB === modelData
                        onClicked: root.preview.previewGpuGiB = checked ? modelData : 0
                        Accessible.name: qsTr("Plan for a GPU of %1 GB").arg(modelData)
                    }
                }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            enabled: root.preview.gpuBytes > 0
            Slider {
                id: slider
                objectName: "budgetSlider"
                Layout.fillWidth: true
                from: 0
                to: Math.max(1, root.preview.gpuBytes)
                stepSize: 64 * 1024 * 1024
                value: root.preview.effectiveBudgetBytes
                onMoved: root.preview.budgetBytes = value
                Accessible.name: qsTr("GPU memory budget")
            }
            Switch {
                id: autoSwitch
                objectName: "autoSwitch"
                text: qsTr("Auto", "VRAM budget follows the free GPU memory")
                checked: root.preview.autoBudget
                onToggled: root.preview.autoBudget = checked
            }
            Label {
                objectName: "budgetLabel"
                text: root.preview.budgetText
                Layout.minimumWidth: 110
            }
        }

        // GPU memory breakdown as one stacked bar over the GPU's size.
        Rectangle {
            Layout.fillWidth: true
            Layout.preferredHeight: 16
            radius: 3
            color: "transparent"
            border.color: root.palette.mid
            Row {
                anchors.fill: parent
                anchors.margins: 1
                Repeater {
                    model: [
                        { bytes: root.preview.weightsBytes, color: root.gpuColor },
                        { bytes: root.preview.kvCacheBytes, color: "#3b7dd8" },
                        { bytes: root.preview.scratchBytes, color: "#d8a03b" },
                        { bytes: root.preview.reserveBytes, color: "#9b59b6" }
                    ]
                    delegate: Rectangle {
                        required property var modelData
                        height: parent.height
                        width: root.preview.gpuBytes > 0 ? parent.width * modelData.bytes / root.preview.gpuBytes : 0
                        color: modelData.color
                    }
                }
            }
        }
        Label {
            objectName: "breakdownLabel"
            text: root.preview.breakdownText
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "speedLabel"
            text: root.preview.speedText
            font.bold: true
        }
        Label {
            objectName: "summaryLabel"
            text: root.preview.summaryText
        }
        Label {
            objectName: "reasonLabel"
            text: root.preview.reason
            wrapMode: Text.Wrap
            Layout.fillWidth: true
            color: root.preview.fits ? root.palette.text : "#c0392b"
        }

        RowLayout {
            spacing: 12
            Label { text: qsTr("Attention"); font.pointSize: 8 }
            Rectangle { width: 10; height: 10; color: root.gpuColor }
            Label { text: qsTr("GPU"); font.pointSize: 8 }
            Rectangle { width: 10; height: 10; color: root.cpuColor }
            Label { text: qsTr("CPU"); font.pointSize: 8 }
            Label { text: qsTr("FFN neurons: hot on GPU / cold on CPU"); font.pointSize: 8 }
        }

        ListView {
            id: layers
            objectName: "layerList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.minimumHeight: 80
            clip: true
            model: root.preview
            spacing: 2
            ScrollBar.vertical: ScrollBar {}
            delegate: RowLayout {
                id: row
                required property int layerNumber
                required property bool attentionOnGpu
                required property real hotNeurons
                required property real feedForward
                required property real hotFraction
                required property int experts
                required property int gpuExperts
                width: ListView.view.width - 12
                height: 12
                spacing: 6
                Label {
                    text: qsTr("L%1", "layer number").arg(row.layerNumber)
                    font.pointSize: 7
                    Layout.preferredWidth: 28
                }
                Rectangle {
                    Layout.preferredWidth: 10
                    Layout.preferredHeight: 10
                    color: row.attentionOnGpu ? root.gpuColor : root.cpuColor
                    Accessible.name: row.attentionOnGpu ? qsTr("Attention on the GPU") : qsTr("Attention on the CPU")
                }
                Rectangle {
                    Layout.fillWidth: true
                    Layout.preferredHeight: 10
                    color: root.cpuColor
                    Rectangle {
                        width: parent.width * row.hotFraction
                        height: parent.height
                        color: root.gpuColor
                    }
                    ToolTip.visible: hover.hovered
                    ToolTip.text: row.experts > 0
                                  ? qsTr("Layer %1: %2 of %3 experts on the GPU").arg(row.layerNumber)
                                        .arg(row.gpuExperts).arg(row.experts)
                                  : qsTr("Layer %1: %2 of %3 neurons on the GPU").arg(row.layerNumber)
                                        .arg(row.hotNeurons).arg(row.feedForward)
                    HoverHandler { id: hover }
                }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            Item { Layout.fillWidth: true }
            Button {
                objectName: "applyButton"
                text: qsTr("Apply", "button: use this GPU memory budget")
                visible: root.canApply
                enabled: root.preview.modelReady && root.preview.hasGpu
                onClicked: {
                    root.preview.apply()
                    root.budgetApplied(root.preview.effectiveBudgetBytes, root.preview.autoBudget)
                }
            }
        }
    }
}
