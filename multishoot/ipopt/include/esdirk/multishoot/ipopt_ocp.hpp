#pragma once
// Optimal control by multiple shooting with Ipopt (Kristensen et al. 2005 section 2, eq. 6): one
// NLP per NMPC sample over N intervals of length dt,
//
//     min  sum_k H_k(s_k, u_k) + L(s_N)
//     s.t. s_0 = x0,   F_k(s_k, u_k) - s_{k+1} = 0,   u_lo <= u_k <= u_hi,
//          x_lo <= s_k <= x_hi (k = 1..N: the state constraint at the nodes)
//
// or, with OcpSpec::soft_state_penalty = rho > 0, the state constraint softened by an exact
// L1 penalty: a slack sigma >= 0 per finite state bound and node, x_lo - sigma <= s_k and
// s_k <= x_hi + sigma, and rho * sum sigma added to the objective. For rho above the largest
// multiplier of the hard state bounds the soft NLP has the hard one's solution (all slacks
// zero) wherever the hard one is feasible; where it is not (e.g. feasible only within the
// intervals' integration error), the soft NLP still has a solution, with violations the penalty keeps small.
//
// with exact first derivatives from the shooting intervals: the constraint Jacobian has the
// blocks A_k, -I, B_k, the objective gradient q_k, r_k and dL/ds_N. The Hessian of the
// Lagrangian: the exact one needs second-order sensitivities; for a tracking cost
// (QuadraticCost) a Gauss-Newton Hessian built from A_k, B_k, otherwise Ipopt's
// limited-memory (L-BFGS) approximation. Intervals that fail
// at a trial point make the evaluation callbacks return false, which Ipopt answers by cutting
// its step (its line search backtracks) instead of stopping.
//
// Part of the optional library esdirk_multishoot_ipopt (built when Ipopt is found), not of
// libesdirk.

#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/multishoot/estimation.hpp"  // EvaluateIntervals
#include "esdirk/multishoot/interval_evaluator.hpp"

namespace esdirk::multishoot {

/// The terminal cost L(s_N) and its gradient (size nx).
using TerminalCost = std::function<double(ConstVector s_N, Vector gradient)>;

/// A tracking cost h = (x - x_ref)' Q (x - x_ref) + (u - u_ref)' R (u - u_ref) with diagonal
/// Q, R and terminal cost L = (s_N - x_ref)' P (s_N - x_ref). With it, the OCP uses a
/// Gauss-Newton Hessian instead of Ipopt's limited-memory one: for interval k,
///
///     (dt/2) ([I 0]' 2Q [I 0] + [A_k B_k]' 2Q [A_k B_k]) + dt 2R     on (s_k, u_k),
///
/// the trapezoidal rule applied to the Gauss-Newton matrix int S' 2Q S dt of H_k (S the
/// sensitivity of x(t) to (s_k, u_k), known at the interval's ends: [I 0] and [A_k B_k]),
/// plus 2P on s_N; the constraints' curvature is left out (Gauss-Newton).
struct QuadraticCost {
  std::vector<double> x_ref, u_ref;  ///< nx, nu
  std::vector<double> Q, R, P;       ///< diagonals: nx, nu, nx (>= 0)
  /// The running cost h for IntervalEvaluator::set_running_cost.
  RunningCost running_cost() const;
  /// The terminal cost L for OcpSpec::terminal.
  TerminalCost terminal_cost() const;
};

struct OcpSpec {
  int nx = 0, nz = 0, nu = 0;
  int intervals = 0;        ///< N
  double dt = 0.0;          ///< interval length
  std::vector<double> u_lower, u_upper;  ///< nu each
  std::vector<double> x_lower, x_upper;  ///< nx each (+-inf: no bound) at the nodes 1..N
  TerminalCost terminal;    ///< may be empty
  /// Set: the objective is this tracking cost (the evaluator's running cost must be
  /// quadratic_cost.running_cost(), the terminal its terminal_cost()) and the Hessian is the
  /// Gauss-Newton one above. Empty: any cost, limited-memory (L-BFGS) Hessian.
  std::optional<QuadraticCost> quadratic_cost;
  double tolerance = 1e-8;  ///< constraint violation tolerance (continuity and bounds)
  /// Ipopt's overall tol (scaled optimality error): with a limited-memory Hessian and
  /// gradients integrated to rtol, 1e-8 is out of reach; the controls converge well before.
  double optimality_tolerance = 1e-6;
  int max_iterations = 200;
  /// > 0: the node state bounds are soft, with this L1 penalty per unit of violation and
  /// node (see above; choose it above the hard problem's largest state-bound multiplier).
  /// 0: hard bounds.
  double soft_state_penalty = 0.0;
  /// Warm-start Ipopt's multipliers from the start's (when it has them); the primal start is
  /// always used.
  bool warm_start_multipliers = true;
  /// > 0: Ipopt prints its log at this level and checks the derivatives by differences
  /// (diagnostics; 0 = silent).
  int print_level = 0;
  /// Throws std::invalid_argument naming what is inconsistent.
  void validate() const;
};

/// The solution of one NLP and what it cost.
struct OcpSolution {
  bool success = false;
  std::string status;            ///< Ipopt's return status, as text
  std::string message;           ///< details on failure (e.g. the last failing interval)
  std::vector<double> s;         ///< (N + 1) * nx node states
  std::vector<double> u;         ///< N * nu controls
  std::vector<double> z_guess;   ///< N * nz: z at the interval starts (next guesses)
  /// Soft state bounds only: the slacks, per node k = 1..N the finite bounds in the order
  /// state 0 lower, state 0 upper, state 1 lower, ... (infinite bounds have none); empty for
  /// hard bounds. A start without them (or of another size) starts the slacks at the start's
  /// bound violation.
  std::vector<double> slack;
  double max_slack = 0.0;        ///< the largest slack (0 for hard bounds)
  /// The largest multiplier of a node state bound at the solution (hard bounds: of the
  /// variable bound; soft: of the softened constraint, at most the penalty). Soft bounds are
  /// exact when the penalty exceeds this value of the hard problem.
  double max_state_bound_multiplier = 0.0;
  double objective = 0.0;
  /// max |continuity| and bound violation at the solution (soft state bounds: the violation
  /// of x_lo - sigma <= s_k <= x_hi + sigma; the slacks themselves are in max_slack)
  double constraint_violation = 0.0;
  int iterations = 0;
  int evaluations = 0;           ///< interval batches evaluated
  int failed_evaluations = 0;    ///< batches with a failing interval (Ipopt backtracked)
  double integration_seconds = 0.0;  ///< wall time in the interval evaluator
  double assembly_seconds = 0.0;     ///< filling gradients and Jacobian values
  double solver_seconds = 0.0;       ///< the rest of Ipopt's time
  // Multipliers for a warm start of the next sample.
  std::vector<double> bound_lower_multipliers, bound_upper_multipliers, constraint_multipliers;
};

/// Solves the OCP from x0 (size nx) at time t0. `start` gives the initial guess (s, u, z
/// guesses and, when its multiplier vectors are filled, a warm start of Ipopt's multipliers);
/// shift_for_warm_start() makes one from the previous sample's solution. Throws
/// std::invalid_argument for inconsistent sizes.
OcpSolution solve_ocp(const OcpSpec& spec, double t0, ConstVector x0, const OcpSolution& start,
                      const EvaluateIntervals& evaluate);

/// The previous solution moved one interval forward (the last interval repeated), with its
/// multipliers: the warm start of the next NMPC sample.
OcpSolution shift_for_warm_start(const OcpSpec& spec, const OcpSolution& previous);

}  // namespace esdirk::multishoot
