// SPDX-License-Identifier: MIT
// ConvertPanel.qml: the destination follows the chosen folder and type, Start converts a real
// (tiny) model folder and reports the new file, a folder without config.json gives a message,
// and an existing destination keeps Start disabled until replacing is allowed.
import QtQuick
import QtQuick.Controls
import QtTest
import Hearth.Models

Item {
    id: root
    width: 720
    height: 520

    Component {
        id: panelComponent
        ConvertPanel {
            anchors.fill: parent
        }
    }

    SignalSpy {
        id: convertedSpy
        signalName: "modelConverted"
    }

    TestCase {
        name: "ConvertPanel"
        when: windowShown

        function findChild(item, name) {
            if (!item)
                return null
            if (item.objectName === name)
                return item
            const children = item.children
            for (let i = 0; i < children.length; ++i) {
                const found = findChild(children[i], name)
                if (found)
                    return found
            }
            if (item.contentItem && item.contentItem !== item) {
                const inContent = findChild(item.contentItem, name)
                if (inContent)
                    return inContent
            }
            return null
        }

        function makePanel() {
            const panel = createTemporaryObject(panelComponent, root)
            verify(panel)
            convertedSpy.target = panel
            convertedSpy.clear()
            return panel
        }

        function test_convertsAFolder() {
            const panel = makePanel()
            const job = panel.job
            job.source = fixtureFolder
            job.outputType = "Q8_0"
            panel.suggestDestination()
            compare(job.destination, outputFolder + "/tiny-hf-q8_0.gguf")
            const start = findChild(panel, "startButton")
            verify(start)
            verify(start.enabled)
            mouseClick(start)
            convertedSpy.wait(60000)
            compare(convertedSpy.count, 1)
            compare(convertedSpy.signalArguments[0][0], outputFolder + "/tiny-hf-q8_0.gguf")
            compare(job.state, ConversionJob.Succeeded)
            const result = findChild(panel, "resultLabel")
            verify(result.visible)
            verify(result.text.indexOf("tiny-hf-q8_0.gguf") >= 0)

            // Now the destination exists: Start waits for permission to replace it.
            verify(job.destinationExists)
            verify(!start.enabled)
            const replace = findChild(panel, "replaceBox")
            verify(replace.visible)
            mouseClick(replace)
            verify(job.allowReplace)
            verify(start.enabled)
        }

        // "Make Sparse…" from the Installed list: the file, the Sparse type, a destination beside
        // it, and the calibration text chooser (shown for that type only).
        function test_prepareSparse() {
            const panel = makePanel()
            const job = panel.job
            panel.prepareSparse(outputFolder + "/relu.gguf")
            compare(job.source, outputFolder + "/relu.gguf")
            compare(job.outputType, "Sparse")
            compare(job.destination, outputFolder + "/relu-sparse.gguf")
            const calibration = findChild(panel, "calibrationField")
            verify(calibration)
            verify(calibration.visible)
            verify(findChild(panel, "typeHint").text.length > 0)
            job.outputType = "Q8_0"
            verify(!calibration.visible)
        }

        function test_reportsAFolderWithoutConfig() {
            const panel = makePanel()
            const job = panel.job
            job.source = outputFolder
            job.destination = outputFolder + "/nothing.gguf"
            mouseClick(findChild(panel, "startButton"))
            compare(job.state, ConversionJob.Failed)
            const result = findChild(panel, "resultLabel")
            verify(result.visible)
            verify(result.text.indexOf("config.json") >= 0)
            compare(convertedSpy.count, 0)
        }
    }
}
