# The esdirk package, for three kinds of users:
#  - an install tree (cmake --install): headers, libraries, the CMake package (esdirkConfig.cmake,
#    lib/cmake/esdirk) and the pkg-config file, with the license in share/doc/esdirk;
#  - the build tree: find_package(esdirk) with CMAKE_PREFIX_PATH (or esdirk_DIR) set to the build
#    folder finds esdirkConfig.cmake there, whose targets point into the build tree, and
#    esdirk-uninstalled.pc serves pkg-config (pkg-config prefers it when its folder is in
#    PKG_CONFIG_PATH);
#  - a parent project (add_subdirectory or FetchContent): the esdirk::esdirk alias itself.
# Each kind sees one include folder (<build>/include in the build tree, cmake/EsdirkModules.cmake).

set(ESDIRK_LICENSE "BSD-3-Clause")
set(ESDIRK_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/esdirk)

# Install tree.
install(EXPORT esdirkTargets NAMESPACE esdirk:: DESTINATION ${ESDIRK_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/esdirkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake-install/esdirkConfig.cmake
  INSTALL_DESTINATION ${ESDIRK_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/esdirkConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake-install/esdirkConfig.cmake
              ${PROJECT_BINARY_DIR}/esdirkConfigVersion.cmake
        DESTINATION ${ESDIRK_CMAKE_INSTALL_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Build tree: the same config file beside a targets file that names the build tree's libraries
# and include folder (the version file above is already there).
export(EXPORT esdirkTargets NAMESPACE esdirk:: FILE ${PROJECT_BINARY_DIR}/esdirkTargets.cmake)
configure_package_config_file(cmake/esdirkConfig.cmake.in ${PROJECT_BINARY_DIR}/esdirkConfig.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR} INSTALL_PREFIX ${PROJECT_BINARY_DIR})

# pkg-config. The installed .pc file finds the prefix from its own place (pkg-config's pcfiledir),
# so a moved or staged install tree (DESTDIR, a package's build root) works as installed.
string(REPLACE ";" " " ESDIRK_PC_LAPACK "${ESDIRK_KLU_LIBRARIES};${LAPACK_LIBRARIES}")
file(RELATIVE_PATH ESDIRK_PC_PREFIX_FROM_PCDIR ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" ESDIRK_PC_PREFIX_FROM_PCDIR "${ESDIRK_PC_PREFIX_FROM_PCDIR}")
set(ESDIRK_PC_PREFIX "\${pcfiledir}/${ESDIRK_PC_PREFIX_FROM_PCDIR}")
set(ESDIRK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(ESDIRK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(cmake/esdirk.pc.in ${PROJECT_BINARY_DIR}/cmake-install/esdirk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake-install/esdirk.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The build tree's: libesdirk.so where the build puts it, the one include folder.
set(ESDIRK_PC_PREFIX "${PROJECT_BINARY_DIR}")
set(ESDIRK_PC_LIBDIR "$<TARGET_FILE_DIR:esdirk_shared>")
set(ESDIRK_PC_INCLUDEDIR "${ESDIRK_BUILD_TREE_INCLUDE_DIR}")
configure_file(cmake/esdirk.pc.in ${PROJECT_BINARY_DIR}/cmake-install/esdirk-uninstalled.pc.in @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/esdirk-uninstalled.pc
     INPUT ${PROJECT_BINARY_DIR}/cmake-install/esdirk-uninstalled.pc.in)
