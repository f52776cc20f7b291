# Install layout. Binaries find their private libraries relative to themselves, so the .tar.gz
# unpacks anywhere and the .deb puts the same tree under /usr:
#   bin/hearth, bin/hearth-cli ...      executables
#   lib/hearth/libhearth-cuda.so        the CUDA back end, loaded at run time when present
#   share/applications, share/icons, share/metainfo   desktop integration
# "lib" rather than the multiarch libdir: these are private files, not a public library.

set(HEARTH_PLUGIN_INSTALL_DIR "lib/hearth")

if(APPLE)
    set(CMAKE_INSTALL_RPATH "@loader_path/../lib")
elseif(UNIX)
    set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")
endif()
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH OFF)
