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

# esdirk.sbml, where the package has it (built when libSBML was found): the installed _sbml
# must load without the build tree (it holds the library statically) and run a model.
file(GLOB installed_sbml ${PREFIX}/${PACKAGE_DIR}/esdirk/_sbml*)
if(installed_sbml)
  set(sbml_check [=[
import sys
from esdirk import sbml
assert sbml.__file__.startswith(sys.argv[1]), sbml.__file__
xml = """<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2"><model id="m">
<listOfParameters><parameter id="x" value="1" constant="false"/></listOfParameters>
<listOfRules><rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML">
<apply><minus/><ci>x</ci></apply></math></rateRule></listOfRules></model></sbml>"""
run = sbml.simulate(sbml.load_string(xml), [0.0, 1.0], ["x"])
assert abs(run.values[-1][0] - 0.36787944117144233) < 1e-7, run.values
print("installed esdirk.sbml OK")
]=])
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}/${PACKAGE_DIR}
                          ${PYTHON} -B -c "${sbml_check}" ${PREFIX}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the installed esdirk.sbml does not work")
  endif()
endif()
