# Picks how code blocks are highlighted, once, at configure time:
#   ksyntaxhighlighting  KF6 SyntaxHighlighting (Qt 6) linked in-process
#   kate-syntax-highlighter  the KF5 command-line highlighter run out of process (Debian 12 has
#                        no Qt 6 build of the library, and a Qt 5 library cannot share a process)
#   none                 plain text
# The choice is reported by `hearth --version` and decides the .deb's dependencies.

set(HEARTH_HIGHLIGHTING "AUTO" CACHE STRING "Code highlighting back end: AUTO, ksyntaxhighlighting, kate-syntax-highlighter or none")
set_property(CACHE HEARTH_HIGHLIGHTING PROPERTY STRINGS AUTO ksyntaxhighlighting kate-syntax-highlighter none)

set(_hearth_hl "${HEARTH_HIGHLIGHTING}")
if(_hearth_hl STREQUAL "AUTO" OR _hearth_hl STREQUAL "ksyntaxhighlighting")
    find_package(KF6SyntaxHighlighting QUIET CONFIG)
    if(KF6SyntaxHighlighting_FOUND)
        set(_hearth_hl "ksyntaxhighlighting")
    elseif(_hearth_hl STREQUAL "ksyntaxhighlighting")
        message(FATAL_ERROR "HEARTH_HIGHLIGHTING=ksyntaxhighlighting but KF6SyntaxHighlighting was not found")
    endif()
endif()
if(_hearth_hl STREQUAL "AUTO" OR _hearth_hl STREQUAL "kate-syntax-highlighter")
    find_program(HEARTH_KATE_HIGHLIGHTER kate-syntax-highlighter)
    if(HEARTH_KATE_HIGHLIGHTER)
        set(_hearth_hl "kate-syntax-highlighter")
    elseif(_hearth_hl STREQUAL "kate-syntax-highlighter")
        message(FATAL_ERROR "HEARTH_HIGHLIGHTING=kate-syntax-highlighter but the program was not found")
    endif()
endif()
if(_hearth_hl STREQUAL "AUTO")
    set(_hearth_hl "none")
endif()

set(HEARTH_HIGHLIGHTING_BACKEND "${_hearth_hl}" CACHE INTERNAL "Resolved highlighting back end")
message(STATUS "Code highlighting: ${HEARTH_HIGHLIGHTING_BACKEND}")
