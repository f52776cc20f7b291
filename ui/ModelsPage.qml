// SPDX-License-Identifier: MIT
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.App
import Hearth.Models

// The Models page: the catalog, Hugging Face search, the download queue, the installed models,
// the VRAM budget of the selected or running model, and converting or quantizing a model.
Pane {
    id: root

    required property ModelSession session
    /// The sections, in tab order.
    enum Section { Catalog, Search, Downloads, Installed, Vram, Convert }
    property alias currentSection: tabs.currentIndex
    /// The model the VRAM section plans for; empty: the running one.
    property string vramModelPath: ""
    /// A catalog model the VRAM section plans for instead (before it is downloaded).
    property string vramCatalogId: ""

    signal closeRequested()

    function showSection(section) {
        tabs.currentIndex = section;
    }

    function planCatalogModel(catalogId) {
        vramModelPath = "";
        vramCatalogId = catalogId;
        showSection(ModelsPage.Section.Vram);
    }

    /// The VRAM section plans for the running model again.
    function planRunningModel() {
        vramCatalogId = "";
        vramModelPath = "";
    }

    // A model that starts running is the one the section shows, whatever was planned before.
    Connections {
        target: root.session
        function onModelReady() { root.planRunningModel() }
    }

    padding: 0

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: 12
            Layout.rightMargin: 8
            Layout.topMargin: 6
            Label {
                Layout.fillWidth: true
                text: qsTr("Models")
                font.bold: true
                font.pointSize: Qt.application.font.pointSize * 1.4
            }
            ToolButton {
                objectName: "backToChatButton"
                text: qsTr("Back to Chat")
                onClicked: root.closeRequested()
                Accessible.name: qsTr("Close the models page and return to the chat")
            }
        }

        TabBar {
            id: tabs
            objectName: "modelsTabs"
            // An error belongs to the section it came from.
            onCurrentIndexChanged: ModelManager.clearError()
            Layout.fillWidth: true
            Layout.leftMargin: 8
            Layout.rightMargin: 8
            TabButton {
                objectName: "catalogTab"
                text: qsTr("Catalog")
            }
            TabButton {
                objectName: "searchTab"
                text: qsTr("Search")
            }
            TabButton {
                objectName: "downloadsTab"
                text: ModelManager.downloads.activeCount > 0
                      ? qsTr("Downloads (%1)").arg(ModelManager.downloads.activeCount)
                      : qsTr("Downloads")
            }
            TabButton {
                objectName: "installedTab"
                text: qsTr("Installed (%1)").arg(ModelManager.library.count)
            }
            TabButton {
                objectName: "vramTab"
                text: qsTr("VRAM")
            }
            TabButton {
                objectName: "convertTab"
                text: qsTr("Convert")
            }
        }

        Label {
            objectName: "modelsErrorLabel"
            Layout.fillWidth: true
            Layout.margins: 8
            visible: ModelManager.errorText.length > 0
            textFormat: Text.PlainText
            text: ModelManager.errorText
            color: "#c0392b"
            wrapMode: Text.Wrap
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex

            ModelsCatalogSection {
                objectName: "catalogSection"
                catalog: ModelManager.catalog
                // The repositories' listings replace the catalog's rounded sizes, once a run.
                onVisibleChanged: if (visible) ModelManager.refreshCatalogSizes()
                onDownloadStarted: root.showSection(ModelsPage.Section.Downloads)
                onVramRequested: catalogId => root.planCatalogModel(catalogId)
            }
            ModelsSearchSection {
                objectName: "searchSection"
                search: ModelManager.hubSearch
                onDownloadStarted: root.showSection(ModelsPage.Section.Downloads)
            }
            ModelsDownloadsSection {
                objectName: "downloadsSection"
                downloads: ModelManager.downloads
            }
            ModelsInstalledSection {
                objectName: "installedSection"
                library: ModelManager.library
                session: root.session
                onLoadRequested: path => {
                    root.session.loadModel(path);
                    root.closeRequested();
                }
                onVramRequested: path => {
                    root.vramCatalogId = "";
                    root.vramModelPath = path;
                    root.showSection(ModelsPage.Section.Vram);
                }
                onSparsifyRequested: path => {
                    convertPanel.prepareSparse(path);
                    root.showSection(ModelsPage.Section.Convert);
                }
            }
            ModelsVramSection {
                objectName: "vramSection"
                session: root.session
                catalogId: root.vramCatalogId
                modelPath: root.vramCatalogId.length > 0 ? ""
                           : root.vramModelPath.length > 0 ? root.vramModelPath : root.session.modelPath
                onRunningModelRequested: root.planRunningModel()
            }
            ConvertPanel {
                id: convertPanel
                objectName: "convertSection"
                // A converted model is checked (it loaded and answered) before it gets here.
                onModelConverted: path => {
                    ModelManager.library.importFile(path);
                    root.showSection(ModelsPage.Section.Installed);
                }
            }
        }
    }
}
