# Runs CLASSIC (dow_classic: one classic call from 0 to 10 h) and HANDLE (dow_c: the handle API
# with its output grid and a stop time at 10 h) and compares the lines of states and scaled
# sensitivities at 10 h ("u1 ..." to "u10 ..."): the outputs on the grid take no steps, so they
# are identical. With -DSTATISTICS=ON also the statistics lines (NSTEP 518, ...): used to compare
# the Fortran and C classic runs. Exponent letters and runs of spaces are normalized (Fortran
# prints E and pads positive numbers with a blank).
execute_process(COMMAND ${CLASSIC} OUTPUT_VARIABLE classic RESULT_VARIABLE rc1)
execute_process(COMMAND ${HANDLE} OUTPUT_VARIABLE handle RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "a program failed: ${rc1} ${rc2}")
endif()
foreach(output classic handle)
  string(TOLOWER "${${output}}" text)
  string(REGEX REPLACE " +" " " text "${text}")
  string(REGEX MATCHALL "\nu[0-9]+ [^\n]*" ${output}_lines "${text}")
  if(STATISTICS)
    string(REGEX MATCHALL "\nn[a-z]+ [0-9]+" ${output}_statistics "${text}")
    list(APPEND ${output}_lines ${${output}_statistics})
  endif()
endforeach()
list(LENGTH classic_lines n)
if(NOT n EQUAL 20 AND NOT (STATISTICS AND n EQUAL 28))
  message(FATAL_ERROR "expected 20 lines of states and sensitivities, found ${n}")
endif()
if(NOT classic_lines STREQUAL handle_lines)
  message(FATAL_ERROR "outputs differ:\n--- classic\n${classic_lines}\n--- handle\n${handle_lines}")
endif()
message("states and sensitivities at 10 h identical (${n} lines)")
