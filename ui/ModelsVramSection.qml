// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App
import Hearth.Models

// The VRAM budget of one model: the panel over the planner, and Apply that places the running
// model again without unloading it. The budget is remembered per model and used at every load.
Item {
    id: root

    required property ModelSession session
    /// The model to plan; empty when none is chosen or running.
    required property string modelPath
    /// Or a catalog model, planned from its published shape (before downloading it).
    property string catalogId: ""

    readonly property bool isRunning: modelPath.length > 0 && modelPath === session.modelPath
    property alias preview: preview

    /// The user asked to see the running model's plan instead of this one.
    signal runningModelRequested()

    PlacementPreview {
        id: preview
        settingsFile: ModelManager.settingsFile
        // RAM for keys and values as Chat Settings stores them (F32 once the GPU is used).
        kvCacheType: root.session.kvCacheType
    }
    // The running session's context, so the plan's KV cache is the session's; otherwise the
    // preview's own default.
    Binding {
        target: preview
        property: "contextLength"
        value: root.session.contextLength
        when: root.isRunning && root.session.contextLength > 0
        restoreMode: Binding.RestoreBindingOrValue
    }
    // One source at a time: a catalog model, else the file.
    Binding {
        target: preview
        property: "catalogId"
        value: root.catalogId
        when: root.catalogId.length > 0
        restoreMode: Binding.RestoreNone
    }
    // Files are read on a worker thread (loadModelPath), so a slow disk never stalls the window.
    function follow() {
        if (catalogId.length === 0)
            preview.loadModelPath(modelPath);
    }
    onModelPathChanged: follow()
    onCatalogIdChanged: follow()
    Component.onCompleted: follow()

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 6

        Label {
            objectName: "vramHint"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            opacity: 0.75
            text: root.catalogId.length > 0
                  ? qsTr("A plan from the catalog's figures; download the model to run it.")
                  : root.modelPath.length === 0 && root.session.remote
                  ? qsTr("The chat uses “%1” on the server at %2: it runs in that server's memory, so there is no GPU budget to plan here.").arg(root.session.modelName).arg(root.session.remoteUrl)
                  : root.modelPath.length === 0
                  ? qsTr("Load a model, or choose “GPU Memory…” for an installed one, to plan where its layers run.")
                  : root.isRunning
                    ? qsTr("Apply places the running model again with this budget; the conversation stays.")
                    : qsTr("This model is not running: Apply remembers the budget for its next load.")
        }
        Label {
            objectName: "runningPlacement"
            Layout.fillWidth: true
            visible: root.isRunning && root.session.placementSummary.length > 0
            text: root.session.replacing
                  ? qsTr("Placing the model again…")
                  : qsTr("Running now: %1").arg(root.session.placementSummary)
            wrapMode: Text.Wrap
            font.italic: true
        }

        Button {
            objectName: "showRunningButton"
            visible: !root.isRunning && root.session.modelPath.length > 0
            text: qsTr("Show the Running Model")
            onClicked: root.runningModelRequested()
        }

        Label {
            objectName: "vramLoading"
            visible: preview.loading
            text: qsTr("Reading the model file…")
            opacity: 0.75
        }

        VramPanel {
            objectName: "vramPanel"
            Layout.fillWidth: true
            Layout.fillHeight: true
            preview: preview
            // A catalog plan has no file to remember a budget for or to place again.
            canApply: root.catalogId.length === 0
            onBudgetApplied: (budgetBytes, autoBudget) => {
                if (root.isRunning)
                    root.session.applyVramBudget(budgetBytes, autoBudget);
            }
        }
    }
}
