// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import Hearth.App

// The active branch of the open conversation. A virtualised ListView: only visible messages
// have delegates, and a token changes one row (dataChanged), so long chats stay smooth.
Item {
    id: root

    required property ChatController controller
    required property ModelSession session

    readonly property bool busy: session.state === ModelSession.Generating

    /// The user asked for the models Hearth offers (the empty first screen's button).
    signal catalogRequested()

    ListView {
        id: list
        objectName: "messageList"

        anchors.fill: parent
        anchors.margins: 12
        spacing: 6
        clip: true
        model: root.controller.messages
        reuseItems: false
        cacheBuffer: 800
        // Follow the answer while it streams, unless the user scrolled up to read.
        property bool follow: true
        onMovementEnded: follow = atYEnd
        onCountChanged: if (follow) Qt.callLater(positionViewAtEnd)
        onContentHeightChanged: if (follow && root.busy) Qt.callLater(positionViewAtEnd)
        Component.onCompleted: positionViewAtEnd()
        ScrollBar.vertical: ScrollBar {}

        delegate: MessageDelegate {
            actionsEnabled: root.session.state === ModelSession.Ready
            // Only the newest answer can go on, and only where the model runs here.
            continueAvailable: index === list.count - 1 && !root.session.remote
            onContinueRequested: row => root.controller.continueAnswer(row)
            onCopyRequested: row => root.controller.copyMessage(row)
            onRegenerateRequested: row => root.controller.regenerate(row)
            onEditRequested: (row, text) => root.controller.editAndResend(row, text)
            onSiblingRequested: (row, delta) => root.controller.switchSibling(row, delta)
            onDeleteRequested: row => {
                deleteMessageDialog.row = row;
                deleteMessageDialog.open();
            }
        }
    }

    Dialog {
        id: deleteMessageDialog
        objectName: "deleteMessageDialog"

        property int row: -1

        title: qsTr("Delete Message")
        modal: true
        anchors.centerIn: parent
        standardButtons: Dialog.Ok | Dialog.Cancel
        contentWidth: 360
        Component.onCompleted: standardButton(Dialog.Ok).text = qsTr("Delete")
        onAccepted: root.controller.deleteMessage(row)

        Label {
            width: 360 // fixed: a width from the dialog would loop through its implicit size
            wrapMode: Text.Wrap
            text: qsTr("Delete this message? The messages before and after it stay, and it no longer takes up the model's context.")
        }
    }

    Column {
        anchors.centerIn: parent
        width: Math.min(parent.width - 48, 420)
        spacing: 12
        visible: list.count === 0

        Label {
            objectName: "emptyChatText"
            width: parent.width
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            opacity: 0.7
            text: {
                switch (root.session.state) {
                case ModelSession.NoModel:
                    return qsTr("Open a GGUF model to start chatting, or download one from the catalog. Everything runs on this computer.");
                case ModelSession.Loading:
                    return qsTr("Loading the model…");
                default:
                    return qsTr("Ask anything. Press Enter to send, Shift+Enter for a new line.");
                }
            }
        }
        Button {
            objectName: "browseCatalogButton"
            anchors.horizontalCenter: parent.horizontalCenter
            visible: root.session.state === ModelSession.NoModel
            text: qsTr("Browse Models…")
            onClicked: root.catalogRequested()
        }
    }
}
