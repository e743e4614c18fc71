# SPDX-License-Identifier: GPL-2.0-or-later
# cmake --install: the tools in bin (rcuvfs, rcuvfs-stress, rcuvfs-explore,
# rcuvfs-plot; installed where they are built), the benchmarks in
# libexec/rcuvfs, the model as lib/librcuvfs.a with its headers under
# include/rcuvfs (so "#include "vfs/vfs.h"" works with
# -I<prefix>/include/rcuvfs), a pkg-config file and an exported CMake
# package, so a program of one's own links the model:
#     pkg-config --cflags --libs rcuvfs
#     find_package(rcuvfs REQUIRED) + target_link_libraries(t rcuvfs::rcuvfs)
include(CMakePackageConfigHelpers)

# rcuvfs-plot: a script, copied into build/bin at every build with its
# version and git commit filled in (cmake/plot-version.cmake).
add_custom_target(rcuvfs_plot ALL
  COMMAND ${CMAKE_COMMAND} -DIN=${PROJECT_SOURCE_DIR}/tools/plot/rcuvfs-plot
          -DOUT=${PROJECT_BINARY_DIR}/bin/rcuvfs-plot -DVERSION=${PROJECT_VERSION}
          -DGIT=${PROJECT_BINARY_DIR}/gen/rcuvfs_git.h
          -P ${PROJECT_SOURCE_DIR}/cmake/plot-version.cmake
  BYPRODUCTS ${PROJECT_BINARY_DIR}/bin/rcuvfs-plot
  COMMENT "rcuvfs-plot")
add_dependencies(rcuvfs_plot rcuvfs_git)
install(PROGRAMS ${PROJECT_BINARY_DIR}/bin/rcuvfs-plot DESTINATION ${CMAKE_INSTALL_BINDIR})

install(TARGETS rcuvfs EXPORT rcuvfsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The public headers and what they include; not a folder's internal.h, its
# testing.h (test-only entry points, rcuvfs_testing) or fdtable's bitmap.h.
foreach(dir vfs fdtable locks mm)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rcuvfs/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "internal.h" EXCLUDE PATTERN "testing.h" EXCLUDE
          PATTERN "bitmap.h" EXCLUDE)
endforeach()

set(RCUVFS_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rcuvfs)
install(EXPORT rcuvfsTargets NAMESPACE rcuvfs:: DESTINATION ${RCUVFS_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rcuvfsConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/rcuvfsConfig.cmake
                              INSTALL_DESTINATION ${RCUVFS_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rcuvfsConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rcuvfsConfig.cmake ${PROJECT_BINARY_DIR}/rcuvfsConfigVersion.cmake
        DESTINATION ${RCUVFS_CMAKEDIR})

# A sanitizer build's library needs the sanitizer runtimes at link time:
# users of the installed tree (pkg-config and the CMake package) get them.
set(RCUVFS_PC_EXTRA_LIBS "")
if(RCUVFS_SANITIZE)
  target_link_options(rcuvfs INTERFACE -fsanitize=address,undefined)
  set(RCUVFS_PC_EXTRA_LIBS " -fsanitize=address,undefined")
endif()
file(RELATIVE_PATH RCUVFS_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" RCUVFS_PC_TO_PREFIX "${RCUVFS_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/rcuvfs.pc.in ${PROJECT_BINARY_DIR}/rcuvfs.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rcuvfs.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# Man pages from docs/man/*.scd (scdoc, Debian package scdoc), into
# build/man and share/man/man1; without scdoc they are not built.
find_program(SCDOC scdoc)
file(GLOB RCUVFS_MAN_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.1.scd)
if(SCDOC)
  # A page's line "%%SWITCHES%%" becomes the switch reference that
  # rcuvfs-gendoc prints from vfs/base/switches.c (cmake/man-switches.cmake).
  set(_man_pages "")
  set(_sw_scd ${PROJECT_BINARY_DIR}/gen/switches.scd)
  add_custom_command(OUTPUT ${_sw_scd}
                     COMMAND $<TARGET_FILE:rcuvfs-gendoc> switches scd > ${_sw_scd}
                     DEPENDS rcuvfs-gendoc VERBATIM)
  foreach(scd ${RCUVFS_MAN_SOURCES})
    get_filename_component(page ${scd} NAME_WLE)
    add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/${page}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
                       COMMAND ${CMAKE_COMMAND} -DIN=${scd} -DSWITCHES=${_sw_scd}
                               -DDOCDIR=${CMAKE_INSTALL_FULL_DOCDIR}
                               -DOUT=${PROJECT_BINARY_DIR}/gen/${page}.scd
                               -P ${PROJECT_SOURCE_DIR}/cmake/man-switches.cmake
                       COMMAND ${SCDOC} < ${PROJECT_BINARY_DIR}/gen/${page}.scd
                               > ${PROJECT_BINARY_DIR}/man/${page}
                       DEPENDS ${scd} ${_sw_scd} ${PROJECT_SOURCE_DIR}/cmake/man-switches.cmake
                       VERBATIM)
    list(APPEND _man_pages ${PROJECT_BINARY_DIR}/man/${page})
  endforeach()
  add_custom_target(rcuvfs_man ALL DEPENDS ${_man_pages})
  install(FILES ${_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "scdoc not found: the man pages are not built")
endif()

# Bash completion, generated from the built tools' --help and --list.
if(TARGET rcuvfs_daemon)
  set(_daemon $<TARGET_FILE:rcuvfs_daemon>)
  set(_completions ${PROJECT_BINARY_DIR}/completion/rcuvfs-stress ${PROJECT_BINARY_DIR}/completion/rcuvfs)
else()
  set(_daemon -)
  set(_completions ${PROJECT_BINARY_DIR}/completion/rcuvfs-stress)
endif()
add_custom_command(OUTPUT ${_completions}
                   COMMAND ${PROJECT_SOURCE_DIR}/cmake/completion.sh $<TARGET_FILE:rcuvfs-stress>
                           ${_daemon} ${PROJECT_BINARY_DIR}/completion
                   DEPENDS rcuvfs-stress ${PROJECT_SOURCE_DIR}/cmake/completion.sh
                           $<$<TARGET_EXISTS:rcuvfs_daemon>:rcuvfs_daemon>
                   VERBATIM)
add_custom_target(rcuvfs_completion ALL DEPENDS ${_completions})
install(FILES ${_completions} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
