// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// Model, compute mode, speed and what the engine is doing.
ToolBar {
    id: root

    required property ChatController controller
    required property string computeMode
    // Where the model runs, short for the bar and in full (with the engine's details) as a tooltip.
    property string placementSummary
    property string computeDetail

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: 10
        anchors.rightMargin: 10
        spacing: 16

        Label {
            Layout.fillWidth: true
            elide: Text.ElideRight
            text: root.controller.modelName.length > 0
                  ? qsTr("Model: %1 (%2)").arg(root.controller.modelName).arg(root.controller.modelDescription)
                  : qsTr("No model loaded")
        }
        Label {
            objectName: "placementLabel"
            // The placement in a few words; the details on hover.
            visible: root.placementSummary.length > 0
            Layout.maximumWidth: 380
            elide: Text.ElideRight
            text: root.placementSummary
            opacity: 0.75
            ToolTip.visible: placementHover.hovered
            ToolTip.text: root.computeDetail
            HoverHandler { id: placementHover }
        }
        Label {
            objectName: "computeModeLabel"
            text: root.computeMode
            Accessible.name: qsTr("Compute mode")
            Accessible.description: root.computeDetail
            ToolTip.visible: computeHover.hovered && root.computeDetail.length > 0
            ToolTip.text: root.computeDetail
            HoverHandler { id: computeHover }
        }
        Label {
            objectName: "speedLabel"
            visible: root.controller.lastTokensPerSecond > 0
            text: qsTr("%1 tokens/s").arg(root.controller.lastTokensPerSecond.toFixed(1))
            Accessible.name: qsTr("Speed of the last answer")
        }
        ToolButton {
            objectName: "cancelLoadButton"
            visible: root.controller.state === ChatController.Loading
            text: qsTr("Cancel", "button: stop loading the model")
            Accessible.name: qsTr("Cancel loading the model")
            onClicked: root.controller.cancelLoad()
        }
        Label {
            text: {
                switch (root.controller.state) {
                case ChatController.Loading:
                    return qsTr("Loading… %1%").arg(Math.round(root.controller.loadProgress * 100));
                case ChatController.Generating:
                    return qsTr("Answering…");
                case ChatController.Ready:
                    return qsTr("Ready");
                default:
                    return qsTr("Idle");
                }
            }
        }
    }
}
