# SPDX-License-Identifier: MIT
# ChatStore tests, included from tests/app/CMakeLists.txt. The crash test runs
# chatstore_crash_child from HEARTH_BIN_DIR and kills it mid-answer.
if(TARGET hearth-store)
    add_executable(chatstore_crash_child ${CMAKE_CURRENT_LIST_DIR}/chatstore_crash_child.cpp)
    target_link_libraries(chatstore_crash_child PRIVATE hearth-store hearth_warnings)

    hearth_add_test(tst_chatstore
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_chatstore.cpp
        LIBS hearth-store
        TIMEOUT 120
        LABELS app)
    set_target_properties(tst_chatstore PROPERTIES AUTOMOC ON)
    add_dependencies(tst_chatstore chatstore_crash_child)
endif()
