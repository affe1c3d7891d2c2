# Runs esdirk-sbml-suite on the CI subset of the SBML Test Suite (conformance_subset.txt) and
# fails if any case fails or fewer cases pass than the floor recorded in the list's first line.
# Skipped (with the reason on its output) when the suite is not there: it is test data beside
# the source tree, not part of it.
#   cmake -DRUNNER=... -DSUITE=<folder holding cases/> -DLIST=... [-DJOBS=1] -P run_subset.cmake
if(NOT IS_DIRECTORY "${SUITE}/cases")
  message("sbml_conformance_subset skipped: no SBML Test Suite cases in ${SUITE}/cases "
          "(configure with -DESDIRK_SBML_TEST_SUITE=<folder holding cases/>)")
  return()
endif()
file(STRINGS "${LIST}" floor_line LIMIT_COUNT 1)
if(NOT floor_line MATCHES "^# floor: ([0-9]+)$")
  message(FATAL_ERROR "${LIST}: the first line must be '# floor: N'")
endif()
set(floor ${CMAKE_MATCH_1})
if(NOT JOBS)
  set(JOBS 1)
endif()
execute_process(COMMAND "${RUNNER}" --jobs ${JOBS} --cases-file "${LIST}" --min-passed ${floor}
                        "${SUITE}/cases"
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "esdirk-sbml-suite exited with ${status}: a case failed or fewer than ${floor} passed")
endif()
