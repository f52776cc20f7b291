// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// Model, compute mode, speed and what the engine is doing.
ToolBar {
    id: root

    required property ModelSession session
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
            textFormat: Text.PlainText
            text: root.session.modelName.length > 0
                  ? qsTr("Model: %1 (%2)").arg(root.session.modelName).arg(root.session.modelDescription)
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
            visible: root.session.lastTokensPerSecond > 0
            text: qsTr("%1 tokens/s").arg(root.session.lastTokensPerSecond.toFixed(1))
            Accessible.name: qsTr("Speed of the last answer")
        }
        ToolButton {
            objectName: "cancelLoadButton"
            visible: root.session.state === ModelSession.Loading
            text: qsTr("Cancel", "button: stop loading the model")
            Accessible.name: qsTr("Cancel loading the model")
            onClicked: root.session.cancelLoad()
        }
        Label {
            text: {
                switch (root.session.state) {
                case ModelSession.Loading:
                    return qsTr("Loading… %1%").arg(Math.round(root.session.loadProgress * 100));
                case ModelSession.Generating:
                    return qsTr("Answering…");
                case ModelSession.Ready:
                    return qsTr("Ready");
                default:
                    return qsTr("Idle");
                }
            }
        }
    }
}
