#pragma once
// Parameter estimation by multiple shooting (Kristensen et al. 2005 section 2 applied to least
// squares): several experiments, each a chain of intervals over its measurement times t_0 < ... <
// t_M, with the node states s_k and the parameters theta (the problem's parameters, shared by all
// intervals) as unknowns:
//
//     min  1/2 sum_{e,k,i} ((s^e_k[m_i] - y^e_{k,i}) / sigma^e_{k,i})^2
//     s.t. s^e_{k+1} = F_k(s^e_k, theta)          (continuity, exact at the solution)
//
// solved by the equality-constrained Gauss-Newton method of Bock (condensing): each iteration
// linearizes the continuity constraints with A_k, B_k, eliminates the node steps by the
// recursion ds_{k+1} = A_k ds_k + B_k dtheta + c_k, and solves the remaining least-squares
// problem in (dtheta, ds_0) by an SVD (LAPACK dgesvd) that leaves directions with no
// information (singular values below rcond * the largest) at zero: the minimum-norm step,
// which keeps non-identifiable parameter combinations where they start. A backtracking line
// search on the l1 merit 1/2 |r|^2 + mu |c|_1 globalizes it; a trial point at which an
// interval fails counts as a failed trial (the step is halved), not as an error.
//
// Why not Ceres: Ceres minimizes a sum of squares without equality constraints. Continuity as
// heavily weighted residuals leaves defects of order 1/weight and bends the covariance;
// eliminating the node states by chaining the intervals is single shooting (the initial value
// problem's instability returns). The condensed Gauss-Newton step above is exact for the
// linearized constraints, and its reduced Jacobian is also what the confidence intervals need.
// The decision is recorded in doc/multiple-shooting-guide.md.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"

