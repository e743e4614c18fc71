# SPDX-License-Identifier: GPL-2.0-or-later
# Run after each unit test program is linked: ask it for its suites
# (PROG --list) and write OUT, the CTest file that registers one test per
# CUnit suite, named PREFIX.SUITE, labelled LABELS, with TIMEOUT.  A new
# RVTEST_SUITE is picked up by the next build, with no CMake change.
string(REPLACE "," ";" LABELS "${LABELS}")
execute_process(COMMAND ${PROG} --list OUTPUT_VARIABLE listing RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} --list failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(body "")
foreach(line ${lines})
  if(line MATCHES "^[A-Za-z0-9_]+$")
    string(APPEND body "add_test(${PREFIX}.${line} \"${PROG}\" ${line})\n"
           "set_tests_properties(${PREFIX}.${line} PROPERTIES TIMEOUT ${TIMEOUT} "
           "LABELS \"${LABELS}\")\n")
  endif()
endforeach()
if(body STREQUAL "")
  message(FATAL_ERROR "${PROG} --list printed no suite")
endif()
file(WRITE ${OUT} "${body}")
