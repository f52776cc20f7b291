// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls

// A small coloured badge: a model's fit on this machine, or whether it runs sparse.
Label {
    id: root

    /// FitBadge kind names ("fullyOnGpu", "hybrid", "cpuOnly", "doesNotFit", "unknown") or the
    /// support names of search results ("sparse", "dense", "unsupported"); "mixture" for a
    /// mixture of experts.
    property string kind
    property string detail

    readonly property color tint: {
        switch (kind) {
        case "fullyOnGpu":
        case "sparse":
            return "#2e9d5b";
        case "hybrid":
        case "mixture":
            return "#3b7dd8";
        case "cpuOnly":
        case "dense":
            return "#b07d1a";
        case "doesNotFit":
        case "unsupported":
            return "#c0392b";
        default:
            return "#8a94a6";
        }
    }

    leftPadding: 6
    rightPadding: 6
    topPadding: 2
    bottomPadding: 2
    color: tint
    font.pointSize: Qt.application.font.pointSize * 0.85
    background: Rectangle {
        radius: 3
        color: "transparent"
        border.color: root.tint
    }
    ToolTip.visible: hover.hovered && root.detail.length > 0
    ToolTip.text: root.detail
    ToolTip.delay: 300
    Accessible.description: root.detail
    HoverHandler { id: hover }
}
