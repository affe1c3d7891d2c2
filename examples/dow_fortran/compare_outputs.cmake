# Runs two programs and compares their outputs line by line after the first (title) line,
# ignoring the case of exponent letters (Fortran prints E, C prints e).
execute_process(COMMAND ${FIRST} OUTPUT_VARIABLE first RESULT_VARIABLE rc1)
execute_process(COMMAND ${SECOND} OUTPUT_VARIABLE second RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "a program failed: ${rc1} ${rc2}")
endif()
string(TOLOWER "${first}" first)
string(TOLOWER "${second}" second)
string(REGEX REPLACE "^[^\n]*\n" "" first "${first}")
string(REGEX REPLACE "^[^\n]*\n" "" second "${second}")
# Normalize runs of spaces (Fortran pads with a leading blank for positive numbers).
string(REGEX REPLACE " +" " " first "${first}")
string(REGEX REPLACE " +" " " second "${second}")
if(NOT first STREQUAL second)
  message(FATAL_ERROR "outputs differ:\n--- ${FIRST}\n${first}\n--- ${SECOND}\n${second}")
endif()
message("outputs identical")
