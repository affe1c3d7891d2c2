# Reads capi/esdirk_functions.txt, the one description of the C API (its header comment gives
# the grammar), and writes from it
#  - the Fortran interface bodies of every module (<module>_c_interfaces.inc, `include`d inside
#    the module's interface block), and
#  - a C++ translation unit that checks every description line against the real headers
#    (std::is_same_v of the function's type and the described one: every argument type, their
#    order and the return type), compiled by the test capi_description_matches_headers.
# Run as a script at build time (no Python needed):
#   cmake -DDESCRIPTION=<file> -DFORTRAN_DIR=<dir> -P EsdirkCApiDescription.cmake
#   cmake -DDESCRIPTION=<file> -DSIGNATURE_CHECK=<file.cpp> -P EsdirkCApiDescription.cmake
# A line that does not match the grammar stops the build, naming the line.
cmake_policy(VERSION 3.20)

# The Fortran type of a C base type passed as a number or a character.
function(esdirk_capi_fortran_base ctype out)
  set(map_int "integer(c_int)")
  set(map_unsigned "integer(c_int)")
  set(map_esdirk_int "integer(esdirk_int)")
  set(map_long "integer(c_long)")
  set(map_double "real(c_double)")
  set(map_size_t "integer(c_size_t)")
  set(map_int64_t "integer(c_int64_t)")
  set(map_char "character(kind=c_char)")
  if(DEFINED map_${ctype})
    set(${out} "${map_${ctype}}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# esdirk_capi_argument(<argument text> <where>): sets in the caller arg_ctype (the C type),
# arg_name, arg_decl (the Fortran declaration line without indentation) and arg_kind (the kind
# or derived type to import).
function(esdirk_capi_argument text where)
  set(intent "")
  if(text MATCHES "^(.*) (in|out|inout)$")
    set(text "${CMAKE_MATCH_1}")
    set(intent "${CMAKE_MATCH_2}")
  endif()
  set(as "")
  if(text MATCHES "^(.*) as ([a-z_]+\\([a-z_0-9]+\\))$")
    set(text "${CMAKE_MATCH_1}")
    set(as "${CMAKE_MATCH_2}")
  endif()
  if(NOT text MATCHES "^(const )?([a-z_0-9]+)(\\*\\*|\\*)? ([A-Za-z_0-9]+)(\\(([^)]*)\\))?$")
    message(FATAL_ERROR "${where}: cannot read the argument '${text}'")
  endif()
  set(const "${CMAKE_MATCH_1}")
  set(base "${CMAKE_MATCH_2}")
  set(pointer "${CMAKE_MATCH_3}")
  set(name "${CMAKE_MATCH_4}")
  set(dims "${CMAKE_MATCH_6}")
  set(arg_ctype "${const}${base}${pointer}" PARENT_SCOPE)
  set(arg_name "${name}" PARENT_SCOPE)
  esdirk_capi_fortran_base(${base} ftype)
  set(entity "${name}")
  if(NOT dims STREQUAL "")
    set(entity "${name}(${dims})")
  endif()
  if(NOT as STREQUAL "")
    set(ftype "${as}")
    if(intent STREQUAL "")
      set(attribute "value")
    else()
      set(attribute "intent(${intent})")
    endif()
  elseif(pointer STREQUAL "")
    if(base MATCHES "_fn$")
      set(ftype "type(c_funptr)")
    elseif(ftype STREQUAL "")
      message(FATAL_ERROR "${where}: no Fortran type for the C type '${base}'")
    endif()
    set(attribute "value")
  elseif(pointer STREQUAL "*" AND NOT ftype STREQUAL "")
    if(NOT const STREQUAL "" AND intent STREQUAL "")
      set(intent in)
    endif()
    if(intent STREQUAL "")
      message(FATAL_ERROR "${where}: '${name}' points to non-const data: give in, out or inout")
    endif()
    set(attribute "intent(${intent})")
  elseif(pointer STREQUAL "*")
    set(ftype "type(c_ptr)")  # a handle or void*
    set(attribute "value")
  else()
    if(intent STREQUAL "")
      message(FATAL_ERROR "${where}: '${name}' is a pointer to a handle: give out or inout")
    endif()
    set(ftype "type(c_ptr)")
    set(attribute "intent(${intent})")
  endif()
  set(arg_decl "${ftype}, ${attribute} :: ${entity}" PARENT_SCOPE)
  string(REGEX REPLACE "^[a-z]+\\((kind=)?([a-z_0-9]+)\\)$" "\\2" kind "${ftype}")
  set(arg_kind "${kind}" PARENT_SCOPE)
endfunction()

# esdirk_capi_read(<description>): sets in the caller capi_functions (the C names, in order)
# and for each C name N: capi_N_module, capi_N_fortran (the binding's name), capi_N_return,
# capi_N_ctypes (list), capi_N_names (list), capi_N_decls (list of Fortran declarations),
# capi_N_kinds (list).
macro(esdirk_capi_read description)
  file(STRINGS ${description} capi_lines)
  set(capi_functions)
  set(capi_line_number 0)
  foreach(capi_line IN LISTS capi_lines)
    math(EXPR capi_line_number "${capi_line_number} + 1")
    if(capi_line MATCHES "^[ \t]*(#|$)")
      continue()
    endif()
    set(capi_where "${description}:${capi_line_number}")
    if(NOT capi_line MATCHES
       "^([a-z_0-9]+|-) +([a-z_0-9]+|=) *\\| *(.*[ *])(esdirk_[a-z0-9_]+)\\((.*)\\)[ \t]*$")
      message(FATAL_ERROR "${capi_where}: cannot read the line: ${capi_line}")
    endif()
    set(capi_name "${CMAKE_MATCH_4}")
    set(capi_arguments "${CMAKE_MATCH_5}")
    string(STRIP "${CMAKE_MATCH_3}" capi_${capi_name}_return)
    set(capi_${capi_name}_module "${CMAKE_MATCH_1}")
    set(capi_${capi_name}_fortran "${CMAKE_MATCH_2}")
    if(capi_${capi_name}_fortran STREQUAL "=")
      set(capi_${capi_name}_fortran "${capi_name}")
    endif()
    if(capi_name IN_LIST capi_functions)
      message(FATAL_ERROR "${capi_where}: ${capi_name} is described twice")
    endif()
    list(APPEND capi_functions ${capi_name})
    set(capi_${capi_name}_ctypes)
    set(capi_${capi_name}_names)
    set(capi_${capi_name}_decls)
    set(capi_${capi_name}_kinds)
    if(NOT capi_arguments STREQUAL "")
      string(REPLACE ", " ";" capi_arguments "${capi_arguments}")
      foreach(capi_argument IN LISTS capi_arguments)
        esdirk_capi_argument("${capi_argument}" "${capi_where}")
        list(APPEND capi_${capi_name}_ctypes "${arg_ctype}")
        list(APPEND capi_${capi_name}_names "${arg_name}")
        list(APPEND capi_${capi_name}_decls "${arg_decl}")
        list(APPEND capi_${capi_name}_kinds "${arg_kind}")
      endforeach()
    endif()
  endforeach()
endmacro()

# The interface body of one function, appended to the variable `text`.
function(esdirk_capi_fortran_body function text)
  set(body "${${text}}")
  set(return "${capi_${function}_return}")
  set(kinds ${capi_${function}_kinds})
  if(return STREQUAL "void")
    set(head "subroutine")
  elseif(return STREQUAL "int")
    set(head "integer(c_int) function")
    list(APPEND kinds c_int)
  elseif(return STREQUAL "esdirk_int")
    set(head "integer(esdirk_int) function")
    list(APPEND kinds esdirk_int)
  elseif(return MATCHES "\\*$")
    set(head "type(c_ptr) function")
    list(APPEND kinds c_ptr)
  else()
    message(FATAL_ERROR "${function}: no Fortran result for the C type '${return}'")
  endif()
  string(REGEX REPLACE " .*" "" end "${head}")
  if(end STREQUAL "subroutine")
  else()
    set(end "function")
  endif()
  set(fortran "${capi_${function}_fortran}")
  # The first line, then the arguments wrapped below 100 columns, then the binding.
  set(line "    ${head} ${fortran}(")
  set(first TRUE)
  foreach(name IN LISTS capi_${function}_names)
    if(first)
      set(piece "${name}")
      set(first FALSE)
    else()
      set(piece ", ${name}")
    endif()
    string(LENGTH "${line}${piece}" length)
    if(length GREATER 96)
      string(APPEND body "${line}, &\n")
      set(line "        ${name}")
    else()
      string(APPEND line "${piece}")
    endif()
  endforeach()
  string(APPEND body "${line}) &\n        bind(C, name=\"${function}\")\n")
  list(REMOVE_DUPLICATES kinds)
  list(SORT kinds)
  if(kinds)
    string(REPLACE ";" ", " kinds "${kinds}")
    string(APPEND body "      import :: ${kinds}\n")
  endif()
  foreach(decl IN LISTS capi_${function}_decls)
    string(APPEND body "      ${decl}\n")
  endforeach()
  string(APPEND body "    end ${end} ${fortran}\n\n")
  set(${text} "${body}" PARENT_SCOPE)
endfunction()

# Writes <dir>/<module>_c_interfaces.inc for every Fortran module of the description (only
# when the text changed, so that the modules are not recompiled for nothing).
function(esdirk_capi_write_fortran description dir)
  esdirk_capi_read(${description})
  set(modules)
  foreach(function IN LISTS capi_functions)
    set(module "${capi_${function}_module}")
    if(module STREQUAL "-")
      continue()
    endif()
    if(NOT module IN_LIST modules)
      list(APPEND modules ${module})
      set(text_${module}
          "! Written by the build from capi/esdirk_functions.txt (cmake/EsdirkCApiDescription.cmake):\n! the interface bodies of the C functions the module ${module} binds. Do not edit.\n\n")
    endif()
    esdirk_capi_fortran_body(${function} text_${module})
  endforeach()
  foreach(module IN LISTS modules)
    file(CONFIGURE OUTPUT ${dir}/${module}_c_interfaces.inc CONTENT "${text_${module}}" @ONLY)
  endforeach()
endfunction()

# Writes the C++ check of the description against the headers.
function(esdirk_capi_write_signature_check description file)
  esdirk_capi_read(${description})
  set(text "// Written by the build from capi/esdirk_functions.txt (cmake/EsdirkCApiDescription.cmake).
// Each line: the type of the function the headers declare is the type the description gives
// (return type, every argument type, their order). Compiling it is the test.
#define ESDIRK_NO_DEPRECATION_WARNINGS  // the deprecated functions are described too
#include <cstdio>
#include <type_traits>

#include \"esdirk/esdirk.h\"
#include \"esdirk/esdirk_adjoint.h\"
#include \"esdirk/esdirk_classic.h\"
#include \"esdirk/esdirk_geometric.h\"
#include \"esdirk/esdirk_hybrid_adjoint.h\"
#include \"esdirk/esdirk_method.h\"
#include \"esdirk/esdirk_multishoot.h\"
#include \"esdirk/esdirk_options.h\"
#include \"esdirk/esdirk_sparse.h\"

")
  set(count 0)
  foreach(function IN LISTS capi_functions)
    string(REPLACE ";" ", " arguments "${capi_${function}_ctypes}")
    string(APPEND text "static_assert(std::is_same_v<decltype(&${function}), ${capi_${function}_return} (*)(${arguments})>,\n              \"${function}: the header and capi/esdirk_functions.txt differ\");\n")
    math(EXPR count "${count} + 1")
  endforeach()
  string(APPEND text "
int main() {
  std::printf(\"${count} passed, 0 failed\\n\");  // one static_assert per described function
  return 0;
}
")
  file(CONFIGURE OUTPUT ${file} CONTENT "${text}" @ONLY)
endfunction()

# The script mode (see the top of this file).
if(CMAKE_SCRIPT_MODE_FILE AND DESCRIPTION)
  if(FORTRAN_DIR)
    esdirk_capi_write_fortran(${DESCRIPTION} ${FORTRAN_DIR})
  endif()
  if(SIGNATURE_CHECK)
    esdirk_capi_write_signature_check(${DESCRIPTION} ${SIGNATURE_CHECK})
  endif()
endif()
