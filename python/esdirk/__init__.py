"""esdirk: ESDIRK integrators for stiff ODEs and index-1 DAEs, with forward sensitivities,
adjoint gradients, events, multiple shooting and structural analysis (doc/python-guide.md).

    import esdirk
    res = esdirk.solve_ivp(fun, (0, 10), y0, rtol=1e-6)     # as scipy.integrate.solve_ivp
"""

from ._esdirk import (Integrator, Options, Problem, RecoverableError, SensitivityOptions,
                      SolverError, statistics_counters)
from ._esdirk import *  # noqa: F401,F403  (the remaining facades)
from ._callbacks import CFunction, SIGNATURE, SIGNATURES, ctypes_type, numba_signature
from ._ivp import DenseSolution, OdeResult, solve_ivp

__version__ = "0.1.0"
