# Included by the cmake -P scripts that check the C API's description: the one scan of the
# headers and of the description they share.

# esdirk_declared_functions(<headers dir> <all var> <deprecated var>): the names of the
# functions the headers export (ESDIRK_C_API declarations, comments removed), and those of them
# marked ESDIRK_DEPRECATED.
function(esdirk_declared_functions headers_dir all_var deprecated_var)
  file(GLOB headers ${headers_dir}/*.h)
  set(all)
  set(deprecated)
  foreach(header IN LISTS headers)
    file(READ ${header} text)
    string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")  # comments
    string(REGEX MATCHALL "ESDIRK_C_API[ \t\n]+(ESDIRK_DEPRECATED\\(\"[^\"]*\"\\)[ \t\n]+)?[a-z_0-9 \t\n*]*esdirk_[a-z0-9_]+\\("
           found "${text}")
    foreach(declaration IN LISTS found)
      string(REGEX MATCH "esdirk_[a-z0-9_]+\\($" name "${declaration}")
      string(REGEX REPLACE "\\($" "" name "${name}")
      list(APPEND all ${name})
      if(declaration MATCHES "ESDIRK_DEPRECATED")
        list(APPEND deprecated ${name})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES all)
  set(${all_var} ${all} PARENT_SCOPE)
  set(${deprecated_var} ${deprecated} PARENT_SCOPE)
endfunction()

# esdirk_described_functions(<description file> <var>): the C names of its function lines.
function(esdirk_described_functions description var)
  file(STRINGS ${description} lines REGEX "^[a-z_0-9-]+ +[a-z_0-9=]+ *\\|")
  set(described)
  foreach(line IN LISTS lines)
    string(REGEX MATCH "[ *](esdirk_[a-z0-9_]+)\\(" name "${line}")
    list(APPEND described ${CMAKE_MATCH_1})
  endforeach()
  set(${var} ${described} PARENT_SCOPE)
endfunction()
