# Installs the library, public headers, a CMake package (find_package(cvmrt)) and a .pc file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS cvmrt cvm_dlpack EXPORT cvmrtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/core/include/cvm" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "check.h" EXCLUDE)
install(FILES "${PROJECT_BINARY_DIR}/core/include/cvm/version.h"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cvm)
install(EXPORT cvmrtTargets NAMESPACE cvmrt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cvmrt)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/cvmrtConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cvmrtConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cvmrt)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cvmrtConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cvmrtConfig.cmake" "${PROJECT_BINARY_DIR}/cvmrtConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cvmrt)

# The .pc file finds its prefix relative to its own folder, so an installed tree can move.
file(RELATIVE_PATH CVM_PC_RELATIVE_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file("${PROJECT_SOURCE_DIR}/cmake/cvmrt.pc.in" "${PROJECT_BINARY_DIR}/cvmrt.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cvmrt.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
