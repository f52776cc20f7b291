// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// Where the user writes. Enter sends, Shift+Enter adds a line, Esc stops an answer.
Pane {
    id: root

    required property ChatController controller

    readonly property bool generating: controller.state === ChatController.Generating

    function submit() {
        if (input.text.trim().length === 0 || root.controller.state !== ChatController.Ready)
            return;
        root.controller.send(input.text);
        input.clear();
    }

    RowLayout {
        anchors.fill: parent
        spacing: 8

        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(input.implicitHeight, 160)
            background: Rectangle {
                radius: 4
                color: palette.base
                border.color: input.activeFocus ? palette.highlight : palette.mid
            }

            TextArea {
                id: input
                objectName: "composerInput"

                placeholderText: root.controller.state === ChatController.NoModel
                                 ? qsTr("Open a model first")
                                 : qsTr("Write a message…")
                enabled: root.controller.state !== ChatController.NoModel
                         && root.controller.state !== ChatController.Loading
                wrapMode: TextArea.Wrap
                Accessible.name: qsTr("Message")

                Keys.onPressed: event => {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                            && !(event.modifiers & Qt.ShiftModifier)) {
                        root.submit();
                        event.accepted = true;
                    } else if (event.key === Qt.Key_Escape && root.generating) {
                        root.controller.stop();
                        event.accepted = true;
                    }
                }
            }
        }

        Button {
            text: root.generating ? qsTr("Stop", "button: stop generating") : qsTr("Send", "button: send the message")
            highlighted: !root.generating
            enabled: root.generating || (root.controller.state === ChatController.Ready && input.text.trim().length > 0)
            onClicked: root.generating ? root.controller.stop() : root.submit()
        }
    }
}
