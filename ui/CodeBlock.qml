// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// One fenced code block of an answer: language label, copy button and the highlighted code.
Rectangle {
    id: root

    required property string code
    required property string html
    required property string languageLabel

    implicitHeight: column.implicitHeight + 2
    radius: 6
    // The highlighter's theme colours the <pre>; the block takes the same background so the
    // rows Text paints with it do not show as stripes.
    readonly property string themeBackground: {
        const match = /<pre style="[^"]*background-color:\s*(#[0-9a-fA-F]{3,8})/.exec(html);
        return match ? match[1] : "";
    }
    color: themeBackground.length > 0 ? themeBackground : (AppSettings.dark ? "#1e1f22" : "#f6f8fa")
    border.color: palette.mid

    ColumnLayout {
        id: column

        x: 1
        y: 1
        width: root.width - 2
        spacing: 0

        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: 10
            Layout.rightMargin: 4

            Label {
                objectName: "codeLanguage"
                Layout.fillWidth: true
                text: root.languageLabel
                font.pointSize: Qt.application.font.pointSize * 0.85
                opacity: 0.75
            }
            ToolButton {
                id: copyButton
                objectName: "copyButton"
                text: copied.running ? qsTr("Copied") : qsTr("Copy", "button: copy code")
                font.pointSize: Qt.application.font.pointSize * 0.85
                onClicked: {
                    ChatController.copyText(root.code);
                    copied.restart();
                }
                Accessible.name: qsTr("Copy the code")
                Timer {
                    id: copied
                    interval: 1500
                }
            }
        }
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: 1
            color: palette.mid
        }
        // Code keeps its lines (the highlighter's <pre> would not wrap anyway): a line longer
        // than the bubble scrolls sideways instead of being cut at its edge.
        Flickable {
            id: codeView
            objectName: "codeView"
            Layout.fillWidth: true
            Layout.margins: 10
            implicitHeight: codeText.implicitHeight + (horizontalBar.visible ? horizontalBar.height : 0)
            contentWidth: codeText.implicitWidth
            contentHeight: codeText.implicitHeight
            flickableDirection: Flickable.HorizontalFlick
            boundsBehavior: Flickable.StopAtBounds
            clip: true
            ScrollBar.horizontal: ScrollBar {
                id: horizontalBar
                objectName: "codeScrollBar"
                policy: codeView.contentWidth > codeView.width ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff
                visible: policy === ScrollBar.AlwaysOn
            }

            TextEdit {
                id: codeText
                objectName: "codeText"
                readOnly: true
                selectByMouse: true
                textFormat: TextEdit.RichText
                wrapMode: TextEdit.NoWrap
                font.family: "monospace"
                color: palette.text
                text: root.html
            }
        }
    }
}
