// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// The open chat's system prompt and sampling, stored with the conversation.
Dialog {
    id: root

    required property ChatController controller

    function setValue(key, value) {
        const sampling = root.controller.sampling;
        sampling[key] = value;
        root.controller.sampling = sampling;
    }

    title: qsTr("Chat Settings")
    modal: true
    standardButtons: Dialog.Close
    anchors.centerIn: Overlay.overlay
    width: Math.min(parent ? parent.width - 40 : 520, 520)

    GridLayout {
        width: parent.width
        columns: 2
        columnSpacing: 12
        rowSpacing: 8

        Label { text: qsTr("System prompt:"); Layout.alignment: Qt.AlignTop }
        FramedTextArea {
            objectName: "systemPromptField"
            Layout.fillWidth: true
            Layout.preferredHeight: 80
            text: root.controller.systemPrompt
            onEditingFinished: root.controller.systemPrompt = text
            Accessible.name: qsTr("System prompt")
        }

        Repeater {
            model: [
                { key: "temperature", label: qsTr("Temperature:") },
                { key: "top_k", label: qsTr("Top-k:") },
                { key: "top_p", label: qsTr("Top-p:") },
                { key: "min_p", label: qsTr("Min-p:") },
                { key: "repeat_penalty", label: qsTr("Repeat penalty:") },
                { key: "repeat_last_n", label: qsTr("Penalize the last tokens:") },
                { key: "presence_penalty", label: qsTr("Presence penalty:") },
                { key: "frequency_penalty", label: qsTr("Frequency penalty:") },
                { key: "max_tokens", label: qsTr("Maximum tokens:") },
                { key: "seed", label: qsTr("Seed (-1: random):") }
            ]
            delegate: RowLayout {
                required property var modelData
                Layout.columnSpan: 2
                Layout.fillWidth: true
                Label {
                    Layout.preferredWidth: 160
                    text: modelData.label
                }
                TextField {
                    Layout.fillWidth: true
                    text: String(root.controller.sampling[modelData.key])
                    inputMethodHints: Qt.ImhFormattedNumbersOnly
                    onEditingFinished: root.setValue(modelData.key, Number(text))
                    Accessible.name: modelData.label
                }
            }
        }
    }
}
