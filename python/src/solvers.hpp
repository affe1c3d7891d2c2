#pragma once
// The integration loop behind esdirk.solve_ivp, shared by the smooth and the event paths.

#include <string>
#include <vector>

#include "esdirk/matrix.hpp"
#include "esdirk/options.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"
#include "problem.hpp"

namespace esdirk::python {

struct SolveRequest {
  double t0 = 0.0, t_final = 0.0;
  std::vector<double> x0, z0, p;
  std::vector<double> t_eval;  ///< empty: every step
  bool dense = false;          ///< record (t, x, x') at every step end
  bool sensitivities = false;
  DenseMatrix seed;  ///< 0 x 0: the identity
  SensitivityOptions sensitivity_options;
};

struct SolveResult {
  Status status = Status::success;
  std::string message, method;
  std::vector<double> t, x, z, Sx, Sz;  ///< time-major
  int directions = 0;
  std::vector<double> dense_t, dense_x, dense_f;
  Statistics statistics;
  /// Per event function: the times and the states (x then z) at which it fired.
  std::vector<std::vector<double>> t_events;
  std::vector<std::vector<std::vector<double>>> events;
};

/// The integration without events (the GIL released by the caller).
SolveResult solve(ModelProblem& problem, const Options& options, const SolveRequest& request);
/// The result as a dict of NumPy arrays (x, z as (n, nt), Sx, Sz as (nt, n, ns)).
/// The vectorized difference evaluations of `problem` count as fd_function_evaluations.
py::dict result_dict(SolveResult& result, const ModelProblem& problem);

}  // namespace esdirk::python
