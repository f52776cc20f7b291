# SPDX-License-Identifier: MIT
# Rich text tests (app/richtext/), included from tests/app/CMakeLists.txt. tst_highlight runs
# kate-syntax-highlighter when it is installed and skips those cases with a message otherwise.
if(TARGET hearth-richtext)
    hearth_add_test(tst_markdown
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_markdown.cpp
        LIBS hearth-richtext
        LABELS app)
    set_target_properties(tst_markdown PROPERTIES AUTOMOC ON)

    hearth_add_test(tst_markdown_model
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_markdown_model.cpp
        LIBS hearth-richtext
        LABELS app)
    set_target_properties(tst_markdown_model PROPERTIES AUTOMOC ON)

    hearth_add_test(tst_highlight
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_highlight.cpp
        LIBS hearth-richtext
        TIMEOUT 120
        LABELS app)
    set_target_properties(tst_highlight PROPERTIES AUTOMOC ON)
endif()
