# `cmake --install` of the build tree into a scratch prefix, then the package imported from
# there (not from the build tree) and one integration run: what a user of the installed
# package gets. Arguments: BUILD_DIR, PREFIX, PYTHON, PACKAGE_DIR (relative to PREFIX).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
set(check "import esdirk, sys; assert esdirk.__file__.startswith(sys.argv[1]), esdirk.__file__; r = esdirk.solve_ivp(lambda t, y: -y, (0, 1), [1.0], rtol=1e-8, atol=1e-12); assert abs(r.y[0, -1] - 0.36787944117144233) < 1e-7; print('installed package OK:', esdirk.__file__)")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}/${PACKAGE_DIR}
                        ${PYTHON} -B -c "${check}" ${PREFIX}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed package does not work")
endif()
