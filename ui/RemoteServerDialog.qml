// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App

// Chat with a model on an OpenAI-compatible server (llama.cpp's server, vLLM, Ollama, LM Studio,
// another Hearth): its address, its key if it wants one, and one of the models it lists.
Dialog {
    id: root

    property bool listing: false
    property string problem: ""

    title: qsTr("Connect to a Server")
    modal: true
    standardButtons: Dialog.Ok | Dialog.Cancel
    anchors.centerIn: Overlay.overlay
    width: Math.min(parent ? parent.width - 40 : 520, Math.max(520, Math.round(metrics.averageCharacterWidth * 64)))

    FontMetrics {
        id: metrics
        font: root.font
    }

    function listModels() {
        listing = true;
        problem = "";
        ModelSession.listRemoteModels(urlField.text, keyField.text);
    }

    onAboutToShow: {
        urlField.text = AppSettings.remoteUrl.length > 0 ? AppSettings.remoteUrl : "http://127.0.0.1:8080/v1";
        keyField.text = AppSettings.remoteApiKey;
        modelBox.model = AppSettings.remoteModel.length > 0 ? [AppSettings.remoteModel] : [];
        modelBox.editText = AppSettings.remoteModel;
        problem = "";
    }
    Component.onCompleted: {
        const ok = standardButton(Dialog.Ok);
        if (ok)
            ok.text = Qt.binding(() => qsTr("Connect"));
    }
    onAccepted: ModelSession.connectRemote(urlField.text, keyField.text, modelBox.editText)

    Connections {
        target: ModelSession
        function onRemoteModelsListed(models, errorText) {
            root.listing = false;
            root.problem = errorText;
            if (models.length > 0) {
                const current = modelBox.editText;
                modelBox.model = models;
                modelBox.currentIndex = Math.max(0, models.indexOf(current));
                modelBox.editText = models[modelBox.currentIndex];
            } else if (errorText.length === 0) {
                root.problem = qsTr("The server lists no models.");
            }
        }
    }

    GridLayout {
        width: root.availableWidth
        columns: 2
        columnSpacing: 12
        rowSpacing: 8

        Label { text: qsTr("Server address:") }
        TextField {
            id: urlField
            objectName: "remoteUrlField"
            Layout.fillWidth: true
            inputMethodHints: Qt.ImhUrlCharactersOnly
            placeholderText: "http://127.0.0.1:8080/v1"
            Accessible.name: qsTr("Address of the OpenAI-compatible server")
        }
        Label { text: qsTr("API key:") }
        TextField {
            id: keyField
            objectName: "remoteKeyField"
            Layout.fillWidth: true
            echoMode: TextInput.Password
            placeholderText: qsTr("None")
            Accessible.name: qsTr("API key for the server")
        }
        Label { text: qsTr("Model:") }
        RowLayout {
            Layout.fillWidth: true
            ComboBox {
                id: modelBox
                objectName: "remoteModelBox"
                Layout.fillWidth: true
                editable: true
                Accessible.name: qsTr("Model on the server")
            }
            Button {
                objectName: "listRemoteModelsButton"
                text: root.listing ? qsTr("Asking…") : qsTr("List Models")
                enabled: !root.listing && urlField.text.length > 0
                onClicked: root.listModels()
                Accessible.name: qsTr("Ask the server which models it has")
            }
        }
        Item { width: 1; height: 1 }
        Label {
            objectName: "remoteProblem"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.bold: root.problem.length > 0
            opacity: root.problem.length > 0 ? 1 : 0.7
            text: root.problem.length > 0
                  ? root.problem
                  : qsTr("The chat sends its messages to this server and stores the answers here, like any other. The local model is unloaded while you use it.")
        }
    }
}
