# cmake -P script: lists the dynamic symbols libesdirk.so defines (nm -D -C --defined-only,
# demangled) and fails if any belongs to esdirk::detail or esdirk::internal (including
# their vtables, type info and clones), or if the C API or the annotated C++ API is missing.
execute_process(COMMAND ${NM} -D -C --defined-only ${LIBRARY} RESULT_VARIABLE rc
                OUTPUT_VARIABLE demangled ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${demangled}")
set(internal)
set(count 0)
foreach(line IN LISTS lines)
  math(EXPR count "${count} + 1")
  if(line MATCHES "esdirk::(detail|internal)::")
    list(APPEND internal "${line}")
  endif()
endforeach()
if(internal)
  string(REPLACE ";" "\n" internal "${internal}")
  message(FATAL_ERROR "libesdirk exports internal symbols:\n${internal}")
endif()
# The test would pass on an empty or unreadable list; make sure the public API is there.
foreach(expected " esdirk_solver_integrate_to$" " esdirk_status_message$"
                 " esdirk_structural_sigma$" "esdirk::status_name\\(esdirk::Status\\)"
                 "esdirk::structural::sigma_method\\(" "esdirk::Integrator::integrate_to\\("
                 "esdirk::ForwardSensitivity::integrate_to\\(" " esdirk_solver_adjoint_gradient$"
                 " esdirk_reverse_shooting_transpose_products$"
                 "esdirk::ReverseShootingInterval::transpose_products\\("
                 " esdirk_geometric_forward$" "esdirk::geometric::TypeTwoStep::adjoint\\("
                 " esdirk_hybrid_solver_adjoint_gradient$" "esdirk::HybridAdjoint::gradient\\("
                 " esdirk_problem_set_jacobian_pattern$")
  set(found FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "${expected}")
      set(found TRUE)
      break()
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "libesdirk does not export ${expected}")
  endif()
endforeach()
message("${count} exported symbols, none in esdirk::detail or esdirk::internal")
