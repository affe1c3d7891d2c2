"""Compiled callbacks: C function pointers from ctypes, cffi and numba.cfunc.

Every compiled callback of esdirk has one C signature,

    int fn(double t, const double *x, const double *z, const double *p, double *out)

returning 0 on success, > 0 for a recoverable failure (the step is retried smaller) and < 0
for a fatal one. ``out`` receives f (nx), g (nz), an event function's value (1), or a
Jacobian column-major: J[i + j*n]. The declared signature is checked here, before the address
reaches the library, so that a function declared with other arguments is refused with a
TypeError instead of crashing the interpreter. A bare address can be passed as
``CFunction(address)``; it is taken on trust.
"""

import ctypes

SIGNATURE = "int fn(double t, const double *x, const double *z, const double *p, double *out)"

_C_INTS = (ctypes.c_int,)
_DOUBLE_POINTERS = (ctypes.POINTER(ctypes.c_double),)


class CFunction:
    """A raw C function address with the signature above, taken on trust (no check)."""

    def __init__(self, address):
        address = int(address)
        if address <= 0:
            raise ValueError("CFunction: the address must be a positive integer")
        self.address = address

    def __repr__(self):
        return "esdirk.CFunction(0x%x)" % self.address


def _wrong(what, declared):
    return TypeError(
        "%s: a compiled callback must have the signature %s; it is declared as %s"
        % (what, SIGNATURE, declared))


def _ctypes_address(fn, what):
    restype, argtypes = fn.restype, fn.argtypes
    if argtypes is None:
        raise TypeError("%s: the ctypes function has no declared argtypes; declare "
                        "fn.argtypes and fn.restype as %s" % (what, SIGNATURE))
    declared = "%s(%s)" % (getattr(restype, "__name__", restype),
                           ", ".join(getattr(a, "__name__", str(a)) for a in argtypes))
    if restype not in _C_INTS or len(argtypes) != 5 or argtypes[0] is not ctypes.c_double \
            or any(a not in _DOUBLE_POINTERS for a in argtypes[1:]):
        raise _wrong(what, declared)
    return ctypes.cast(fn, ctypes.c_void_p).value


def _cffi_address(fn, what):
    import cffi
    ffi = cffi.FFI()
    tp = ffi.typeof(fn)
    if tp.kind != "pointer" or tp.item.kind != "function":
        if tp.kind != "function":
            raise TypeError("%s: the cffi object is not a function pointer (%s)" % (what, tp.cname))
    function = tp.item if tp.kind == "pointer" else tp
    args = [a.cname for a in function.args]
    if function.result.cname != "int" or args != ["double"] + ["double *"] * 4 or function.ellipsis:
        raise _wrong(what, tp.cname)
    return int(ffi.cast("uintptr_t", fn))


def _numba_address(fn, what):
    return _ctypes_address(fn.ctypes, what)


def compiled_address(fn, what):
    """The address of a compiled callback, or None for a Python callable."""
    if isinstance(fn, CFunction):
        return fn.address
    if isinstance(fn, ctypes._CFuncPtr):
        return _ctypes_address(fn, what)
    module = type(fn).__module__ or ""
    if module.startswith("_cffi_backend"):
        return _cffi_address(fn, what)
    if module.startswith("numba") and hasattr(fn, "address") and hasattr(fn, "ctypes"):
        return _numba_address(fn, what)
    if isinstance(fn, int) and not isinstance(fn, bool):
        raise TypeError("%s: a bare integer is not a callback; wrap a function address as "
                        "esdirk.CFunction(address) (signature %s)" % (what, SIGNATURE))
    return None


def numba_signature():
    """The numba signature of a compiled callback, for @numba.cfunc(esdirk.numba_signature())."""
    from numba import types
    dp = types.CPointer(types.float64)
    return types.int32(types.float64, dp, dp, dp, dp)


def ctypes_type():
    """The ctypes function type of a compiled callback (ctypes.CFUNCTYPE)."""
    dp = ctypes.POINTER(ctypes.c_double)
    return ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, dp, dp, dp, dp)
