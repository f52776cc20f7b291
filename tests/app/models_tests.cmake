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

# Conversion jobs (app/models/conversionjob.*) with generated Hugging Face folders, and GpuInfo
# over the engine's GPU query (with tst_device's stand-in CUDA module when it is built).
if(TARGET hearth-models)
    hearth_add_test(tst_conversion_job
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_conversion_job.cpp
        LIBS hearth-models hearth-modelsplugin hearth-synthetic
        TIMEOUT 300
        LABELS app models)
    set_target_properties(tst_conversion_job PROPERTIES AUTOMOC ON)
    hearth_add_test(tst_gpu_info
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gpu_info.cpp
        LIBS hearth-models hearth-modelsplugin
        LABELS app models)
    set_target_properties(tst_gpu_info PROPERTIES AUTOMOC ON)
    if(TARGET tst_device_fake_module)
        add_dependencies(tst_gpu_info tst_device_fake_module)
        target_compile_definitions(tst_gpu_info PRIVATE
            HEARTH_TEST_FAKE_MODULE="$<TARGET_FILE:tst_device_fake_module>")
    endif()
endif()

# Qt Quick Test of ConvertPanel.qml (tests/app/qml/tst_convertpanel.qml), converting a tiny folder.
if(TARGET hearth-models)
    find_package(Qt6 6.4 COMPONENTS QuickTest QuickControls2 QUIET)
    if(TARGET Qt6::QuickTest)
        hearth_add_test(tst_convertpanel
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_convertpanel.cpp
            LIBS hearth-models hearth-modelsplugin Qt6::QuickTest Qt6::QuickControls2
            TIMEOUT 300
            LABELS app models qml)
        set_target_properties(tst_convertpanel PROPERTIES AUTOMOC ON)
        target_compile_definitions(tst_convertpanel PRIVATE
            QUICK_TEST_SOURCE_DIR="${CMAKE_CURRENT_LIST_DIR}/qml/tst_convertpanel.qml")
        set_tests_properties(tst_convertpanel PROPERTIES
            ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_QUICK_CONTROLS_STYLE=Fusion")
    endif()
endif()

# The Models page: installed-models library, re-placement of the running model for a new VRAM
# budget, and the page in the real Main.qml (tests/app/tst_model_library.cpp,
# tst_replace_budget.cpp, tst_models_page.cpp).
if(TARGET hearth-models AND TARGET hearth-synthetic)
    hearth_add_test(tst_model_library
        SOURCES
            ${CMAKE_CURRENT_LIST_DIR}/tst_model_library.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.h
        LIBS hearth-models hearth-synthetic Qt6::Network
        TIMEOUT 180
        LABELS app models)
    set_target_properties(tst_model_library PROPERTIES AUTOMOC ON)
endif()
if(TARGET hearth-app-lib AND TARGET hearth-synthetic)
    hearth_add_test(tst_replace_budget
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_replace_budget.cpp
        LIBS hearth-app-lib hearth-app-libplugin hearth-synthetic
        TIMEOUT 300
        LABELS app models)
    set_target_properties(tst_replace_budget PROPERTIES AUTOMOC ON)
endif()
if(TARGET hearth-ui AND TARGET hearth-synthetic)
    hearth_add_test(tst_models_page
        SOURCES
            ${CMAKE_CURRENT_LIST_DIR}/tst_models_page.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.h
        LIBS hearth-app-lib hearth-app-libplugin hearth-ui hearth-uiplugin hearth-synthetic
            Qt6::Network Qt6::Quick Qt6::QuickControls2
        TIMEOUT 180
        LABELS app models qml)
    set_target_properties(tst_models_page PROPERTIES AUTOMOC ON)
endif()
