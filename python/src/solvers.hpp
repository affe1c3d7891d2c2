#pragma once
// The integration loop behind esdirk.solve_ivp, shared by the smooth and the event paths.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "esdirk/integrator.hpp"
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

/// What solve_ivp keeps of a run, on either path (with and without events): output rows (t,
/// x, z and, with sensitivities, Sx, Sz) and the points of the dense output (t, x, x').
class Recorder {
 public:
  Recorder(SolveResult& result, int nx, int nz) : r_(result), nx_(nx), nz_(nz) {}
  /// The number of sensitivity directions of the output rows (0: none).
  void set_directions(int ns) { r_.directions = ns; }
  /// One output row; sx (nx x ns) and sz (nz x ns) are read only when ns > 0.
  void output(double t, ConstVector x, ConstVector z, ConstMatrixRef sx, ConstMatrixRef sz);
  void dense_point(double t, ConstVector x, ConstVector f);
  /// Records every step end from here on: a dense-output point if `dense`, an output row if
  /// `every_step` (t_eval = None; the sensitivities at the step end from `sensitivities`).
  void observe_steps(Integrator& integrator, bool every_step, bool dense,
                     std::function<std::pair<ConstMatrixRef, ConstMatrixRef>()> sensitivities);
  /// Drops what was recorded beyond t (the steps after a terminal event).
  void trim_after(double t);

 private:
  SolveResult& r_;
  int nx_, nz_;
};

/// The integration without events (the GIL released by the caller).
SolveResult solve(ModelProblem& problem, const Options& options, const SolveRequest& request);
/// The result as a dict of NumPy arrays (x, z as (n, nt), Sx, Sz as (nt, n, ns)).
/// The vectorized difference evaluations of `problem` count as fd_function_evaluations.
py::dict result_dict(SolveResult& result, const ModelProblem& problem);

}  // namespace esdirk::python
