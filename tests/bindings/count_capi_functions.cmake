# cmake -P script: counts the C functions of DESCRIPTION (capi/esdirk_functions.txt) by class
# (CLASSES, capi_function_classes.txt: baseline, capability, deprecated from the HEADERS'
# ESDIRK_DEPRECATED marks, and the options object's own) and prints the table; fails when the
# counted functions (baseline and options, not deprecated) exceed the file's ceiling, when a
# listed function is no longer described, or when the baseline is not the 193 of the count.
#   cmake -DDESCRIPTION=capi/esdirk_functions.txt -DHEADERS=capi/include/esdirk
#         -DCLASSES=tests/bindings/capi_function_classes.txt -P tests/bindings/count_capi_functions.cmake
# VERBOSE=ON also lists the functions of each class.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/capi_scan.cmake)
esdirk_declared_functions(${HEADERS} declared deprecated)
esdirk_described_functions(${DESCRIPTION} described)

file(STRINGS ${CLASSES} class_lines REGEX "^(baseline|capability|ceiling) ")
set(baseline)
set(capability)
set(ceiling "")
foreach(line IN LISTS class_lines)
  string(REGEX MATCH "^([a-z]+) +([^ ]+)" _ "${line}")
  if(CMAKE_MATCH_1 STREQUAL "ceiling")
    set(ceiling ${CMAKE_MATCH_2})
  else()
    list(APPEND ${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
  endif()
endforeach()

list(LENGTH baseline baseline_count)
if(NOT baseline_count EQUAL 193)
  message(FATAL_ERROR "${CLASSES} lists ${baseline_count} baseline functions, not the 193 of the count")
endif()

set(problems "")
foreach(name IN LISTS baseline capability)
  if(NOT name IN_LIST described)
    string(APPEND problems "  listed in ${CLASSES} but not described: ${name}\n")
  endif()
endforeach()

foreach(class a b c d)
  set(class_${class})
endforeach()
foreach(name IN LISTS described)
  if(name IN_LIST deprecated)
    list(APPEND class_d ${name})
  elseif(name IN_LIST baseline)
    list(APPEND class_a ${name})
  elseif(name IN_LIST capability)
    list(APPEND class_b ${name})
  else()
    list(APPEND class_c ${name})
  endif()
endforeach()
set(deprecated_baseline 0)
foreach(name IN LISTS class_d)
  if(name IN_LIST baseline)
    math(EXPR deprecated_baseline "${deprecated_baseline} + 1")
  endif()
endforeach()

list(LENGTH described total)
foreach(class a b c d)
  list(LENGTH class_${class} n_${class})
endforeach()
math(EXPR counted "${n_a} + ${n_c}")
math(EXPR deprecated_other "${n_d} - ${deprecated_baseline}")
message(STATUS "C functions described: ${total}\n"
               "  (a) baseline (of the 193), not deprecated:        ${n_a}\n"
               "  (b) added by a new capability since, not deprecated: ${n_b}\n"
               "  (c) new in the baseline's scope (options object, one objective, structure handle): ${n_c}\n"
               "  (d) deprecated wrappers (kept one release):       ${n_d} "
               "(${deprecated_baseline} of the baseline, ${deprecated_other} others)\n"
               "  counted (a) + (c): ${counted} (target 130, ceiling ${ceiling})")
if(VERBOSE)
  foreach(class a b c d)
    string(REPLACE ";" " " names "${class_${class}}")
    message(STATUS "(${class}): ${names}")
  endforeach()
endif()
if(ceiling STREQUAL "")
  string(APPEND problems "  ${CLASSES} has no ceiling line\n")
elseif(counted GREATER ceiling)
  string(APPEND problems "  ${counted} counted functions exceed the ceiling ${ceiling}\n")
endif()
if(problems)
  message(FATAL_ERROR "capi_function_count:\n${problems}")
endif()
