#!/usr/bin/env bash
# Installs the Debian packages esdirk needs to build, test and plot, if they are missing.
# Needs root (or sudo) only when something is missing.
#   ESDIRK_WITH_SUNDIALS=1  also SUNDIALS (the benchmark's peer comparisons)
#   ESDIRK_WITH_CLANG=1     also clang with its sanitizer and libFuzzer runtimes (CI stages)
#   ESDIRK_WITH_CCACHE=1    also ccache (scripts/test.sh compiles through it)
set -euo pipefail

packages=(cmake make g++ gfortran pkg-config libopenblas-dev libsuitesparse-dev libboost-test-dev
          python3 python3-matplotlib valgrind)
# The optional multiple-shooting components (multishoot/ipopt, multishoot/mpi) and their
# solvers: built when found, always in CI (scripts/test.sh sets ESDIRK_REQUIRE_SOLVERS). Ceres is
# not used: the estimation needs equality constraints (doc/multiple-shooting-guide.md).
packages+=(coinor-libipopt-dev libopenmpi-dev openmpi-bin)
# SBML import (sbml/, doc/sbml.md): libSBML with its CMake package; built when found, always in CI.
packages+=(libsbml5-dev)
# The Python package (python/, doc/python-guide.md): pybind11 and NumPy for the build, pytest,
# SciPy (the accuracy comparisons and bench/python), numba and cffi (the compiled-callback routes).
packages+=(python3-dev python3-numpy python3-pybind11 pybind11-dev python3-pytest python3-scipy
           python3-numba python3-cffi)
if [[ "${ESDIRK_WITH_SUNDIALS:-0}" == 1 ]]; then
  packages+=(libsundials-dev)
fi
if [[ "${ESDIRK_WITH_CLANG:-0}" == 1 ]]; then
  packages+=(clang libclang-rt-14-dev)
fi
if [[ "${ESDIRK_WITH_CCACHE:-0}" == 1 ]]; then
  packages+=(ccache)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
