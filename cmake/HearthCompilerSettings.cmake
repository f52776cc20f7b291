# Shared compiler settings. Release builds never use -march=native: the CPU kernels
# compile per-ISA translation units and pick one at run time.

add_library(hearth_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(hearth_warnings INTERFACE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
    if(HEARTH_WARNINGS_AS_ERRORS)
        target_compile_options(hearth_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
    endif()
elseif(MSVC)
    target_compile_options(hearth_warnings INTERFACE /W4 /permissive- /utf-8)
    if(HEARTH_WARNINGS_AS_ERRORS)
        target_compile_options(hearth_warnings INTERFACE /WX)
    endif()
endif()

if(HEARTH_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
endif()
if(HEARTH_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Coverage for libFuzzer in every library; only the fuzz targets link its main (tests/fuzz).
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
    set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
    set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()
