# SPDX-License-Identifier: MIT
# Download tests (owned with app/downloads/), included from tests/app/CMakeLists.txt. They run
# against hf_test_server, a fake Hugging Face Hub on 127.0.0.1; nothing leaves the machine.
if(TARGET hearth-downloads)
    hearth_add_test(tst_downloads
        SOURCES
            ${CMAKE_CURRENT_LIST_DIR}/tst_downloads.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.cpp
            ${CMAKE_CURRENT_LIST_DIR}/hf_test_server.h
        LIBS hearth-downloads Qt6::Network Qt6::Sql
        TIMEOUT 120
        LABELS app downloads)
    set_target_properties(tst_downloads PROPERTIES AUTOMOC ON)
endif()
