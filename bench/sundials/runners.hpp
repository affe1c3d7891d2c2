#pragma once
// The solvers of the comparison behind one interface: esdirk (Integrator, ForwardSensitivity,
// ShootingInterval) and SUNDIALS 6 (IDAS, CVODES, ARKODE's ARKStep with DIRK tables). Every
// SUNDIALS residual, right-hand side and Jacobian calls the same esdirk::Problem as esdirk
// itself, so all solvers integrate identical equations.

#include <memory>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"

namespace bench {

/// One sensitivity direction: d/d x0_i (initial state) or the scaled parameter direction
/// p_k d/dp_k. Results are the columns of S = d(x, z)/d(direction), (nx + nz) x ns.
struct Direction {
  bool parameter = false;
  int index = 0;
};

/// One integration task: the problem, the interval, tolerances and sensitivity directions.
struct Task {
  esdirk::Problem* problem = nullptr;
  double t0 = 0.0, t_end = 0.0;
  std::vector<double> x0, z_guess, p;
  double rtol = 1e-6;
  std::vector<double> atol;  ///< size nx + nz: x, then z (z: Newton/algebraic tolerances)
  std::vector<Direction> directions;  ///< empty: states only
};

/// The cost counters every solver reports.
struct Counters {
  long steps = 0;      ///< accepted steps
  long fevals = 0;     ///< residual or right-hand-side calls, including difference quotients
  long jacobians = 0;  ///< Jacobian evaluations (analytic or by differences)
  long lus = 0;        ///< LU factorizations of the iteration matrix
  long sens_evals = 0; ///< sensitivity residual evaluations (IDAS resS) / parameter Jacobians
  long recoverable = 0;  ///< recoverable residual failures (IDAS)
  Counters& operator+=(const Counters& o) {
    steps += o.steps; fevals += o.fevals; jacobians += o.jacobians; lus += o.lus;
    sens_evals += o.sens_evals; recoverable += o.recoverable;
    return *this;
  }
};

struct Outcome {
  bool ok = false;
  std::string message;
  std::vector<double> y;  ///< x then z at t_end
  std::vector<double> S;  ///< (nx + nz) x ns, column-major (empty without directions)
  Counters counters;
};

// --- esdirk ------------------------------------------------------------------------------------
esdirk::Options esdirk_options(const Task& task);
Counters counters_of_statistics(const esdirk::Statistics& statistics);
Outcome run_esdirk(const Task& task, const esdirk::Options& options,
                   const esdirk::SensitivityOptions& sensitivity = {});

// --- SUNDIALS ----------------------------------------------------------------------------------
struct IdasSettings {
  bool analytic_jacobian = true;       ///< IDASetJacFn; false: IDAS's internal difference quotients
  bool analytic_sensitivities = true;  ///< user resS; false: IDAS's difference quotients (centered)
  bool staggered = false;              ///< IDA_STAGGERED instead of IDA_SIMULTANEOUS
  bool sensitivity_error_control = true;  ///< IDASetSensErrCon
  bool suppress_algebraic = true;      ///< IDASetSuppressAlg (esdirk's error test is on x only)
  int max_order = 5;
  int max_conv_fails = 10;             ///< IDASetMaxConvFails (IDAS default 10)
  int max_error_test_fails = 10;       ///< IDASetMaxErrTestFails (IDAS default 10)
  double initial_step = 0.0;           ///< IDASetInitStep; 0: IDAS's own choice
  long max_steps = 1000000;
  bool forward_dq = false;             ///< IDASetSensDQMethod: forward instead of centered
  double sensitivity_atol_factor = 0.0;  ///< > 0: IDASensSVtolerances(rtol, factor * atol)
  double dq_rhomax = 0.0;              ///< IDASetSensDQMethod: 0 = perturb y and p together
};

/// A reusable IDAS solver: integrate() re-initializes (IDAReInit, IDASensReInit, IDACalcIC)
/// for every interval, as a multiple-shooting code does. Counters accumulate.
class IdasSolver {
 public:
  IdasSolver(esdirk::Problem& problem, std::vector<double> p, double rtol, std::vector<double> atol,
             std::vector<Direction> directions, IdasSettings settings);
  ~IdasSolver();
  IdasSolver(const IdasSolver&) = delete;
  IdasSolver& operator=(const IdasSolver&) = delete;
  /// Integrates from (t0, x0) with z made consistent from z_guess; the result's counters are
  /// those of this interval.
  Outcome integrate(double t0, double t_end, const std::vector<double>& x0,
                    const std::vector<double>& z_guess);
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

Outcome run_idas(const Task& task, const IdasSettings& settings);
/// CVODES, BDF with a dense linear solver and the analytic Jacobian (ODEs only).
Outcome run_cvodes(const Task& task);
/// ARKODE ARKStep, fully implicit with the given DIRK table, dense linear solver, analytic
/// Jacobian (ODEs only). table: "ARK324L2SA_DIRK_4_2_3" or "KVAERNO_5_3_4".
Outcome run_arkode(const Task& task, const std::string& table);

}  // namespace bench
