// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// The conversations: new chat, full-text search and, per chat, rename, export and delete.
Pane {
    id: root

    required property ChatController controller

    signal exportRequested(var conversationId, string title, string format)
    /// The Models button; @p modelsShown tells whether the page is open (the button is checked).
    signal modelsRequested()
    /// A chat was chosen or started: the chat view should be shown.
    signal chatRequested()
    property bool modelsShown: false

    function focusSearch() {
        search.forceActiveFocus();
        search.selectAll();
    }

    padding: 6

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        Button {
            objectName: "modelsButton"
            Layout.fillWidth: true
            text: qsTr("Models")
            icon.name: "view-list-details"
            checkable: true
            checked: root.modelsShown
            onClicked: root.modelsRequested()
            Accessible.name: qsTr("Download, import and manage models")
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Models (Ctrl+M)")
        }
        Button {
            objectName: "newChatButton"
            Layout.fillWidth: true
            text: qsTr("New Chat")
            icon.name: "list-add"
            onClicked: {
                root.controller.newConversation();
                root.chatRequested();
            }
            Accessible.name: qsTr("Start a new conversation")
        }
        TextField {
            id: search
            objectName: "searchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Search chats…")
            Accessible.name: qsTr("Search all conversations")
            onTextChanged: root.controller.setSearchText(text)
            Keys.onEscapePressed: text = ""
        }

        ListView {
            id: list
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.controller.conversations
            ScrollBar.vertical: ScrollBar {}

            delegate: ItemDelegate {
                id: entry

                required property int index
                required property var conversationId
                required property string title
                required property string snippet

                width: ListView.view.width
                highlighted: conversationId === root.controller.conversationId
                onClicked: {
                    root.controller.openConversation(conversationId);
                    root.chatRequested();
                }
                Accessible.name: title

                contentItem: ColumnLayout {
                    spacing: 2
                    Label {
                        Layout.fillWidth: true
                        textFormat: Text.PlainText
                        text: entry.title
                        elide: Text.ElideRight
                        font.bold: entry.highlighted
                    }
                    Label {
                        Layout.fillWidth: true
                        visible: entry.snippet.length > 0
                        text: entry.snippet
                        textFormat: Text.StyledText
                        elide: Text.ElideRight
                        maximumLineCount: 2
                        wrapMode: Text.Wrap
                        opacity: 0.7
                        font.pointSize: Qt.application.font.pointSize * 0.85
                    }
                }

                TapHandler {
                    acceptedButtons: Qt.RightButton
                    onTapped: menu.popup()
                }
                ToolButton {
                    anchors.right: parent.right
                    anchors.verticalCenter: parent.verticalCenter
                    text: "⋯"
                    visible: entry.hovered || entry.highlighted
                    onClicked: menu.popup()
                    Accessible.name: qsTr("Chat actions")
                }
                Menu {
                    id: menu
                    MenuItem {
                        text: qsTr("Rename…")
                        onTriggered: {
                            renameDialog.conversationId = entry.conversationId;
                            renameField.text = entry.title;
                            renameDialog.open();
                        }
                    }
                    MenuItem {
                        text: qsTr("Export as Markdown…")
                        onTriggered: root.exportRequested(entry.conversationId, entry.title, "markdown")
                    }
                    MenuItem {
                        text: qsTr("Export as JSON…")
                        onTriggered: root.exportRequested(entry.conversationId, entry.title, "json")
                    }
                    MenuSeparator {}
                    MenuItem {
                        text: qsTr("Delete")
                        onTriggered: root.controller.deleteConversation(entry.conversationId)
                    }
                }
            }

            Label {
                anchors.centerIn: parent
                width: parent.width - 16
                visible: list.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                opacity: 0.6
                text: search.text.length > 0 ? qsTr("No chat matches.") : qsTr("No chats yet.")
            }
        }
    }

    Dialog {
        id: renameDialog

        property var conversationId: 0

        anchors.centerIn: Overlay.overlay
        title: qsTr("Rename Chat")
        modal: true
        standardButtons: Dialog.Ok | Dialog.Cancel
        onAccepted: root.controller.renameConversation(conversationId, renameField.text)
        // Sized through implicitWidth: the dialog takes its content's implicit size, so a plain
        // width made the field stick out of it.
        TextField {
            id: renameField
            objectName: "renameField"
            implicitWidth: 280
            Accessible.name: qsTr("Chat title")
            onAccepted: renameDialog.accept()
        }
    }
}
