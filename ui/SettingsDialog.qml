// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// Application settings and the defaults new chats start with.
Dialog {
    id: root

    title: qsTr("Settings")
    modal: true
    standardButtons: Dialog.Close
    anchors.centerIn: Overlay.overlay
    // Wider with a larger font, so that longer names and hints are not cut.
    width: Math.min(parent ? parent.width - 40 : 520, Math.max(520, Math.round(metrics.averageCharacterWidth * 72)))

    // Never taller than the window: the rest scrolls.
    height: Math.min(implicitHeight, parent ? parent.height - 40 : implicitHeight)

    FontMetrics {
        id: metrics
        font: root.font
    }

    // Shows the last settings (the API server's), as the README's picture does.
    function scrollToEnd() {
        scroll.ScrollBar.vertical.position = 1.0 - scroll.ScrollBar.vertical.size
    }

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        implicitHeight: grid.implicitHeight
        clip: true

        GridLayout {
            id: grid
            // The dialog's own width: the content item's follows the content's implicit width, which
            // a long wrapped hint makes wider than the dialog (and everything on the right was cut).
            width: scroll.availableWidth
            columns: 2
            columnSpacing: 12
            rowSpacing: 8

            Label { text: qsTr("Theme:") }
            FittedComboBox {
                id: themeBox
                objectName: "themeBox"
                // The names apart from the model: a language switch renews the names, while a model
                // made anew would reset the choice shown to its first entry.
                readonly property var names: [qsTr("Follow the system"), qsTr("Light"), qsTr("Dark")]
                Layout.fillWidth: true
                model: ["system", "light", "dark"]
                // Depends on count too: before the model is populated the index would be lost.
                currentIndex: count > 0 ? model.indexOf(AppSettings.theme) : -1
                displayText: currentIndex >= 0 ? names[currentIndex] : ""
                delegate: ItemDelegate {
                    required property int index
                    width: themeBox.width
                    text: themeBox.names[index]
                    highlighted: themeBox.highlightedIndex === index
                }
                onActivated: index => AppSettings.theme = model[index]
                Accessible.name: qsTr("Theme")
            }

            Label { text: qsTr("Font size:") }
            FittedComboBox {
                id: fontSizeBox
                objectName: "fontSizeBox"
                // Sizes people pick, not every point from 1: the steps of other desktop apps.
                readonly property var sizes: [0, 8, 9, 10, 11, 12, 13, 14, 16, 18, 20, 24]
                function sizeName(points) {
                    return points === 0 ? qsTr("System") : qsTr("%1 pt", "font size in points").arg(points);
                }
                Layout.fillWidth: true
                model: sizes
                currentIndex: count > 0 ? sizes.indexOf(AppSettings.fontSize) : -1
                displayText: sizeName(AppSettings.fontSize)
                delegate: ItemDelegate {
                    required property int index
                    required property int modelData
                    width: fontSizeBox.width
                    text: fontSizeBox.sizeName(modelData)
                    highlighted: fontSizeBox.highlightedIndex === index
                }
                onActivated: index => AppSettings.fontSize = sizes[index]
                Accessible.name: qsTr("Font size in points")
            }

            Label { text: qsTr("Language:") }
            FittedComboBox {
                objectName: "settingsLanguageBox"
                Layout.fillWidth: true
                model: LanguageManager.languages
                textRole: "name"
                valueRole: "code"
                currentIndex: count > 0 ? indexOfValue(LanguageManager.language) : -1
                onActivated: LanguageManager.setLanguage(currentValue)
                Accessible.name: qsTr("Interface language")
            }

            Label { text: qsTr("Threads:") }
            SpinBox {
                objectName: "threadsBox"
                from: 0
                to: 256
                value: AppSettings.threads
                locale: Qt.locale(LanguageManager.language)
                textFromValue: (value, locale) => value === 0 ? qsTr("Automatic") : value.toString()
                onValueModified: AppSettings.threads = value
                Accessible.name: qsTr("Engine threads")
            }

            Label { text: qsTr("Sparse models:") }
            CheckBox {
                objectName: "fastSparsePromptsBox"
                Layout.fillWidth: true
                text: qsTr("Faster prompts")
                checked: AppSettings.fastSparsePrompts
                onToggled: AppSettings.fastSparsePrompts = checked
                Accessible.name: qsTr("Faster prompts for sparse models")
            }
            Item { width: 1; height: 1 }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                opacity: 0.7
                text: qsTr("Keeps their feed-forward weights twice in memory, from the next load.")
            }

            Label { text: qsTr("Data folder:") }
            TextField {
                Layout.fillWidth: true
                text: AppSettings.dataDir
                placeholderText: AppInfo.dataDir
                onEditingFinished: AppSettings.dataDir = text
                Accessible.name: qsTr("Data folder")
            }
            Item { width: 1; height: 1 }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                opacity: 0.7
                text: qsTr("A new data folder is used from the next start.")
            }

            Label { text: qsTr("Hugging Face mirror:") }
            TextField {
                objectName: "hfEndpointField"
                Layout.fillWidth: true
                text: AppSettings.hfEndpoint
                placeholderText: "https://huggingface.co"
                inputMethodHints: Qt.ImhUrlCharactersOnly
                onEditingFinished: AppSettings.hfEndpoint = text
                Accessible.name: qsTr("Hugging Face endpoint or mirror address")
            }

            Label { text: qsTr("Hugging Face token:") }
            TextField {
                objectName: "hfTokenField"
                Layout.fillWidth: true
                text: AppSettings.hfToken
                echoMode: TextInput.Password
                onEditingFinished: AppSettings.hfToken = text
                Accessible.name: qsTr("Hugging Face access token")
            }
            Item { width: 1; height: 1 }
            // Under the field, wrapped: as a placeholder it was cut in longer languages and larger fonts.
            Label {
                objectName: "hfTokenHint"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                opacity: 0.7
                text: qsTr("For gated models; empty: HF_TOKEN or none")
            }

            Label { text: qsTr("Default system prompt:") }
            TextField {
                Layout.fillWidth: true
                text: AppSettings.systemPrompt
                onEditingFinished: AppSettings.systemPrompt = text
                Accessible.name: qsTr("Default system prompt")
            }

            Label { text: qsTr("Default temperature:") }
            TextField {
                text: AppSettings.temperature.toFixed(2)
                validator: DoubleValidator { bottom: 0; top: 5 }
                onEditingFinished: AppSettings.temperature = Number.fromLocaleString(Qt.locale("C"), text)
                Accessible.name: qsTr("Default temperature")
            }

            Label { text: qsTr("Default answer length:") }
            SpinBox {
                from: 1
                to: 262144 // SamplingSettings::kMaxAnswerTokens: the longest contexts
                editable: true
                value: AppSettings.maxTokens
                onValueModified: AppSettings.maxTokens = value
                Accessible.name: qsTr("Default maximum tokens per answer")
            }

            // The OpenAI-compatible API for editors, agents and scripts: off unless turned on.
            Label { text: qsTr("API server:") }
            RowLayout {
                Layout.fillWidth: true
                Switch {
                    objectName: "serverSwitch"
                    checked: AppSettings.serverEnabled
                    onToggled: AppSettings.serverEnabled = checked
                    Accessible.name: qsTr("Serve the loaded model to other programs (OpenAI-compatible)")
                }
                // Beside the switch, wrapped: a switch's own text is cut in longer languages.
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: qsTr("Serve the loaded model to other programs (OpenAI-compatible)")
                    TapHandler { onTapped: AppSettings.serverEnabled = !AppSettings.serverEnabled }
                }
            }
            Label { text: qsTr("Server address:") }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    objectName: "serverHostField"
                    Layout.fillWidth: true
                    text: AppSettings.serverHost
                    inputMethodHints: Qt.ImhUrlCharactersOnly
                    onEditingFinished: AppSettings.serverHost = text
                    Accessible.name: qsTr("Address the server listens on")
                }
                Label { text: qsTr("Port:") }
                SpinBox {
                    objectName: "serverPortBox"
                    from: 1
                    to: 65535
                    editable: true
                    value: AppSettings.serverPort
                    // No digit grouping: "8,080" is not how anyone writes a port.
                    textFromValue: (value, locale) => String(value)
                    valueFromText: (text, locale) => parseInt(text)
                    onValueModified: AppSettings.serverPort = value
                    Accessible.name: qsTr("Port the server listens on")
                }
            }
            Label { text: qsTr("Server API key:") }
            TextField {
                objectName: "serverKeyField"
                Layout.fillWidth: true
                text: AppSettings.serverApiKey
                echoMode: TextInput.Password
                placeholderText: qsTr("None")
                onEditingFinished: AppSettings.serverApiKey = text
                Accessible.name: qsTr("API key clients must send")
            }
            Item { width: 1; height: 1 }
            Label {
                objectName: "serverStatus"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                opacity: ServerController.errorText.length > 0 ? 1 : 0.7
                font.bold: ServerController.errorText.length > 0
                textFormat: Text.PlainText
                text: ServerController.errorText.length > 0
                      ? ServerController.errorText
                      : ServerController.running
                        ? (AppSettings.serverHost === "127.0.0.1" || AppSettings.serverHost === "localhost"
                           ? qsTr("Programs on this computer reach the model at %1.").arg(ServerController.url)
                           : AppSettings.serverApiKey.length > 0
                             ? qsTr("Other computers can reach the model at %1 with the key.").arg(ServerController.url)
                             : qsTr("Other computers can reach the model at %1, and no key is set: anyone on the network may use it.").arg(ServerController.url))
                        : qsTr("Off. When on, programs use the URL shown here as their OpenAI base URL.")
            }
        }
    }
}
