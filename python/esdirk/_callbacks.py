"""Compiled callbacks: C function pointers from ctypes, cffi and numba.cfunc.

Every compiled model callback of esdirk has one C signature,

    int fn(double t, const double *x, const double *z, const double *p, double *out)

returning 0 on success, > 0 for a recoverable failure (the step is retried smaller) and < 0
for a fatal one. ``out`` receives f (nx), g (nz), an event function's value (1), or a
Jacobian column-major: J[i + j*n]. The Newton-Krylov hooks of Problem have their own
(SIGNATURES; any nonzero return fails that GMRES solve and the step is retried):

    jac_vec  int fn(double t, const double *x, const double *z, const double *p,
                    const double *v, double *out)                         out = J v
    psetup   int fn(double t, const double *x, const double *z, const double *p,
                    double h_gamma, const double *J_values)               J on its pattern
    psolve   int fn(const double *r, double *out, int transpose)          out = P^-1 r

The declared signature is checked here, before the address reaches the library, so that a
function declared with other arguments is refused with a TypeError instead of crashing the
interpreter. A bare address can be passed as ``CFunction(address)``; it is taken on trust.
"""

import ctypes

SIGNATURE = "int fn(double t, const double *x, const double *z, const double *p, double *out)"

# The argument kinds of each signature: d double, p pointer to double, i int.
_KINDS = {
    "model": "dpppp",
    "jac_vec": "dppppp",
    "psetup": "dpppdp",
    "psolve": "ppi",
}
SIGNATURES = {
    "model": SIGNATURE,
    "jac_vec": "int fn(double t, const double *x, const double *z, const double *p, "
               "const double *v, double *out)",
    "psetup": "int fn(double t, const double *x, const double *z, const double *p, "
              "double h_gamma, const double *J_values)",
    "psolve": "int fn(const double *r, double *out, int transpose)",
}

_C_INTS = (ctypes.c_int,)
_DOUBLE_POINTERS = (ctypes.POINTER(ctypes.c_double),)
_CTYPES_OF = {"d": (ctypes.c_double,), "p": _DOUBLE_POINTERS, "i": _C_INTS}
_CFFI_OF = {"d": "double", "p": "double *", "i": "int"}


class CFunction:
    """A raw C function address with the signature above, taken on trust (no check)."""

    def __init__(self, address):
        address = int(address)
        if address <= 0:
            raise ValueError("CFunction: the address must be a positive integer")
        self.address = address

    def __repr__(self):
        return "esdirk.CFunction(0x%x)" % self.address


def _wrong(what, declared, kind):
    return TypeError(
        "%s: a compiled callback must have the signature %s; it is declared as %s"
        % (what, SIGNATURES[kind], declared))


def _ctypes_address(fn, what, kind):
    restype, argtypes = fn.restype, fn.argtypes
    if argtypes is None:
        raise TypeError("%s: the ctypes function has no declared argtypes; declare "
                        "fn.argtypes and fn.restype as %s" % (what, SIGNATURES[kind]))
    declared = "%s(%s)" % (getattr(restype, "__name__", restype),
                           ", ".join(getattr(a, "__name__", str(a)) for a in argtypes))
    kinds = _KINDS[kind]
    if restype not in _C_INTS or len(argtypes) != len(kinds) \
            or any(a not in _CTYPES_OF[k] for a, k in zip(argtypes, kinds)):
        raise _wrong(what, declared, kind)
    return ctypes.cast(fn, ctypes.c_void_p).value


def _cffi_address(fn, what, kind):
    import cffi
    ffi = cffi.FFI()
    tp = ffi.typeof(fn)
    if tp.kind != "pointer" or tp.item.kind != "function":
        if tp.kind != "function":
            raise TypeError("%s: the cffi object is not a function pointer (%s)" % (what, tp.cname))
    function = tp.item if tp.kind == "pointer" else tp
    args = [a.cname for a in function.args]
    if function.result.cname != "int" or args != [_CFFI_OF[k] for k in _KINDS[kind]] \
            or function.ellipsis:
        raise _wrong(what, tp.cname, kind)
    return int(ffi.cast("uintptr_t", fn))


def _numba_address(fn, what, kind):
    return _ctypes_address(fn.ctypes, what, kind)


def compiled_address(fn, what, kind="model"):
    """The address of a compiled callback with the signature SIGNATURES[kind], or None for a
    Python callable."""
    if isinstance(fn, CFunction):
        return fn.address
    if isinstance(fn, ctypes._CFuncPtr):
        return _ctypes_address(fn, what, kind)
    module = type(fn).__module__ or ""
    if module.startswith("_cffi_backend"):
        return _cffi_address(fn, what, kind)
    if module.startswith("numba") and hasattr(fn, "address") and hasattr(fn, "ctypes"):
        return _numba_address(fn, what, kind)
    if isinstance(fn, int) and not isinstance(fn, bool):
        raise TypeError("%s: a bare integer is not a callback; wrap a function address as "
                        "esdirk.CFunction(address) (signature %s)" % (what, SIGNATURES[kind]))
    return None


def numba_signature(kind="model"):
    """The numba signature of a compiled callback, for @numba.cfunc(esdirk.numba_signature());
    kind "jac_vec", "psetup" or "psolve" for the Newton-Krylov hooks."""
    from numba import types
    of = {"d": types.float64, "p": types.CPointer(types.float64), "i": types.int32}
    return types.int32(*[of[k] for k in _KINDS[kind]])


def ctypes_type(kind="model"):
    """The ctypes function type of a compiled callback (ctypes.CFUNCTYPE); kind as for
    numba_signature."""
    of = {"d": ctypes.c_double, "p": ctypes.POINTER(ctypes.c_double), "i": ctypes.c_int}
    return ctypes.CFUNCTYPE(ctypes.c_int, *[of[k] for k in _KINDS[kind]])
