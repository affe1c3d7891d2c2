"""esdirk.solve_ivp: scipy.integrate.solve_ivp's signature and result on esdirk's integrators."""

import numpy as np

from . import _esdirk

# scipy's names for options that esdirk.Options calls otherwise.
_SCIPY_NAMES = {"first_step": "initial_step"}
_SCIPY_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


class OdeResult(dict):
    """The result of solve_ivp: a dict whose keys are also attributes (as scipy's)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__

    def __repr__(self):
        keys = ("message", "success", "status", "t", "y", "sol", "t_events", "y_events",
                "nfev", "njev", "nlu")
        return "\n".join("%9s: %r" % (k, self[k]) for k in keys if k in self)

    def __dir__(self):
        return list(self.keys())


class DenseSolution:
    """The continuous solution x(t) over the integration interval (scipy's OdeSolution):
    cubic Hermite interpolation of the states and their derivatives at the step ends, of the
    same order as the method's own continuous extension (3). For a DAE it gives x only."""

    def __init__(self, t, x, f):
        self.ts = np.asarray(t)
        self._x = np.asarray(x)
        self._f = np.asarray(f)
        self.t_min, self.t_max = (min(self.ts[0], self.ts[-1]), max(self.ts[0], self.ts[-1]))
        self.n_segments = len(self.ts) - 1

    def __call__(self, t):
        t = np.asarray(t, dtype=float)
        scalar = t.ndim == 0
        tt = np.atleast_1d(t)
        ascending = self.ts[-1] >= self.ts[0]
        ts = self.ts if ascending else self.ts[::-1]
        k = np.clip(np.searchsorted(ts, tt, side="right") - 1, 0, len(ts) - 2)
        if not ascending:
            k = len(ts) - 2 - k
        t0, t1 = self.ts[k], self.ts[k + 1]
        h = t1 - t0
        s = (tt - t0) / h
        h00 = (1 + 2 * s) * (1 - s) ** 2
        h10 = s * (1 - s) ** 2
        h01 = s * s * (3 - 2 * s)
        h11 = s * s * (s - 1)
        y = (h00 * self._x[k].T + (h10 * h) * self._f[k].T + h01 * self._x[k + 1].T
             + (h11 * h) * self._f[k + 1].T)
        return y[:, 0] if scalar else y


def _options(method, option_keywords, options):
    opts = options if options is not None else _esdirk.Options()
    if method in _SCIPY_METHODS:
        raise ValueError("method %r is scipy's; esdirk's methods are 'auto', 'ESDIRK34', "
                         "'ESDIRK436', 'ESDIRK547', 'ESDIRK23', 'ESDIRK12'" % (method,))
    if method is not None:
        opts.method = method
    for name, value in option_keywords.items():
        name = _SCIPY_NAMES.get(name, name)
        if name.startswith("_") or not hasattr(opts, name):
            raise TypeError("solve_ivp() got an unexpected option %r (not an esdirk.Options "
                            "field)" % (name,))
        setattr(opts, name, value)
    return opts


def _atol(opts, atol, nx, nz):
    atol = np.asarray(atol, dtype=float)
    if atol.ndim == 0:
        opts.atol = float(atol)
        return
    if atol.shape != (nx + nz,) and atol.shape != (nx,):
        raise ValueError("atol must be a scalar or have %d entries, got shape %s"
                         % (nx + nz, atol.shape))
    opts.atol_vector = list(atol[:nx])
    if nz and atol.shape[0] == nx + nz:
        opts.algebraic_atol = list(atol[nx:])


def solve_ivp(fun, t_span, y0, method="auto", t_eval=None, dense_output=False, events=None,
              vectorized=False, args=None, *, rtol=1e-3, atol=1e-6, jac=None, g=None, z0=None,
              p=None, jac_p=None, lband=None, uband=None, jac_sparsity=None,
              sensitivities=False, seed=None,
              sensitivity_options=None, options=None, **option_keywords):
    """Solve an initial value problem, as scipy.integrate.solve_ivp does, with esdirk.

    fun(t, y, *args) -> dy/dt as in scipy. The DAE form x' = fun(t, x, z), 0 = g(t, x, z)
    takes g (and z0, a guess of the algebraic states, made consistent); y then stacks x and
    z. With p (parameters) every callback also takes p: fun(t, y, p) or fun(t, x, z, p).
    jac(...) -> the Jacobian with respect to y (x and z), jac_p(...) -> with respect to p.
    fun, g, jac, jac_p and the event functions may also be compiled C functions (ctypes,
    cffi, numba.cfunc; see esdirk.numba_signature): the integration then runs without the
    interpreter and with the GIL released.

    method: "auto" (by the tolerance), or "ESDIRK34", "ESDIRK436", "ESDIRK547", ...
    events: functions event(t, y, *args) with the attributes terminal and direction (scipy).
    vectorized=True: fun (and g) also accept y of shape (n, k) (scipy's contract); a dense
    difference Jacobian is then one call on its n + 1 columns.
    jac_sparsity: the Jacobian's pattern, factored by KLU; without jac it is formed by coloured
    differences, with jac, jac returns its values on the pattern (a scipy.sparse matrix, a
    dense array, or the nonzeros in CSC order; a compiled jac writes those nonzeros).
    sensitivities=True: dy/dy0 and dy/dp at the output times (the result's dy_dy0, dy_dp);
    seed: an (nx + np, ns) matrix of directions instead (the result's sensitivities).
    Further keywords are fields of esdirk.Options (max_steps, initial_step or first_step,
    max_step, ...); options=esdirk.Options(...) gives them all at once.

    Returns an OdeResult with t, y, sol, t_events, y_events, nfev, njev, nlu, status,
    message, success as scipy's, and statistics (every counter), z, x, method,
    sensitivities (nt, nx + nz, ns), dy_dy0 and dy_dp.
    """
    args = tuple(args) if args is not None else ()
    t0, tf = (float(v) for v in t_span)
    y0 = np.asarray(y0)
    if y0.ndim != 1:
        raise ValueError("y0 must be one-dimensional, got shape %s" % (y0.shape,))
    nx = y0.shape[0]
    if nx == 0:
        raise ValueError("y0 must not be empty")
    dae = g is not None
    nz = 0
    if dae:
        if z0 is None:
            raise ValueError("the DAE form (g given) needs z0, a guess of the algebraic states")
        nz = np.asarray(z0).reshape(-1).shape[0]
    elif z0 is not None:
        raise ValueError("z0 is given without g")
    np_ = 0 if p is None else np.asarray(p).reshape(-1).shape[0]
    if jac is not None and not callable(jac) and _esdirk_address(jac) is None:
        constant = np.array(jac, dtype=float)
        jac = (lambda *a: constant)
    # jac with jac_sparsity: jac's values on that pattern, factored by KLU (scipy ignores
    # jac_sparsity when jac is given; here it is the pattern of jac's sparse result).
    sparse_jac = jac if (jac is not None and jac_sparsity is not None
                         and lband is None and uband is None) else None
    problem = _esdirk.Problem(nx, nz, np_, fun, g, None if sparse_jac is not None else jac,
                              jac_p, args=args, pass_z=dae, pass_p=p is not None,
                              sparse_jac=sparse_jac, vectorized=bool(vectorized))
    if lband is not None or uband is not None:
        problem.set_jacobian_bandwidths(int(lband or 0), int(uband or 0))
    elif jac_sparsity is not None:
        # Difference Jacobians get the diagonal too (the iteration matrix has it anyway);
        # jac's own pattern is taken as given (its nonzeros are in that pattern's order).
        rows, cols = _pattern(jac_sparsity, nx + nz, with_diagonal=sparse_jac is None)
        problem.set_jacobian_pattern(rows, cols)
    opts = _options(method, option_keywords, options)
    opts.rtol = float(rtol)
    _atol(opts, atol, nx, nz)
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float)
        if t_eval.ndim != 1:
            raise ValueError("t_eval must be one-dimensional")
        lo, hi = min(t0, tf), max(t0, tf)
        if np.any(t_eval < lo) or np.any(t_eval > hi):
            raise ValueError("values in t_eval are not within t_span")
        d = np.diff(t_eval)
        if (tf > t0 and np.any(d <= 0)) or (tf < t0 and np.any(d >= 0)):
            raise ValueError("values in t_eval are not properly sorted")
    sens_opts = sensitivity_options if sensitivity_options is not None else _esdirk.SensitivityOptions()
    want_sens = bool(sensitivities) or seed is not None
    if events is not None:
        events = list(events) if isinstance(events, (list, tuple)) else [events]
        terminal = [bool(getattr(e, "terminal", False)) for e in events]
        directions = [int(np.sign(getattr(e, "direction", 0))) for e in events]
        if want_sens and t_eval is None:
            raise ValueError("sensitivities with events need t_eval")
        raw = _esdirk._solve_events(problem, opts, t0, tf, y0, z0, p, t_eval, bool(dense_output),
                                    want_sens, seed, sens_opts, events, terminal, directions,
                                    dae, p is not None, args)
    else:
        raw = _esdirk._solve(problem, opts, t0, tf, y0, z0, p, t_eval, bool(dense_output),
                             want_sens, seed, sens_opts)
    return _result(raw, nx, nz, dense_output, events, want_sens and seed is None)


