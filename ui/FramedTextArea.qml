// SPDX-License-Identifier: MIT
// A TextArea that looks like a field before it has focus: Fusion's own has no frame, so an
// empty one (a system prompt, a message being edited) was invisible until clicked.
import QtQuick
import QtQuick.Controls

TextArea {
    id: root

    color: palette.text
    wrapMode: TextArea.Wrap
    background: Rectangle {
        implicitWidth: 200
        implicitHeight: 40
        radius: 3
        color: root.enabled ? root.palette.base : root.palette.window
        border.color: root.activeFocus ? root.palette.highlight : root.palette.mid
        border.width: root.activeFocus ? 2 : 1
    }
}
