"""Shared models of the Python tests: the package's own reference models (esdirk.models),
written once in the C++ examples' arithmetic."""

from esdirk.models import robertson, robertson_jac, van_der_pol  # noqa: F401