namespace esdirk::multishoot {

/// Evaluates all intervals of one NLP iteration (an IntervalEvaluator, or the MPI driver on
/// the solver rank). Returns true if every interval succeeded.
using EvaluateIntervals = std::function<bool(const IntervalInputs&, IntervalOutputs&)>;

/// One batch experiment: measurements of the states `measured` (EstimationProblem) at the
/// node times.
struct Experiment {
  std::vector<double> times;     ///< M + 1 increasing times t_0 .. t_M (M >= 1)
  std::vector<double> data;      ///< (M + 1) * ny: row k (ny values) measured at times[k]
  std::vector<double> sigma;     ///< (M + 1) * ny standard deviations, >= min_sigma (1e-150)
  std::vector<double> nodes;     ///< (M + 1) * nx initial guesses of the node states s_k
  std::vector<double> z_guess;   ///< M * nz: guesses of the algebraic states at t_0 .. t_{M-1}
  bool initial_state_known = true;  ///< s_0 = nodes[0..nx) is fixed (a batch recipe); else estimated
};

struct ESDIRK_API EstimationProblem {
  int nx = 0, nz = 0, np = 0;
  std::vector<int> measured;  ///< indices (into x) of the measured states, ny = size
  std::vector<Experiment> experiments;
  /// Total number of intervals (sum of M over the experiments).
  int intervals() const;
  /// Throws std::invalid_argument naming the experiment and what is inconsistent (sizes,
  /// non-increasing times, sigma < min_sigma, non-finite data).
  void validate() const;
};

struct GaussNewtonOptions {
  int max_iterations = 60;
  double step_tolerance = 1e-10;    ///< converged when max |dtheta|, max |ds|/scale are below this...
  double defect_tolerance = 1e-10;  ///< ...and every defect is below this times the state scale
  /// Also converged when no step decreases the merit while the full step and the defects are
  /// below this: the iteration has reached the accuracy of the integration.
  double stall_tolerance = 1e-6;
  double rcond = 1e-8;              ///< relative singular-value cutoff of the reduced Jacobian
  int max_backtracks = 30;          ///< halvings per iteration before giving up
  /// Largest change of any parameter per iteration (a trust bound: in log-scaled parameters
  /// 1.0 is a factor e); the Gauss-Newton step is shortened to it before the line search.
  double max_parameter_step = 1.0;
  /// Initial Levenberg-Marquardt damping, relative to the largest singular value squared of
  /// the reduced Jacobian; multiplied by 10 on a rejected trial, divided by 10 after every
  /// accepted one, 0 once below 1e-12 (pure Gauss-Newton near the solution).
  double initial_damping = 1e-4;
  /// The damping grows at most to this; beyond it a rejected trial halves the step instead
  /// (the node steps that remove the defects are not damped by it).
  double max_damping = 1.0;
  double confidence_z = 1.959963984540054;  ///< 95 % two-sided normal quantile
  /// Throws std::invalid_argument naming the rules (inline: a plain aggregate).
  void validate() const {
    if (max_iterations < 1 || !(step_tolerance > 0.0) || !(defect_tolerance > 0.0) ||
        !(rcond > 0.0 && rcond < 1.0) || max_backtracks < 1 || !(confidence_z > 0.0) ||
        !(max_parameter_step > 0.0) || !(initial_damping >= 0.0))
      throw std::invalid_argument(
          "GaussNewtonOptions: need max_iterations >= 1, tolerances > 0, 0 < rcond < 1, "
          "max_backtracks >= 1, confidence_z > 0, max_parameter_step > 0, initial_damping >= 0");
  }
};

/// One accepted Gauss-Newton iteration.
struct IterationRecord {
  int iteration = 0;
  double cost = 0.0;         ///< 1/2 |r|^2 at the accepted point
  double max_defect = 0.0;   ///< largest |c_k| / scale over all nodes
  double step = 0.0;         ///< max |alpha dtheta|
  double alpha = 1.0;        ///< step length taken
  int backtracks = 0;        ///< rejected trial points (failed intervals included)
  double damping = 0.0;      ///< Levenberg-Marquardt damping after the iteration
  int failed_trials = 0;     ///< trial points at which an interval failed
  long steps = 0;            ///< integration steps of the iteration (all trials)
  double integration_seconds = 0.0;  ///< wall time of the interval evaluations
  double assembly_seconds = 0.0;     ///< condensing: reduced Jacobian and residual
  double solver_seconds = 0.0;       ///< SVD, step expansion, merit and line-search logic
};

struct EstimationResult {
  bool converged = false;
  std::string message;                ///< why it stopped
  std::vector<double> theta;          ///< estimated parameters
  std::vector<double> nodes;          ///< all node states, experiment by experiment
  std::vector<double> node_z;         ///< consistent algebraic states at the interval starts
  double cost = 0.0;                  ///< 1/2 |r|^2
  int residuals = 0;                  ///< number of residuals m
  int rank = 0;                       ///< rank of the reduced Jacobian (rcond cutoff)
  double residual_variance = 0.0;     ///< s^2 = |r|^2 / (m - rank)
  std::vector<double> singular_values;
  std::vector<double> theta_stddev;   ///< standard deviations (s^2 (J^T J)^+), per parameter
  std::vector<double> theta_lower, theta_upper;  ///< confidence interval of theta
  std::vector<bool> identifiable;     ///< false: the parameter lies in a direction without information
  std::vector<double> covariance;     ///< np x np (column-major) over theta
  std::vector<IterationRecord> history;
  IntervalOutputs final_outputs;      ///< the intervals at the solution (for plots)
};

/// Solves the problem from theta0 and the experiments' node guesses. Throws
/// std::invalid_argument for inconsistent input (validate()) and std::runtime_error if the
/// intervals fail at the initial guess (an infeasible start: the message names the interval
/// and why). A failure later is a result with converged = false and a message.
ESDIRK_API EstimationResult estimate(const EstimationProblem& problem,
                                     const std::vector<double>& theta0,
                                     const EvaluateIntervals& evaluate,
                                     const GaussNewtonOptions& options = {});

}  // namespace esdirk::multishoot