def _pattern(jac_sparsity, n, with_diagonal=True):
    """The nonzeros (rows, cols) of a dense or scipy.sparse (n, n) pattern, the diagonal added
    unless with_diagonal is False (the iteration matrix E - h gamma J has it whatever J's
    pattern)."""
    if hasattr(jac_sparsity, "tocoo"):
        coo = jac_sparsity.tocoo()
        shape, rows, cols = coo.shape, coo.row, coo.col
    else:
        dense = np.asarray(jac_sparsity)
        shape = dense.shape
        rows, cols = np.nonzero(dense)
    if tuple(shape) != (n, n):
        raise ValueError("jac_sparsity must have shape (%d, %d), got %s" % (n, n, tuple(shape)))
    diagonal = np.arange(n)
    flat = np.unique(np.concatenate([np.asarray(cols, dtype=np.int64) * n + np.asarray(rows, dtype=np.int64),
                                     diagonal * (n + 1) if with_diagonal else diagonal[:0]]))
    return (flat % n).tolist(), (flat // n).tolist()


def _esdirk_address(fn):
    from ._callbacks import compiled_address
    try:
        return compiled_address(fn, "jac")
    except TypeError:
        return None


def _result(raw, nx, nz, dense_output, events, identity_seed):
    failed = raw["status"] != 0
    terminated = raw.get("terminated", False)
    status = -1 if failed else (1 if terminated else 0)
    stats = raw["statistics"]
    x, z = raw["x"], raw["z"]
    res = OdeResult(
        t=raw["t"], y=np.vstack([x, z]) if nz else x, x=x, z=z,
        sol=DenseSolution(raw["dense_t"], raw["dense_x"], raw["dense_f"])
        if dense_output and len(raw["dense_t"]) > 1 else None,
        t_events=None, y_events=None,
        nfev=stats["function_evaluations"] + stats["fd_function_evaluations"],
        njev=stats["jacobian_evaluations"], nlu=stats["lu_factorizations"],
        status=status,
        message=raw["message"] if failed else (
            "A termination event occurred." if terminated
            else "The solver successfully reached the end of the integration interval."),
        success=not failed, status_name=raw["status_name"], statistics=stats,
        method=raw["method"])
    if events is not None:
        res.t_events = [np.asarray(t) for t in raw["t_events"]]
        res.y_events = [np.asarray(y).reshape(len(y), nx + nz) for y in raw["events"]]
    if "Sx" in raw:
        S = np.concatenate([raw["Sx"], raw["Sz"]], axis=1) if nz else raw["Sx"]
        res.sensitivities = S
        if identity_seed:
            res.dy_dy0 = S[:, :, :nx]
            res.dy_dp = S[:, :, nx:]
    return res
