// SPDX-License-Identifier: MIT
// VramPanel.qml with a fake GPU: moving the slider changes the breakdown, "Auto" follows the free
// memory, and without a GPU the panel says so and offers to plan for one.
import QtQuick
import QtQuick.Controls
import QtTest
import Hearth.Models

Item {
    id: root
    width: 640
    height: 720

    readonly property real gib: 1024 * 1024 * 1024

    Component {
        id: previewComponent
        PlacementPreview {
            debounceMs: 0
        }
    }
    Component {
        id: panelComponent
        VramPanel {
            anchors.fill: parent
        }
    }

    TestCase {
        name: "VramPanel"
        when: windowShown

        // Each test plans its own catalog model: budgets applied in one test are remembered.
        function makePanel(gpuGiB, catalogId) {
            const preview = createTemporaryObject(previewComponent, root,
                                                  { detectedGpuBytes: gpuGiB * root.gib, catalogId: catalogId })
            verify(preview)
            preview.replanNow()
            // Not a temporary object: the panel must go before its preview (cleanup()).
            panel = panelComponent.createObject(root, { preview: preview })
            verify(panel)
            return panel
        }

        property Item panel: null

        function cleanup() {
            if (panel) {
                panel.destroy()
                panel = null
                wait(0) // the deferred delete runs before the preview goes
            }
        }

        function test_sliderChangesBreakdown() {
            const panel = makePanel(8, "relullama-13b")
            const slider = findChild(panel, "budgetSlider")
            const breakdown = findChild(panel, "breakdownLabel")
            const speed = findChild(panel, "speedLabel")
            verify(slider && breakdown && speed)
            compare(slider.to, 8 * root.gib)
            verify(!findChild(panel, "noGpuBox").visible)

            // Drag the handle to the left end, then to the middle.
            mouseDrag(slider, slider.leftPadding + slider.handle.width / 2 + slider.visualPosition * slider.availableWidth,
                      slider.height / 2, -slider.width, 0)
            tryVerify(() => panel.preview.budgetBytes < 1 * root.gib)
            panel.preview.replanNow()
            const before = breakdown.text
            const speedBefore = speed.text
            verify(before.indexOf("KV cache") >= 0)

            mouseClick(slider, slider.leftPadding + slider.availableWidth * 0.6, slider.height / 2)
            tryVerify(() => panel.preview.budgetBytes > 3 * root.gib)
            panel.preview.replanNow()
            verify(breakdown.text !== before, breakdown.text)
            verify(speed.text !== speedBefore)
            verify(!panel.preview.autoBudget)

            const layers = findChild(panel, "layerList")
            compare(layers.count, 40)
        }

        function test_auto() {
            const panel = makePanel(12, "prosparse-llama-2-13b")
            const autoSwitch = findChild(panel, "autoSwitch")
            verify(autoSwitch.checked) // nothing remembered for a fresh model: Auto
            panel.preview.budgetBytes = 2 * root.gib
            compare(autoSwitch.checked, false)
            mouseClick(autoSwitch)
            tryCompare(panel.preview, "autoBudget", true)
            compare(panel.preview.effectiveBudgetBytes, 12 * root.gib - 256 * 1024 * 1024)
            verify(findChild(panel, "budgetLabel").text.indexOf("Auto") === 0)
        }

        function test_noGpu() {
            const panel = makePanel(0, "bamboo-7b-base")
            const message = findChild(panel, "noGpuMessage")
            verify(findChild(panel, "noGpuBox").visible)
            verify(message.text.indexOf("No GPU") === 0, message.text)
            verify(!findChild(panel, "applyButton").enabled)
            compare(panel.preview.totalBytes, 0)

            const plan16 = findChild(panel, "preview16")
            verify(plan16)
            mouseClick(plan16)
            tryCompare(panel.preview, "gpuBytes", 16 * root.gib)
            panel.preview.replanNow()
            verify(message.text.indexOf("16 GB") > 0, message.text)
            verify(panel.preview.totalBytes > 0)
            compare(findChild(panel, "budgetSlider").to, 16 * root.gib)
        }

        function test_applyEmitsTheBudget() {
            const panel = makePanel(8, "relullama-7b")
            const spy = createTemporaryObject(signalSpyComponent, root, { target: panel, signalName: "budgetApplied" })
            panel.preview.budgetBytes = 3 * root.gib
            mouseClick(findChild(panel, "applyButton"))
            compare(spy.count, 1)
            compare(spy.signalArguments[0][0], 3 * root.gib)
            compare(spy.signalArguments[0][1], false)
        }
    }

    Component {
        id: signalSpyComponent
        SignalSpy {}
    }
}
