# cmake -DPROGRAM=... -P check_help.cmake: PROGRAM --help must print a usage text that starts
# with "usage:" on stdout, nothing on stderr, and exit 0.
execute_process(COMMAND ${PROGRAM} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --help exited with ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "^usage: ")
  message(FATAL_ERROR "${PROGRAM} --help printed no usage text on stdout:\n${out}\n${err}")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} --help wrote to stderr:\n${err}")
endif()
message("help ok")
