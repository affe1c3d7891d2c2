"""Robertson's kinetics with callbacks from a C library opened by cffi (ABI mode; the same
library as robertson_ctypes.py).

    python3 robertson_cffi.py [path/to/libesdirk_python_example_models.so]
"""

import sys

import cffi

from robertson_common import library_argument, run

if __name__ == "__main__":
    ffi = cffi.FFI()
    ffi.cdef("int robertson_f(double, double *, double *, double *, double *);"
             "int robertson_jac(double, double *, double *, double *, double *);")
    lib = ffi.dlopen(library_argument("./libesdirk_python_example_models.so"))
    sys.exit(run("cffi", lib.robertson_f, lib.robertson_jac))
