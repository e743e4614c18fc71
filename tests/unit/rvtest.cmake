# SPDX-License-Identifier: GPL-2.0-or-later
# rvtest_add_program(TARGET PREFIX LABELS TIMEOUT), LABELS
# comma-separated: register one CTest test
# per CUnit suite of the rvtest program TARGET, named PREFIX.SUITE.  The
# suites are read from `TARGET --list` after each link (discover.cmake), so
# a new RVTEST_SUITE needs no CMake change.  Before the first build, the
# program shows up as one failing test PREFIX.NOT_BUILT.
set(RCUVFS_UNIT_TIMEOUT 300)
if(RCUVFS_LONG_TESTS)
  set(RCUVFS_UNIT_TIMEOUT 900)
endif()
function(rvtest_add_program target prefix labels timeout)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  set(inc ${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DPROG=$<TARGET_FILE:${target}> -DPREFIX=${prefix}
            -DLABELS=${labels} -DTIMEOUT=${timeout} -DOUT=${out}
            -P ${PROJECT_SOURCE_DIR}/tests/unit/discover.cmake
    BYPRODUCTS ${out} VERBATIM)
  file(WRITE ${inc}
       "if(EXISTS \"${out}\")\n  include(\"${out}\")\nelse()\n"
       "  add_test(${prefix}.NOT_BUILT \"${CMAKE_COMMAND}\" -E false)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${inc})
endfunction()
