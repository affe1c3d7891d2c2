# Runs dow_classic (one classic call from 0 to 10 h) and dow_c (the handle API with its output
# grid and a stop time at 10 h) and compares the lines of states and scaled sensitivities at
# 10 h ("u1 ..." to "u10 ..."): the outputs on the grid take no steps, so they are identical.
execute_process(COMMAND ${CLASSIC} OUTPUT_VARIABLE classic RESULT_VARIABLE rc1)
execute_process(COMMAND ${HANDLE} OUTPUT_VARIABLE handle RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "a program failed: ${rc1} ${rc2}")
endif()
string(REGEX MATCHALL "\nu[0-9]+ [^\n]*" classic_lines "${classic}")
string(REGEX MATCHALL "\nu[0-9]+ [^\n]*" handle_lines "${handle}")
list(LENGTH classic_lines n)
if(NOT n EQUAL 20)
  message(FATAL_ERROR "expected 20 lines of states and sensitivities, found ${n}")
endif()
if(NOT classic_lines STREQUAL handle_lines)
  message(FATAL_ERROR "outputs differ:\n--- classic\n${classic_lines}\n--- handle\n${handle_lines}")
endif()
message("states and sensitivities at 10 h identical (${n} lines)")
