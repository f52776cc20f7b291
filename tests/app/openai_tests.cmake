# SPDX-License-Identifier: MIT
# The OpenAI-compatible API (app/openai), included from tests/app/CMakeLists.txt: the server's
# error paths and queue in Qt Test, the remote engine against it and against servers that fail
# on purpose, and the official openai npm client driving `hearth --serve`.
if(TARGET hearth-openai)
    find_package(Qt6 6.4 REQUIRED COMPONENTS Network)
    hearth_add_test(tst_api_server SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_api_server.cpp
        LIBS hearth-openai Qt6::Network TIMEOUT 300 LABELS app)
    hearth_add_test(tst_remote_engine SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_remote_engine.cpp
        LIBS ${APP_TEST_LIBS} hearth-openai Qt6::Network TIMEOUT 300 LABELS app)
    set_target_properties(tst_api_server tst_remote_engine PROPERTIES AUTOMOC ON)
    if(TARGET hearth-synth)
        add_dependencies(tst_api_server hearth-synth)
        add_dependencies(tst_remote_engine hearth-synth)
    endif()

    # scripts/run-tests.sh installs the pinned package into <build>/npm; without it (or without
    # Node.js) the test reports itself skipped.
    find_program(HEARTH_NODE node)
    if(HEARTH_NODE AND TARGET hearth AND TARGET hearth-synth)
        add_test(NAME tst_openai_client
            COMMAND ${HEARTH_NODE} ${PROJECT_SOURCE_DIR}/tests/openai/openai_client.cjs
                $<TARGET_FILE:hearth> $<TARGET_FILE:hearth-synth> ${CMAKE_BINARY_DIR}/npm ${CMAKE_BINARY_DIR}/tests/openai-client-data)
        set_tests_properties(tst_openai_client PROPERTIES
            LABELS app TIMEOUT 600 SKIP_RETURN_CODE 77 ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
    endif()
endif()
