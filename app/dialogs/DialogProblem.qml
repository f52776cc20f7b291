// SPDX-License-Identifier: MIT
// Says why a file or folder chooser cannot open (see FileDialogSupport), instead of opening it.
// Every file chooser in the app opens through openChooser():
//
//     DialogProblem { id: dialogProblem }
//     onClicked: dialogProblem.openChooser(modelDialog)
import QtQuick
import QtQuick.Controls
import Hearth.Dialogs

Dialog {
    id: root

    /// Opens @p chooser (a FileDialog or FolderDialog) when it can open, else this explanation.
    function openChooser(chooser) {
        if (FileDialogSupport.available)
            chooser.open();
        else
            open();
    }

    objectName: "dialogProblem"
    title: qsTr("Cannot open the file chooser")
    modal: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(implicitWidth, (parent ? parent.width : 480) - 48)
    standardButtons: Dialog.Ok

    Label {
        objectName: "dialogProblemText"
        width: Math.min(implicitWidth, 460)
        text: FileDialogSupport.problem
        wrapMode: Text.Wrap
    }
}
