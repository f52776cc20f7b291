// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls

// A ComboBox as tall as its text: the Fusion style of Qt 6.4 sizes one to its 24-pixel
// background, so with a larger font the text was cut at the bottom.
ComboBox {
    id: control

    implicitHeight: Math.max(implicitBackgroundHeight + topInset + bottomInset, Math.ceil(textMetrics.height) + 8)

    FontMetrics {
        id: textMetrics
        font: control.font
    }
}
