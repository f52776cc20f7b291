// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Hearth.App
import Hearth.Dialogs

ApplicationWindow {
    id: root

    width: 1100
    height: 720
    minimumWidth: 560
    minimumHeight: 380
    visible: true
    title: ModelSession.modelName.length > 0
           ? qsTr("%1 — Hearth", "window title, %1 is the model name").arg(ModelSession.modelName)
           : qsTr("Hearth")

    // The font size from Settings, for every control and dialog of the window, at once.
    font: AppSettings.font
    // The theme from Settings (system, light or dark), for every control in the window. Each
    // group is set on its own: a plain palette.text would also set the disabled group.
    palette.active.window: AppSettings.colors.window
    palette.active.windowText: AppSettings.colors.windowText
    palette.active.base: AppSettings.colors.base
    palette.active.alternateBase: AppSettings.colors.alternateBase
    palette.active.text: AppSettings.colors.text
    palette.active.button: AppSettings.colors.button
    palette.active.buttonText: AppSettings.colors.buttonText
    palette.active.brightText: AppSettings.colors.brightText
    palette.active.highlight: AppSettings.colors.highlight
    palette.active.highlightedText: AppSettings.colors.highlightedText
    palette.active.light: AppSettings.colors.light
    palette.active.midlight: AppSettings.colors.midlight
    palette.active.mid: AppSettings.colors.mid
    palette.active.dark: AppSettings.colors.dark
    palette.active.shadow: AppSettings.colors.shadow
    palette.active.link: AppSettings.colors.link
    palette.active.placeholderText: AppSettings.colors.placeholderText
    palette.active.toolTipBase: AppSettings.colors.toolTipBase
    palette.active.toolTipText: AppSettings.colors.toolTipText
    palette.inactive.window: AppSettings.colors.window
    palette.inactive.windowText: AppSettings.colors.windowText
    palette.inactive.base: AppSettings.colors.base
    palette.inactive.alternateBase: AppSettings.colors.alternateBase
    palette.inactive.text: AppSettings.colors.text
    palette.inactive.button: AppSettings.colors.button
    palette.inactive.buttonText: AppSettings.colors.buttonText
    palette.inactive.brightText: AppSettings.colors.brightText
    palette.inactive.highlight: AppSettings.colors.highlight
    palette.inactive.highlightedText: AppSettings.colors.highlightedText
    palette.inactive.light: AppSettings.colors.light
    palette.inactive.midlight: AppSettings.colors.midlight
    palette.inactive.mid: AppSettings.colors.mid
    palette.inactive.dark: AppSettings.colors.dark
    palette.inactive.shadow: AppSettings.colors.shadow
    palette.inactive.link: AppSettings.colors.link
    palette.inactive.placeholderText: AppSettings.colors.placeholderText
    palette.inactive.toolTipBase: AppSettings.colors.toolTipBase
    palette.inactive.toolTipText: AppSettings.colors.toolTipText
    palette.disabled.window: AppSettings.colors.window
    palette.disabled.windowText: AppSettings.colors.disabledText
    palette.disabled.base: AppSettings.colors.base
    palette.disabled.alternateBase: AppSettings.colors.alternateBase
    palette.disabled.text: AppSettings.colors.disabledText
    palette.disabled.button: AppSettings.colors.button
    palette.disabled.buttonText: AppSettings.colors.disabledText
    palette.disabled.brightText: AppSettings.colors.brightText
    palette.disabled.highlight: AppSettings.colors.highlight
    palette.disabled.highlightedText: AppSettings.colors.highlightedText
    palette.disabled.light: AppSettings.colors.light
    palette.disabled.midlight: AppSettings.colors.midlight
    palette.disabled.mid: AppSettings.colors.mid
    palette.disabled.dark: AppSettings.colors.dark
    palette.disabled.shadow: AppSettings.colors.shadow
    palette.disabled.link: AppSettings.colors.link
    palette.disabled.placeholderText: AppSettings.colors.placeholderText
    palette.disabled.toolTipBase: AppSettings.colors.toolTipBase
    palette.disabled.toolTipText: AppSettings.colors.toolTipText

    readonly property bool busy: ModelSession.state === ModelSession.Loading
                                 || ModelSession.state === ModelSession.Generating
    /// The Models page instead of the chat.
    property bool showingModels: false

    /// Opens the Models page at @p section ("catalog", "search", "downloads", "installed",
    /// "vram"); with @p catalogId the VRAM section plans that catalog model.
    function showModelsSection(section, catalogId) {
        showingModels = true;
        const sections = ["catalog", "search", "downloads", "installed", "vram", "convert"];
        const index = sections.indexOf(section);
        if (index >= 0)
            modelsPage.showSection(index);
        if (catalogId)
            modelsPage.planCatalogModel(catalogId);
    }

    FontMetrics {
        id: languageMetrics
        font: languageBox.font
    }

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 8
            anchors.rightMargin: 8

            ToolButton {
                objectName: "openModelButton"
                text: qsTr("Open Model…")
                icon.name: "document-open"
                enabled: !root.busy
                onClicked: dialogProblem.openChooser(modelDialog)
                Accessible.name: qsTr("Open a model file")
            }
            ToolButton {
                objectName: "remoteServerButton"
                text: qsTr("Server…")
                icon.name: "network-server"
                enabled: !root.busy
                onClicked: remoteServerDialog.open()
                Accessible.name: qsTr("Chat with a model on an OpenAI-compatible server")
            }
            ToolButton {
                objectName: "recentModelsButton"
                text: qsTr("Recent")
                enabled: !root.busy && AppSettings.recentModels.length > 0
                onClicked: recentMenu.popup()
                Accessible.name: qsTr("Recently used models")
                Menu {
                    id: recentMenu
                    Repeater {
                        model: AppSettings.recentModels
                        delegate: MenuItem {
                            required property string modelData
                            text: modelData.substring(modelData.lastIndexOf("/") + 1)
                            onTriggered: ModelSession.loadModel(modelData)
                        }
                    }
                }
            }
            ProgressBar {
                visible: ModelSession.state === ModelSession.Loading
                Layout.preferredWidth: 120
                value: ModelSession.loadProgress
                Accessible.name: qsTr("Loading progress")
            }
            ToolButton {
                visible: ModelSession.state === ModelSession.Loading
                text: qsTr("Cancel")
                onClicked: ModelSession.cancelLoad()
                Accessible.name: qsTr("Cancel loading the model")
            }
            Label {
                Layout.fillWidth: true
                horizontalAlignment: Text.AlignHCenter
                elide: Text.ElideRight
                font.bold: true
                textFormat: Text.PlainText
                text: ChatController.conversationTitle
            }
            ToolButton {
                objectName: "chatSettingsButton"
                text: qsTr("Chat Settings…")
                onClicked: chatSettings.open()
                Accessible.name: qsTr("System prompt and sampling of this chat")
            }
            ToolButton {
                objectName: "settingsButton"
                text: qsTr("Settings…")
                icon.name: "configure"
                onClicked: settingsDialog.open()
                Accessible.name: qsTr("Application settings")
            }
            FittedComboBox {
                id: languageBox
                objectName: "languageBox"
                // As wide as the longest language name in this font (WidestText cannot measure a
                // list of maps), so a larger font never cuts "Bahasa Indonesia".
                implicitWidth: {
                    languageMetrics.font; // advanceWidth() is a call: name the font to follow it
                    let widest = 0;
                    for (const language of LanguageManager.languages)
                        widest = Math.max(widest, languageMetrics.advanceWidth(language.name));
                    return Math.ceil(widest) + leftPadding + rightPadding;
                }
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

    SplitView {
        anchors.fill: parent

        Sidebar {
            id: sidebar
            objectName: "sidebar"
            SplitView.preferredWidth: 250
            SplitView.minimumWidth: 160
            controller: ChatController
            modelsShown: root.showingModels
            onModelsRequested: root.showingModels = !root.showingModels
            onChatRequested: root.showingModels = false
            onExportRequested: (conversationId, title, format) => {
                const suffix = format === "json" ? "json" : "md";
                const file = ChatController.suggestedExportFile(title, suffix);
                exportDialog.conversationId = conversationId;
                exportDialog.format = format;
                exportDialog.defaultSuffix = suffix;
                exportDialog.currentFolder = file.toString().substring(0, file.toString().lastIndexOf("/"));
                exportDialog.selectedFile = file;
                dialogProblem.openChooser(exportDialog);
            }
        }

        StackLayout {
            SplitView.fillWidth: true
            currentIndex: root.showingModels ? 1 : 0

            ColumnLayout {
                spacing: 0

                ChatView {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    controller: ChatController
                    session: ModelSession
                    onCatalogRequested: root.showModelsSection("catalog")
                }

                Label {
                    id: noticeLabel
                    objectName: "noticeLabel"
                    /// Shows @p text for a few seconds (a finished export, say).
                    function show(text) {
                        noticeLabel.text = text;
                        noticeTimer.restart();
                    }
                    Layout.fillWidth: true
                    Layout.margins: 8
                    visible: noticeTimer.running && text.length > 0
                    wrapMode: Text.Wrap
                    Timer {
                        id: noticeTimer
                        interval: 8000
                    }
                }
                Label {
                    objectName: "chatTemplateNotice"
                    Layout.fillWidth: true
                    Layout.margins: 8
                    visible: text.length > 0
                    text: ModelSession.chatTemplateNotice
                    color: "#b9770e"
                    wrapMode: Text.Wrap
                }
                Label {
                    objectName: "contextNote"
                    Layout.fillWidth: true
                    Layout.margins: 8
                    visible: text.length > 0
                    text: ChatController.contextNote
                    opacity: 0.8
                    wrapMode: Text.Wrap
                }
                Label {
                    objectName: "errorLabel"
                    Layout.fillWidth: true
                    Layout.margins: 8
                    visible: ChatController.errorText.length > 0
                    textFormat: Text.PlainText
                    text: ChatController.errorText
                    color: "#c0392b"
                    wrapMode: Text.Wrap
                }

                Composer {
                    id: composer
                    Layout.fillWidth: true
                    canSend: ModelSession.state === ModelSession.Ready
                    generating: ModelSession.state === ModelSession.Generating
                    inputEnabled: ModelSession.state !== ModelSession.NoModel
                                  && ModelSession.state !== ModelSession.Loading
                    modelLoaded: ModelSession.state !== ModelSession.NoModel
                    contextUsed: ChatController.contextUsed
                    contextLength: ModelSession.contextLength
                    onSendRequested: text => ChatController.send(text)
                    onStopRequested: ChatController.stop()
                }
            }

            ModelsPage {
                id: modelsPage
                objectName: "modelsPage"
                session: ModelSession
                onCloseRequested: root.showingModels = false
            }
        }
    }

    footer: StatusBar {
        session: ModelSession
        // GPU + CPU when the engine placed hot neurons on a GPU, else the CPU kernels it picked for
        // this processor; the tooltip gives the engine's reason. In QML so a language switch
        // retranslates it.
        computeMode: ModelSession.usesGpu
                     ? qsTr("GPU + CPU (%1)", "status bar: hybrid compute mode, %1 is the CPU kernel set").arg(AppInfo.cpuKernels)
                     : qsTr("CPU (%1)", "status bar: compute mode, %1 is the kernel set such as avx2").arg(AppInfo.cpuKernels)
        computeDetail: ModelSession.placementDetails
        placementSummary: ModelSession.placementSummary
    }

    // The undo bar after deleting a chat, for eight seconds after each delete.
    Pane {
        objectName: "undoBar"
        visible: ChatController.canUndoDelete
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottom: parent.bottom
        anchors.bottomMargin: 90
        z: 10
        background: Rectangle {
            radius: 6
            color: palette.toolTipBase
            border.color: palette.mid
        }
        RowLayout {
            Label {
                textFormat: Text.PlainText
                text: qsTr("Deleted “%1”.").arg(ChatController.deletedTitle)
            }
            Button {
                objectName: "undoButton"
                text: qsTr("Undo")
                onClicked: ChatController.undoDelete()
                Accessible.name: qsTr("Undo deleting the chat")
            }
        }
        Timer {
            id: undoTimer
            interval: 8000
            onTriggered: ChatController.dismissUndo()
        }
        Connections {
            target: ChatController
            function onUndoChanged() {
                if (ChatController.canUndoDelete)
                    undoTimer.restart();
                else
                    undoTimer.stop();
            }
        }
    }

    // Keyboard: Ctrl+O open a model, Ctrl+N new chat, Ctrl+F search, Esc stop,
    // Ctrl+Shift+C copy the last answer, Ctrl+M the Models page (again: back to the chat).
    Shortcut {
        objectName: "modelsShortcut"
        sequence: "Ctrl+M"
        onActivated: root.showingModels = !root.showingModels
    }
    Shortcut {
        sequences: [StandardKey.Open]
        enabled: !root.busy
        onActivated: dialogProblem.openChooser(modelDialog)
    }
    Shortcut {
        sequences: [StandardKey.New]
        onActivated: {
            root.showingModels = false;
            ChatController.newConversation();
            composer.focusInput();
        }
    }
    Shortcut {
        sequences: [StandardKey.Find]
        onActivated: sidebar.focusSearch()
    }
    Shortcut {
        sequence: "Esc"
        enabled: ModelSession.state === ModelSession.Generating
        onActivated: ChatController.stop()
    }
    Shortcut {
        sequence: "Ctrl+Shift+C"
        onActivated: ChatController.copyLastAnswer()
    }

    DialogProblem {
        id: dialogProblem
    }
    FileDialog {
        id: modelDialog
        objectName: "modelDialog"
        title: qsTr("Open a Model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: ModelSession.loadModelUrl(selectedFile)
    }
    FileDialog {
        id: exportDialog

        property var conversationId: 0
        property string format: "markdown"

        objectName: "exportDialog"
        title: qsTr("Export Chat")
        fileMode: FileDialog.SaveFile
        acceptLabel: qsTr("Save")
        nameFilters: [format === "json" ? qsTr("JSON files (*.json)") : qsTr("Markdown files (*.md)"), qsTr("All files (*)")]
        onAccepted: {
            const written = ChatController.exportConversation(conversationId, selectedFile, format);
            if (written.length > 0)
                noticeLabel.show(qsTr("Saved the chat to %1.").arg(written));
        }
    }
    SettingsDialog {
        id: settingsDialog
        objectName: "settingsDialog"
    }
    RemoteServerDialog {
        id: remoteServerDialog
        objectName: "remoteServerDialog"
    }
    ChatSettingsDialog {
        id: chatSettings
        objectName: "chatSettingsDialog"
        controller: ChatController
        session: ModelSession
    }
}
