// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// One message of the chat view. Answers are rendered as Markdown while they stream: the
// message's MessageBlocks splits the text into blocks and a token changes only the last one.
Item {
    id: root

    required property int index
    required property string role
    required property string content
    required property bool streaming
    required property double tokensPerSecond
    required property int tokenCount
    required property double timeToFirstTokenMs
    required property int siblingIndex
    required property int siblingCount
    required property string messageState
    // Ended before its end of turn: stopped, or cut off by the length limit or a full context.
    required property bool endedEarly
    required property string errorText

    /// Actions are enabled (a model is loaded and no answer is streaming).
    property bool actionsEnabled: true
    // Whether this answer may go on where it ended (the newest one, on a local model).
    property bool continueAvailable: false

    signal copyRequested(int row)
    signal regenerateRequested(int row)
    signal editRequested(int row, string text)
    signal siblingRequested(int row, int delta)
    signal deleteRequested(int row)
    signal continueRequested(int row)

    readonly property bool fromUser: role === "user"
    property bool editing: false

    implicitHeight: frame.height + actions.height + 4
    width: ListView.view ? ListView.view.width : implicitWidth

    // The user's text laid out on one line: the bubble's natural width, capped above.
    Text {
        id: unwrapped
        visible: false
        text: root.fromUser ? root.content : ""
        font: userText.font
    }

    MessageBlocks {
        id: blocks
        content: root.fromUser ? "" : root.content
        streaming: root.streaming
    }
    // A reasoning model's thinking starts folded away; the toggle shows it.
    property bool thinkingShown: false

    Rectangle {
        id: frame

        anchors.right: root.fromUser ? parent.right : undefined
        anchors.left: root.fromUser ? undefined : parent.left
        // While editing, room for the editor and its buttons whatever the message's length.
        width: !root.fromUser ? root.width
               : root.editing ? Math.min(root.width, Math.max(root.width * 0.8, editButtons.implicitWidth + 24))
               : Math.min(root.width * 0.8, Math.max(unwrapped.implicitWidth, 120) + 32)
        height: body.implicitHeight + 20
        radius: 10
        color: root.fromUser ? palette.highlight : palette.alternateBase
        border.color: palette.mid
        border.width: root.fromUser ? 0 : 1

        ColumnLayout {
            id: body

            x: 12
            y: 10
            width: frame.width - 24
            spacing: 8

            TextEdit {
                id: userText
                objectName: "userText"
                visible: root.fromUser && !root.editing
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                textFormat: TextEdit.PlainText
                text: root.content
                color: palette.highlightedText
            }

            FramedTextArea {
                id: editor
                objectName: "editArea"
                visible: root.editing
                Layout.fillWidth: true
                Accessible.name: qsTr("Edited message")
            }
            RowLayout {
                id: editButtons
                visible: root.editing
                Button {
                    text: qsTr("Send Edited")
                    highlighted: true
                    enabled: root.actionsEnabled && editor.text.trim().length > 0
                    onClicked: {
                        root.editing = false;
                        root.editRequested(root.index, editor.text);
                    }
                }
                Button {
                    text: qsTr("Cancel")
                    onClicked: root.editing = false
                }
            }

            ColumnLayout {
                objectName: "thinkingSection"
                visible: !root.fromUser && (blocks.thinking.length > 0 || blocks.thinkingOpen)
                Layout.fillWidth: true
                spacing: 4
                Button {
                    objectName: "thinkingToggle"
                    flat: true
                    text: (root.thinkingShown ? "▾ " : "▸ ")
                          + (blocks.thinkingOpen ? qsTr("Thinking…") : qsTr("Reasoning"))
                    onClicked: root.thinkingShown = !root.thinkingShown
                    Accessible.name: root.thinkingShown ? qsTr("Hide the reasoning") : qsTr("Show the reasoning")
                }
                TextEdit {
                    objectName: "thinkingText"
                    visible: root.thinkingShown
                    Layout.fillWidth: true
                    readOnly: true
                    selectByMouse: true
                    wrapMode: TextEdit.Wrap
                    textFormat: TextEdit.PlainText
                    text: blocks.thinking
                    color: palette.text
                    opacity: 0.7
                }
            }

            Repeater {
                model: root.fromUser ? null : blocks

                delegate: Loader {
                    id: block

                    required property string blockType
                    required property string text
                    required property string highlightedHtml
                    required property string languageLabel

                    Layout.fillWidth: true
                    sourceComponent: blockType === "code" ? codeComponent : blockType === "quote" ? quoteComponent : textComponent

                    Component {
                        id: textComponent
                        TextEdit {
                            objectName: "markdownText"
                            readOnly: true
                            selectByMouse: true
                            wrapMode: TextEdit.Wrap
                            textFormat: TextEdit.MarkdownText
                            text: block.text
                            color: palette.text
                            onLinkActivated: link => Qt.openUrlExternally(link)
                        }
                    }
                    Component {
                        id: quoteComponent
                        // A bar beside the quoted text, as chat apps and browsers show quotes.
                        Item {
                            objectName: "quoteBlock"
                            implicitHeight: quoteText.implicitHeight
                            Rectangle {
                                width: 3
                                height: parent.height
                                radius: 1
                                color: palette.mid
                            }
                            TextEdit {
                                id: quoteText
                                objectName: "quoteText"
                                x: 12
                                width: parent.width - x
                                readOnly: true
                                selectByMouse: true
                                wrapMode: TextEdit.Wrap
                                textFormat: TextEdit.MarkdownText
                                text: block.text
                                color: palette.text
                                opacity: 0.85
                                onLinkActivated: link => Qt.openUrlExternally(link)
                            }
                        }
                    }
                    Component {
                        id: codeComponent
                        CodeBlock {
                            objectName: "codeBlock"
                            code: block.text
                            html: block.highlightedHtml
                            languageLabel: block.languageLabel
                        }
                    }
                }
            }

            Label {
                visible: !root.fromUser && root.streaming && root.content.length === 0
                text: qsTr("…", "placeholder while the first token is computed")
            }
            Label {
                objectName: "messageStateNote"
                visible: root.messageState === "error" || root.messageState === "interrupted" || root.endedEarly
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: "#c0392b"
                textFormat: Text.PlainText
                text: root.messageState === "error" ? qsTr("Failed: %1").arg(root.errorText)
                      : root.messageState === "stopped" ? qsTr("Stopped before the end.")
                      : root.messageState === "length_limit"
                        ? qsTr("Cut off at the length limit: Continue lets it go on; raise “Maximum tokens” in Chat Settings for longer answers.")
                      : root.messageState === "context_full"
                        ? qsTr("Cut off: the conversation filled the model's context. Continue goes on without the oldest messages where Chat Settings lets it leave them out; a longer context or a new chat gives more room.")
                      : qsTr("Interrupted: Hearth closed before this answer was finished.")
            }
        }
    }

    RowLayout {
        id: actions

        anchors.top: frame.bottom
        anchors.topMargin: 2
        anchors.right: root.fromUser ? parent.right : undefined
        anchors.left: root.fromUser ? undefined : parent.left
        spacing: 2
        visible: !root.streaming

        ToolButton {
            objectName: "previousSibling"
            visible: root.siblingCount > 1
            text: "‹"
            enabled: root.actionsEnabled && root.siblingIndex > 0
            onClicked: root.siblingRequested(root.index, -1)
            Accessible.name: qsTr("Previous alternative")
        }
        Label {
            objectName: "siblingLabel"
            visible: root.siblingCount > 1
            text: qsTr("%1/%2", "alternative answers: this one of how many").arg(root.siblingIndex + 1).arg(root.siblingCount)
        }
        ToolButton {
            objectName: "nextSibling"
            visible: root.siblingCount > 1
            text: "›"
            enabled: root.actionsEnabled && root.siblingIndex + 1 < root.siblingCount
            onClicked: root.siblingRequested(root.index, 1)
            Accessible.name: qsTr("Next alternative")
        }
        ToolButton {
            objectName: "copyMessageButton"
            text: qsTr("Copy", "button: copy the message")
            onClicked: root.copyRequested(root.index)
            Accessible.name: qsTr("Copy the message")
        }
        ToolButton {
            objectName: "continueButton"
            visible: !root.fromUser && root.continueAvailable && root.endedEarly
            text: qsTr("Continue", "button: let a cut-off answer go on")
            enabled: root.actionsEnabled
            onClicked: root.continueRequested(root.index)
            Accessible.name: qsTr("Let the answer go on where it ended")
        }
        ToolButton {
            visible: !root.fromUser
            text: qsTr("Regenerate")
            enabled: root.actionsEnabled
            onClicked: root.regenerateRequested(root.index)
            Accessible.name: qsTr("Answer again")
        }
        ToolButton {
            visible: root.fromUser
            text: qsTr("Edit")
            enabled: root.actionsEnabled
            onClicked: {
                editor.text = root.content;
                root.editing = true;
                editor.forceActiveFocus();
            }
            Accessible.name: qsTr("Edit and resend the message")
        }
        ToolButton {
            objectName: "deleteMessageButton"
            text: qsTr("Delete", "button: delete this one message")
            enabled: root.actionsEnabled
            onClicked: root.deleteRequested(root.index)
            Accessible.name: qsTr("Delete this message; the rest of the chat stays")
        }
        Label {
            objectName: "answerStats"
            visible: !root.fromUser && root.tokenCount > 0
            opacity: 0.7
            font.pointSize: Qt.application.font.pointSize * 0.85
            text: qsTr("%1 tokens · %2 tokens/s · first token after %3 ms")
                  .arg(root.tokenCount).arg(root.tokensPerSecond.toFixed(1)).arg(Math.round(root.timeToFirstTokenMs))
        }
    }
}
