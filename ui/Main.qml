// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth.App

ApplicationWindow {
    id: root

    width: 960
    height: 680
    minimumWidth: 480
    minimumHeight: 360
    visible: true
    title: ChatController.modelName.length > 0
           ? qsTr("%1 — Hearth", "window title, %1 is the model name").arg(ChatController.modelName)
           : qsTr("Hearth")

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 8
            anchors.rightMargin: 8

            ToolButton {
                text: qsTr("Open Model…")
                icon.name: "document-open"
                enabled: ChatController.state !== ChatController.Loading
                         && ChatController.state !== ChatController.Generating
                onClicked: modelDialog.open()
                Accessible.name: qsTr("Open a model file")
            }
            ToolButton {
                text: qsTr("New Chat")
                icon.name: "list-add"
                enabled: ChatController.state === ChatController.Ready
                onClicked: ChatController.newConversation()
                Accessible.name: qsTr("Start a new conversation")
            }
            Item { Layout.fillWidth: true }
            Label {
                text: qsTr("Language:")
            }
            ComboBox {
                id: languageBox
                objectName: "languageBox"
                implicitContentWidthPolicy: ComboBox.WidestText
                model: LanguageManager.languages
                textRole: "name"
                valueRole: "code"
                // Depends on count too: the index is only kept once the model is populated.
                currentIndex: {
                    if (count === 0)
                        return -1;
                    const languages = LanguageManager.languages;
                    for (let i = 0; i < languages.length; ++i) {
                        if (languages[i].code === LanguageManager.language)
                            return i;
                    }
                    return -1;
                }
                onActivated: LanguageManager.setLanguage(currentValue)
                Accessible.name: qsTr("Interface language")
            }
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        ChatView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            controller: ChatController
        }

        Label {
            Layout.fillWidth: true
            Layout.margins: 8
            visible: ChatController.errorText.length > 0
            text: ChatController.errorText
            color: "#c0392b"
            wrapMode: Text.Wrap
        }

        Composer {
            Layout.fillWidth: true
            controller: ChatController
        }
    }

    footer: StatusBar {
        controller: ChatController
        // Until the engine places layers on a GPU, answers are computed by the CPU kernels it
        // picked for this processor. In QML so a language switch retranslates it.
        computeMode: qsTr("CPU (%1)", "status bar: compute mode, %1 is the kernel set such as avx2").arg(AppInfo.cpuKernels)
    }

    // Keyboard: Ctrl+O open a model, Ctrl+N new chat (Esc stops an answer, in the composer).
    Shortcut {
        sequences: [StandardKey.Open]
        enabled: ChatController.state !== ChatController.Loading
                 && ChatController.state !== ChatController.Generating
        onActivated: modelDialog.open()
    }
    Shortcut {
        sequences: [StandardKey.New]
        enabled: ChatController.state === ChatController.Ready
        onActivated: ChatController.newConversation()
    }

    FileDialog {
        id: modelDialog
        title: qsTr("Open a Model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: ChatController.loadModelUrl(selectedFile)
    }
}
