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
            endedEarly: false
            errorText: ""
        }
    }
    Component {
        id: longCodeComponent
        MessageDelegate {
            width: 400
            index: 1
            role: "assistant"
            content: "```text\n" + "x".repeat(400) + "\nshort\n```"
            streaming: false
            tokensPerSecond: 0
            tokenCount: 0
            timeToFirstTokenMs: 0
            siblingIndex: 0
            siblingCount: 1
            messageState: "complete"
            endedEarly: false
            errorText: ""
        }
    }
    Component {
        id: quoteAfterListComponent
        MessageDelegate {
            width: 500
            index: 1
            role: "assistant"
            content: "- one\n- two\n> a quote\n> on two lines\n\nAfter."
            streaming: false
            tokensPerSecond: 0
            tokenCount: 0
            timeToFirstTokenMs: 0
            siblingIndex: 0
            siblingCount: 1
            messageState: "complete"
            endedEarly: false
            errorText: ""
        }
    }
    Component {
        id: reasoningComponent
        MessageDelegate {
            width: 500
            index: 1
            role: "assistant"
            content: "<think>\nThe user greets me. I greet back.\n</think>\n\nHello **there**."
            streaming: false
            tokensPerSecond: 0
            tokenCount: 0
            timeToFirstTokenMs: 0
            siblingIndex: 0
            siblingCount: 1
            messageState: "complete"
            endedEarly: false
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

        function test_reasoningIsFoldedAway() {
            // A reasoning model's thinking is shown behind a toggle; the answer alone is Markdown.
            const message = createTemporaryObject(reasoningComponent, root);
            verify(message);
            const section = findChild(message, "thinkingSection");
            const thinking = findChild(message, "thinkingText");
            verify(section && section.visible);
            verify(!thinking.visible);
            tryVerify(() => findChild(message, "markdownText") !== null);
            const answer = findChild(message, "markdownText");
            verify(answer.text.indexOf("Hello") >= 0);
            verify(answer.text.indexOf("greets") < 0);
            mouseClick(findChild(message, "thinkingToggle"));
            tryVerify(() => thinking.visible);
            compare(thinking.text, "The user greets me. I greet back.");
        }

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

        function test_quoteAfterAListIsAQuote() {
            const message = createTemporaryObject(quoteAfterListComponent, root);
            verify(message);
            tryVerify(() => findChild(message, "quoteBlock") !== null);
            const quote = findChild(message, "quoteText");
            verify(quote.text.indexOf("a quote") >= 0 && quote.text.indexOf("on two lines") >= 0);
            verify(quote.text.indexOf(">") < 0);
            verify(quote.x > 0); // beside its bar, apart from the list (tst_markdown checks the split)
        }

        function test_longCodeLinesScrollInsteadOfBeingCut() {
            const message = createTemporaryObject(longCodeComponent, root);
            verify(message);
            tryVerify(() => findChild(message, "codeView") !== null);
            const view = findChild(message, "codeView");
            const code = findChild(message, "codeBlock");
            tryVerify(() => view.contentWidth > view.width);
            // The block stays inside the bubble, and the rest of the line can be reached.
            verify(code.width <= message.width);
            verify(view.width < view.contentWidth);
            view.contentX = view.contentWidth - view.width;
            compare(view.contentX, view.contentWidth - view.width);
            verify(findChild(message, "codeScrollBar").visible);
            // The last line is shown whole, with room under it for the scroll bar.
            verify(view.height >= findChild(message, "codeText").implicitHeight);
        }
    }
}
