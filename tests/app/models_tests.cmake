# SPDX-License-Identifier: MIT
# Model catalog, fit badges and VRAM budget panel tests (app/models/), included from
# tests/app/CMakeLists.txt. Everything runs offscreen with fake GPUs and machines.
if(TARGET hearth-models)
    foreach(models_test IN ITEMS tst_catalog tst_catalog_hub tst_fit_badge tst_vram_placement tst_vram_preview)
        hearth_add_test(${models_test}
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/${models_test}.cpp
            LIBS hearth-models hearth-modelsplugin
            LABELS app models)
        set_target_properties(${models_test} PROPERTIES AUTOMOC ON)
    endforeach()
    target_link_libraries(tst_vram_preview PRIVATE Qt6::Quick)
    target_compile_definitions(tst_vram_preview PRIVATE HEARTH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

    # Qt Quick Test of VramPanel.qml (tests/app/qml/tst_vrampanel.qml).
    find_package(Qt6 6.4 COMPONENTS QuickTest QuickControls2 QUIET)
    if(TARGET Qt6::QuickTest)
        hearth_add_test(tst_vrampanel
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_vrampanel.cpp
            LIBS hearth-models hearth-modelsplugin Qt6::QuickTest Qt6::QuickControls2
            LABELS app models qml)
        set_target_properties(tst_vrampanel PROPERTIES AUTOMOC ON)
        target_compile_definitions(tst_vrampanel PRIVATE
            QUICK_TEST_SOURCE_DIR="${CMAKE_CURRENT_LIST_DIR}/qml/tst_vrampanel.qml")
        set_tests_properties(tst_vrampanel PROPERTIES
            ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_QUICK_CONTROLS_STYLE=Fusion")
    endif()
endif()
