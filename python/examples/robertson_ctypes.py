"""Robertson's kinetics with callbacks from a C library loaded by ctypes (robertson_model.c,
built next to this example as libesdirk_python_example_models.so).

    python3 robertson_ctypes.py [path/to/libesdirk_python_example_models.so]

Declare restype and argtypes: esdirk checks them against its callback signature and refuses
a function declared otherwise.
"""

import ctypes
import sys

from robertson_common import library_argument, run

if __name__ == "__main__":
    lib = ctypes.CDLL(library_argument("./libesdirk_python_example_models.so"))
    dp = ctypes.POINTER(ctypes.c_double)
    for fn in (lib.robertson_f, lib.robertson_jac):
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_double, dp, dp, dp, dp]
    sys.exit(run("ctypes", lib.robertson_f, lib.robertson_jac))
