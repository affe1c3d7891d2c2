# cmake -P script: every function the C headers in HEADERS export (ESDIRK_C_API declarations)
# is described in DESCRIPTION (capi/esdirk_functions.txt), and nothing else is. Fails listing
# the differences. The types of each described function are checked by test_capi_description.
file(GLOB headers ${HEADERS}/*.h)
set(declared)
foreach(header IN LISTS headers)
  file(READ ${header} text)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")  # comments
  string(REGEX MATCHALL "ESDIRK_C_API[ \t\n]+(ESDIRK_DEPRECATED\\(\"[^\"]*\"\\)[ \t\n]+)?[a-z_0-9 \t\n*]*esdirk_[a-z0-9_]+\\("
         found "${text}")
  foreach(declaration IN LISTS found)
    string(REGEX MATCH "esdirk_[a-z0-9_]+\\($" name "${declaration}")
    string(REGEX REPLACE "\\($" "" name "${name}")
    list(APPEND declared ${name})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES declared)

file(STRINGS ${DESCRIPTION} lines REGEX "^[a-z_0-9-]+ +[a-z_0-9=]+ *\\|")
set(described)
foreach(line IN LISTS lines)
  string(REGEX MATCH "[ *](esdirk_[a-z0-9_]+)\\(" name "${line}")
  list(APPEND described ${CMAKE_MATCH_1})
endforeach()

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
