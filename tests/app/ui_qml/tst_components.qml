// SPDX-License-Identifier: MIT
import QtQuick
import QtTest
import Hearth.App
import Hearth.Ui

Item {
    id: root

    width: 800
    height: 600

    Component {
        id: composerComponent
        Composer {
            width: 600
            height: 100
            canSend: true
        }
    }
    Component {
        id: sidebarComponent
        Sidebar {
            width: 260
            height: 500
            controller: ChatController
        }
    }
    Component {
        id: delegateComponent
        MessageDelegate {
            width: 700
            index: 1
            role: "assistant"
            content: "Use this:\n\n```python\nprint('hello')\n```\n\nDone."
            streaming: false
            tokensPerSecond: 12.5
            tokenCount: 20
            timeToFirstTokenMs: 80
            siblingIndex: 1
            siblingCount: 3
            messageState: "complete"
            errorText: ""
        }
    }
    SignalSpy {
        id: sendSpy
        signalName: "sendRequested"
    }

    TestCase {
        name: "Composer"
        when: windowShown

        function test_enterSendsShiftEnterAddsLine() {
            const composer = createTemporaryObject(composerComponent, root);
            verify(composer);
            sendSpy.target = composer;
            sendSpy.clear();
            const input = findChild(composer, "composerInput");
            verify(input);
            input.forceActiveFocus();
            keyClick(Qt.Key_H);
            keyClick(Qt.Key_I);
            keyClick(Qt.Key_Return, Qt.ShiftModifier);
            compare(sendSpy.count, 0);
            compare(input.text, "hi\n");
            keyClick(Qt.Key_Y);
            keyClick(Qt.Key_Return);
            compare(sendSpy.count, 1);
            compare(sendSpy.signalArguments[0][0], "hi\ny");
            compare(input.text, "");

            // Nothing is sent while no model is ready.
            composer.canSend = false;
            keyClick(Qt.Key_Z);
            keyClick(Qt.Key_Return);
            compare(sendSpy.count, 1);
        }
    }

    TestCase {
        name: "Sidebar"
        when: windowShown

        function test_searchFilters() {
            const sidebar = createTemporaryObject(sidebarComponent, root);
            verify(sidebar);
            const list = findChild(sidebar, "conversationList");
            tryCompare(list, "count", 3);
            const search = findChild(sidebar, "searchField");
            search.text = "sourdough";
            tryCompare(list, "count", 1);
            search.text = "tomato";
            tryCompare(list, "count", 1);
            search.text = "nothingmatcheshere";
            tryCompare(list, "count", 0);
            search.text = "";
            tryCompare(list, "count", 3);
        }
    }

    TestCase {
        name: "MessageDelegate"
        when: windowShown

        function test_rendersCodeBlockWithCopyButton() {
            const message = createTemporaryObject(delegateComponent, root);
            verify(message);
            tryVerify(() => findChild(message, "codeBlock") !== null);
            const code = findChild(message, "codeBlock");
            verify(findChild(code, "copyButton"));
            compare(findChild(code, "codeLanguage").text.toLowerCase(), "python");
            tryVerify(() => findChild(code, "codeText").text.indexOf("print") >= 0);
            verify(findChild(message, "markdownText"));
            compare(findChild(message, "siblingLabel").text, "2/3");
            verify(findChild(message, "answerStats").text.indexOf("20") >= 0);
        }
    }
}
