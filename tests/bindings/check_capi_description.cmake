# cmake -P script: every function the C headers in HEADERS export (ESDIRK_C_API declarations)
# is described in DESCRIPTION (capi/esdirk_functions.txt), and nothing else is. Fails listing
# the differences. The types of each described function are checked by test_capi_description.
include(${CMAKE_CURRENT_LIST_DIR}/capi_scan.cmake)
esdirk_declared_functions(${HEADERS} declared deprecated)
esdirk_described_functions(${DESCRIPTION} described)

set(missing ${declared})
list(REMOVE_ITEM missing ${described})
set(extra ${described})
list(REMOVE_ITEM extra ${declared})
list(LENGTH declared count)
if(count LESS 100)
  message(FATAL_ERROR "found only ${count} declarations in ${HEADERS}: the scan is broken")
endif()
if(missing OR extra)
  string(REPLACE ";" " " missing "${missing}")
  string(REPLACE ";" " " extra "${extra}")
  message(FATAL_ERROR "capi/esdirk_functions.txt and the headers differ:\n"
                      "  declared but not described: ${missing}\n"
                      "  described but not declared: ${extra}")
endif()
message(STATUS "${count} functions declared, all described")
