// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App
import Hearth.Models

// The open chat's system prompt and sampling, stored with the conversation.
Dialog {
    id: root

    required property ChatController controller
    required property ModelSession session

    function setValue(key, value) {
        const sampling = root.controller.sampling;
        sampling[key] = value;
        root.controller.sampling = sampling;
    }

    title: qsTr("Chat Settings")
    modal: true
    standardButtons: Dialog.Close
    anchors.centerIn: Overlay.overlay
    width: Math.min(parent ? parent.width - 40 : 520, 520)
    // A window shorter than the settings scrolls them instead of cutting the last ones off.
    height: Math.min(implicitHeight, parent ? parent.height - 20 : implicitHeight)

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        clip: true
        ScrollBar.vertical.policy: contentHeight > height ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff

        GridLayout {
            // The dialog's own width: the content item's follows the content's implicit width, which
            // a long wrapped hint makes wider than the dialog (and everything on the right was cut).
            // Qt 6.4's scroll bar lies over the content, so the fields end before it.
            width: scroll.availableWidth - (scroll.ScrollBar.vertical.visible ? scroll.ScrollBar.vertical.width + 4 : 0)
            columns: 2
            columnSpacing: 12
            rowSpacing: 8

            Label { text: qsTr("System prompt:"); Layout.alignment: Qt.AlignTop }
            FramedTextArea {
                objectName: "systemPromptField"
                Layout.fillWidth: true
                Layout.preferredHeight: 80
                text: root.controller.systemPrompt
                onEditingFinished: root.controller.systemPrompt = text
                Accessible.name: qsTr("System prompt")
            }

            Repeater {
                model: [
                    { key: "temperature", label: qsTr("Temperature:") },
                    { key: "top_k", label: qsTr("Top-k:") },
                    { key: "top_p", label: qsTr("Top-p:") },
                    { key: "min_p", label: qsTr("Min-p:") },
                    { key: "repeat_penalty", label: qsTr("Repeat penalty:") },
                    { key: "repeat_last_n", label: qsTr("Penalize the last tokens:") },
                    { key: "presence_penalty", label: qsTr("Presence penalty:") },
                    { key: "frequency_penalty", label: qsTr("Frequency penalty:") },
                    { key: "max_tokens", label: qsTr("Maximum tokens:") },
                    { key: "seed", label: qsTr("Seed (-1: random):") }
                ]
                delegate: RowLayout {
                    required property var modelData
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    Label {
                        Layout.preferredWidth: 160
                        text: modelData.label
                    }
                    TextField {
                        Layout.fillWidth: true
                        text: String(root.controller.sampling[modelData.key])
                        inputMethodHints: Qt.ImhFormattedNumbersOnly
                        onEditingFinished: root.setValue(modelData.key, Number(text))
                        Accessible.name: modelData.label
                    }
                }
            }

            Label {
                objectName: "maxTokensWarning"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                visible: root.session.contextLength > 0 && root.controller.sampling.max_tokens >= root.session.contextLength
                text: qsTr("The maximum is more than the model's context of %1 tokens: an answer stops when the context is full.")
                          .arg(root.session.contextLength)
                color: "#b9770e"
                wrapMode: Text.Wrap
            }

            Label {
                text: qsTr("Context length:")
                visible: contextBox.count > 0
            }
            FittedComboBox {
                id: contextBox
                objectName: "contextLengthBox"
                Layout.fillWidth: true
                visible: count > 0
                model: root.session.contextLengthChoices
                currentIndex: count > 0 ? model.indexOf(root.session.contextLength) : -1
                displayText: currentIndex >= 0 ? root.session.contextLengthLabel(model[currentIndex]) : ""
                delegate: ItemDelegate {
                    required property int index
                    required property int modelData
                    width: contextBox.width
                    text: root.session.contextLengthLabel(modelData)
                    highlighted: contextBox.highlightedIndex === index
                }
                onActivated: index => root.session.applyContextLength(model[index])
                Accessible.name: qsTr("Context length")
            }
            Label {
                Layout.columnSpan: 2
                Layout.fillWidth: true
                visible: contextBox.count > 0
                text: qsTr("Applies to every chat with this model. A longer context remembers more of the chat and takes more memory.")
                wrapMode: Text.Wrap
                opacity: 0.7
            }

            Label {
                text: qsTr("Context memory:")
                visible: contextBox.count > 0
            }
            FittedComboBox {
                id: kvCacheBox
                objectName: "kvCacheBox"
                readonly property var names: [qsTr("16-bit, as computed"), qsTr("8-bit, about half the memory")]
                Layout.fillWidth: true
                visible: contextBox.count > 0
                model: ["f16", "q8_0"]
                currentIndex: count > 0 ? Math.max(0, model.indexOf(root.session.kvCacheType)) : -1
                displayText: currentIndex >= 0 ? names[currentIndex] : ""
                delegate: ItemDelegate {
                    required property int index
                    width: kvCacheBox.width
                    text: kvCacheBox.names[index]
                    highlighted: kvCacheBox.highlightedIndex === index
                }
                onActivated: index => root.session.applyKvCacheType(model[index])
                Accessible.name: qsTr("Context memory")
            }
            Label {
                objectName: "kvCacheNote"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                // What the loaded model does instead of the choice, and why.
                readonly property string inUse: root.session.kvCacheTypeInUse
                visible: contextBox.count > 0 && inUse !== "" && inUse !== root.session.kvCacheType
                text: inUse === "f32" ? qsTr("Layers on the GPU keep a 32-bit copy of the context in this computer's memory.")
                                      : qsTr("This model keeps 16-bit: its attention heads do not suit 8-bit blocks.")
                wrapMode: Text.Wrap
                opacity: 0.7
            }

            Label { text: qsTr("When the chat outgrows the context:") }
            FittedComboBox {
                id: overflowBox
                objectName: "overflowBox"
                // Names apart from the model, as in Settings: a language switch keeps the choice.
                readonly property var names: [qsTr("Leave the oldest messages out"), qsTr("Stop and say so")]
                Layout.fillWidth: true
                model: ["drop_oldest", "stop"]
                currentIndex: count > 0 ? model.indexOf(root.controller.sampling.context_overflow) : -1
                displayText: currentIndex >= 0 ? names[currentIndex] : ""
                delegate: ItemDelegate {
                    required property int index
                    width: overflowBox.width
                    text: overflowBox.names[index]
                    highlighted: overflowBox.highlightedIndex === index
                }
                onActivated: index => root.setValue("context_overflow", model[index])
                Accessible.name: qsTr("When the chat outgrows the context")
            }

            Label {
                text: qsTr("Reasoning:")
                visible: reasoningBox.visible
            }
            FittedComboBox {
                id: reasoningBox
                objectName: "reasoningBox"
                // Models whose chat template takes it (Qwen 3: thinking on or off; gpt-oss: its
                // reasoning effort, which cannot go below Low).
                visible: root.session.readsReasoning
                readonly property var names: [qsTr("The model's default"), qsTr("Off"), qsTr("Low"), qsTr("Medium"), qsTr("High")]
                Layout.fillWidth: true
                model: ["", "off", "low", "medium", "high"]
                currentIndex: count > 0 ? Math.max(0, model.indexOf(root.controller.sampling.reasoning_effort || "")) : -1
                displayText: currentIndex >= 0 ? names[currentIndex] : ""
                delegate: ItemDelegate {
                    required property int index
                    width: reasoningBox.width
                    text: reasoningBox.names[index]
                    highlighted: reasoningBox.highlightedIndex === index
                }
                onActivated: index => root.setValue("reasoning_effort", model[index])
                Accessible.name: qsTr("How much the model reasons before it answers")
            }

            Label {
                text: qsTr("Guess ahead:")
                visible: speculationBox.visible
            }
            FittedComboBox {
                id: speculationBox
                objectName: "speculationBox"
                // Off, the conversation's own text, then the installed models smaller than this one;
                // a remembered draft model that is no longer installed stays listed by its file name.
                readonly property var choices: {
                    const list = [{ value: "", label: qsTr("Off") },
                                  { value: "lookup", label: qsTr("From the conversation's own text") }];
                    const current = root.session.speculation;
                    let listed = current === "" || current === "lookup";
                    const candidates = ModelManager.library.count >= 0 ? ModelManager.library.draftCandidates(root.session.modelPath) : [];
                    for (const candidate of candidates) {
                        list.push({ value: candidate.path,
                                    label: qsTr("With %1 (%2)", "a draft model and its size").arg(candidate.name).arg(candidate.sizeText) });
                        listed = listed || candidate.path === current;
                    }
                    if (!listed)
                        list.push({ value: current, label: qsTr("With %1", "a draft model").arg(current.split(/[\\/]/).pop()) });
                    return list;
                }
                Layout.fillWidth: true
                visible: root.session.modelPath !== "" && !root.session.remote
                model: choices.map(choice => choice.label)
                currentIndex: choices.findIndex(choice => choice.value === root.session.speculation)
                onActivated: index => root.session.applySpeculation(choices[index].value)
                Accessible.name: qsTr("Guess ahead")
            }
            Label {
                objectName: "speculationNote"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                visible: speculationBox.visible
                text: root.session.speculationError !== "" ? root.session.speculationError
                    : root.session.speculationResult !== "" ? root.session.speculationResult
                    : qsTr("The model checks several guessed words at once and keeps only what it would have written itself: the same answers, sooner when the guesses are good. A draft model must be a smaller one of the same family; it runs on the processor.")
                color: root.session.speculationError !== "" ? "#c0392b" : palette.windowText
                wrapMode: Text.Wrap
                opacity: root.session.speculationError !== "" ? 1.0 : 0.7
            }
        }
    }
}
