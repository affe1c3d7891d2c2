# esdirk_add_memcheck_test(NAME name COMMAND program args...): runs the program under
# valgrind's memcheck (when valgrind is installed) and fails on any memory error or leak.
find_program(ESDIRK_VALGRIND valgrind)
function(esdirk_add_memcheck_test)
  cmake_parse_arguments(ARG "" "NAME" "COMMAND" ${ARGN})
  if(NOT ESDIRK_VALGRIND)
    message(STATUS "valgrind not found: ${ARG_NAME} is not registered")
    return()
  endif()
  add_test(NAME ${ARG_NAME}
           COMMAND ${ESDIRK_VALGRIND} --error-exitcode=1 --leak-check=full
                   --errors-for-leak-kinds=definite,indirect ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS memcheck)
endfunction()
