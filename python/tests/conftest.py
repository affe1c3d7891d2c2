"""Shared models of the Python tests: the package's own reference models (esdirk.models),
written once in the C++ examples' arithmetic; and the C++ reference runs."""

import collections
import os
import subprocess

import numpy as np
import pytest

from esdirk.models import robertson, robertson_jac, van_der_pol  # noqa: F401


@pytest.fixture(scope="session")
def cpp_runs():
    """The runs of reference_runs.cpp (the C++ library on the same models), by run and name:
    arrays of the values it prints in hex (exact), "counts" as a list of ints."""
    out = subprocess.run([os.environ["ESDIRK_REFERENCE_RUNS"]], check=True, capture_output=True,
                         text=True).stdout
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in out.splitlines():
        run, name, *values = line.split()
        if name == "counts":
            runs[run][name] = [int(v) for v in values]
        else:
            runs[run][name].append(np.array([float.fromhex(v) for v in values]))
    return runs
