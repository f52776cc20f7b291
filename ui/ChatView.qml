// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import Hearth.App

// The conversation: one bubble per message, newest at the bottom.
Item {
    id: root

    required property ChatController controller

    ListView {
        id: list

        anchors.fill: parent
        anchors.margins: 12
        spacing: 10
        clip: true
        model: root.controller.messages
        // Follow the answer while it streams.
        onCountChanged: positionViewAtEnd()
        ScrollBar.vertical: ScrollBar {}

        delegate: Item {
            id: bubble

            required property string role
            required property string content
            required property bool streaming
            required property double tokensPerSecond

            readonly property bool fromUser: role === "user"

            width: ListView.view.width
            height: frame.height

            Rectangle {
                id: frame

                // Sized from the text's unwrapped width, capped; the text wraps inside. No layout
                // here: a layout filling a frame sized from the layout's own size loops.
                anchors.right: bubble.fromUser ? parent.right : undefined
                anchors.left: bubble.fromUser ? undefined : parent.left
                width: Math.min(bubble.width * 0.8, Math.max(body.implicitWidth, speed.implicitWidth) + 20)
                height: column.height + 20
                radius: 10
                color: bubble.fromUser ? palette.highlight : palette.alternateBase
                border.color: palette.mid
                border.width: bubble.fromUser ? 0 : 1

                Column {
                    id: column

                    x: 10
                    y: 10
                    width: frame.width - 20
                    spacing: 4

                    TextEdit {
                        id: body

                        width: parent.width
                        readOnly: true
                        selectByMouse: true
                        wrapMode: TextEdit.Wrap
                        textFormat: TextEdit.PlainText
                        text: bubble.content.length > 0 || !bubble.streaming ? bubble.content : qsTr("…", "placeholder while the first token is computed")
                        color: bubble.fromUser ? palette.highlightedText : palette.text
                    }
                    Label {
                        id: speed

                        visible: !bubble.fromUser && !bubble.streaming && bubble.tokensPerSecond > 0
                        text: qsTr("%1 tokens/s").arg(bubble.tokensPerSecond.toFixed(1))
                        font.pointSize: Qt.application.font.pointSize * 0.85
                        opacity: 0.7
                    }
                }
            }
        }
    }

    Label {
        anchors.centerIn: parent
        width: Math.min(parent.width - 48, 420)
        visible: list.count === 0
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        opacity: 0.7
        text: {
            switch (root.controller.state) {
            case ChatController.NoModel:
                return qsTr("Open a GGUF model to start chatting. Everything runs on this computer.");
            case ChatController.Loading:
                return qsTr("Loading the model…");
            default:
                return qsTr("Ask anything. Press Enter to send, Shift+Enter for a new line.");
            }
        }
    }
}
