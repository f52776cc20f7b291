// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Where the user writes. Enter sends, Shift+Enter adds a line, Esc stops an answer. It only
// emits requests; Main.qml passes them on to the controller.
Pane {
    id: root

    /// A model is loaded and idle: Enter sends.
    property bool canSend: false
    /// An answer is streaming: the button stops it.
    property bool generating: false
    /// The input takes text (a model is loaded, or loading is over).
    property bool inputEnabled: true
    /// A model is loaded; without one the input says what to do first.
    property bool modelLoaded: true
    /// Context use of the open chat, 0 when unknown.
    property int contextUsed: 0
    property int contextLength: 0
    property alias text: input.text

    signal sendRequested(string text)
    signal stopRequested()

    function submit() {
        if (input.text.trim().length === 0 || !root.canSend)
            return;
        root.sendRequested(input.text);
        input.clear();
    }
    function focusInput() {
        input.forceActiveFocus();
    }

    readonly property real contextFraction: contextLength > 0 ? Math.min(1, contextUsed / contextLength) : 0

    ColumnLayout {
        anchors.fill: parent
        spacing: 4

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            visible: root.contextLength > 0

            ProgressBar {
                id: contextMeter
                objectName: "contextMeter"
                Layout.fillWidth: true
                from: 0
                to: 1
                value: root.contextFraction
                Accessible.name: qsTr("Context used")
            }
            Label {
                objectName: "contextLabel"
                // Warn early: the next question and its answer need room too.
                color: root.contextFraction >= 0.8 ? "#d35400" : palette.windowText
                font.bold: root.contextFraction >= 0.8
                text: root.contextFraction >= 0.8
                      ? qsTr("Context almost full: %1 of %2 tokens. Start a new chat soon.").arg(root.contextUsed).arg(root.contextLength)
                      : qsTr("Context: %1 of %2 tokens").arg(root.contextUsed).arg(root.contextLength)
            }
        }

        RowLayout {
            Layout.fillWidth: true
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

                    placeholderText: root.modelLoaded ? qsTr("Write a message…") : qsTr("Open a model first")
                    enabled: root.inputEnabled
                    wrapMode: TextArea.Wrap
                    Accessible.name: qsTr("Message")

                    Keys.onPressed: event => {
                        if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            root.submit();
                            event.accepted = true;
                        } else if (event.key === Qt.Key_Escape && root.generating) {
                            root.stopRequested();
                            event.accepted = true;
                        }
                    }
                }
            }

            Button {
                objectName: "sendButton"
                text: root.generating ? qsTr("Stop", "button: stop generating") : qsTr("Send", "button: send the message")
                highlighted: !root.generating
                enabled: root.generating || (root.canSend && input.text.trim().length > 0)
                onClicked: root.generating ? root.stopRequested() : root.submit()
                Accessible.name: root.generating ? qsTr("Stop the answer") : qsTr("Send the message")
            }
        }
    }
}
