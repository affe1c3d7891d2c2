#pragma once
// One shooting interval of a multiple-shooting optimal-control or estimation code (Kristensen et
// al. 2005 section 2): integrate x' = f(t,x,z,u), 0 = g(t,x,z,u) over [t_k, t_{k+1}] from x_k with
// the control u_k held constant (the problem's parameters are the controls) and return
//
//     x_{k+1} = F_k(x_k, u_k),   A_k = dx_{k+1}/dx_k,   B_k = dx_{k+1}/du_k        (eq. 6b, 9)
//     z_{k+1} (consistent) with dz_{k+1}/dx_k, dz_{k+1}/du_k
//     H_k = int h(t,x,z,u) dt,   q_k = dH_k/dx_k,   r_k = dH_k/du_k               (eq. 8, 10)
//
//     esdirk::ShootingInterval interval(problem, options);
//     interval.set_running_cost(cost);                       // optional
//     for (k...) { const auto& r = interval.integrate(t[k], t[k+1], x[k], u[k]); ... r.A ... }
//
// The step-by-step recursion A_k <- A_k A, B_k <- B_k A + B of eq. 15 is carried out by the
// forward sensitivities seeded with the identity, and the running cost by a quadrature; both
// are step listeners of one Integrator::integrate_to call, bounded by Options::max_steps. Repeated
// calls reuse every workspace and start from the last step size (warm start). Instead of adaptive
// steps an interval can take a fixed mesh (set_fixed_steps, set_mesh) or freeze the steps of one
// adaptive call for the calls after it (freeze_mesh): MeshPolicy. Objects are independent:
// intervals may run in parallel, one object per thread.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// The running cost h(t, x, z, u) of eq. 8 with its gradients. Writes the value and
/// dh/dx (nx), dh/dz (nz), dh/du (nu). Returns 0, > 0 recoverable failure, < 0 fatal.
using RunningCost = std::function<int(double t, ConstVector x, ConstVector z, ConstVector u,
                                      double& value, Vector dh_dx, Vector dh_dz, Vector dh_du)>;

/// How ShootingInterval::integrate chooses its steps (doc/multiple-shooting-guide.md, "Fixed
/// and frozen meshes").
enum class MeshPolicy {
  /// Error-controlled steps (the default): the step sequence adapts to every call's node.
  adaptive,
  /// The steps of set_fixed_steps() or set_mesh(), taken without the error test: a cost known
  /// in advance, and A, B the exact derivative of that discrete map (exact mode).
  fixed,
  /// The first call (and the first after refresh_mesh()) adapts and keeps its accepted steps;
  /// later calls reuse them as a fixed mesh, so the map stays smooth while the node moves little
  /// (between SQP iterations).
  frozen,
};

/// The outcome of one interval. Matrices are column-major.
struct ShootingResult {
  Status status = Status::success;
  std::string message;    ///< why the interval failed (empty on success)
  double t_end = 0.0;     ///< t_{k+1}
  std::vector<double> x;  ///< x_{k+1}
  std::vector<double> z;  ///< z_{k+1}, consistent: g(t_{k+1}, x_{k+1}, z_{k+1}) = 0
  DenseMatrix A;          ///< nx x nx: dx_{k+1}/dx_k (z_k consistent with x_k)
  DenseMatrix B;          ///< nx x nu: dx_{k+1}/du_k
  DenseMatrix Az;         ///< nz x nx: dz_{k+1}/dx_k
  DenseMatrix Bz;         ///< nz x nu: dz_{k+1}/du_k
  double H = 0.0;         ///< running cost over the interval (0 without a cost)
  std::vector<double> q;  ///< nx: dH/dx_k
  std::vector<double> r;  ///< nu: dH/du_k
  Statistics statistics;  ///< counters of this interval alone
  /// The largest error-test norm of the interval's steps: the states' and, when the
  /// sensitivities are under error control (the default in exact mode), A, B, Az, Bz, in the
  /// weights of the error test (SensitivityOptions::error_control). <= 1 (always so for adaptive
  /// steps) means every step met the tolerances, under which the achieved error is about rtol;
  /// well above 1 on a fixed or frozen mesh says the mesh is too coarse for rtol.
  double error_estimate = 0.0;
};

class ESDIRK_API ShootingInterval {
 public:
  /// Builds the integrator and the sensitivities for `problem` (np = nu controls), which must
  /// outlive this object. Throws std::invalid_argument for invalid options. Unless
  /// `sensitivity.error_tolerance` is set, the sensitivities' error test takes rtol as
  /// requested (SensitivityTolerance::requested): on an interval of few steps the states'
  /// calibrated tolerance would make A and B 100-10000 times more accurate than asked.
  ShootingInterval(Problem& problem, Options options = {}, SensitivityOptions sensitivity = {});
  ~ShootingInterval();
  ShootingInterval(const ShootingInterval&) = delete;
  ShootingInterval& operator=(const ShootingInterval&) = delete;

  /// The running cost; an empty function means H = q = r = 0.
  void set_running_cost(RunningCost cost);

  /// Integrates one interval from (x_k, u_k) over [t_k, t_end]. `z_guess` (size nz) starts the
  /// consistent initialization of z_k; empty: the z of the previous call (or zeros on the
  /// first). Throws std::invalid_argument for t_end <= t_k, non-finite times or wrong sizes of
  /// x_k, u_k, z_guess. A numerical failure is reported in the result's status and message;
  /// its x, A, B, ... are then not valid (result() throws until a call succeeds).
  const ShootingResult& integrate(double t_k, double t_end, ConstVector x_k, ConstVector u_k,
                                  ConstVector z_guess = {});

  /// Makes the next integrate() start afresh, as the first call does (the initial step chosen
  /// from f at t_k), instead of from the step size the previous call ended with. A caller that
  /// needs each result to depend on the call's arguments alone (an NLP solver's line search,
  /// results that must not depend on which intervals an object ran before) calls it before
  /// every integrate().
  void cold_start() { started_ = false; }

  // --- Fixed and frozen meshes (MeshPolicy) ----------------------------------------------------
  /// Fixed mesh: `steps` equal steps over whatever interval integrate() is given. Throws
  /// std::invalid_argument naming `steps` unless 1 <= steps <= Options::max_steps; the previous
  /// mesh and policy are then kept.
  void set_fixed_steps(int steps);
  /// Fixed mesh: the points 0 = s_0 < s_1 < ... < s_N measured from t_k, for intervals of length
  /// s_N (integrate() refuses another length). Throws std::invalid_argument naming the mesh
  /// when it has fewer than 2 points or more than Options::max_steps steps, a non-finite point,
  /// s_0 != 0, or a step that is zero or negative; the previous mesh and policy are then kept.
  void set_mesh(ConstVector points);
  /// Frozen mesh: the next call adapts and keeps its steps, later calls reuse them (intervals
  /// of the same length only). Keeps a mesh already frozen.
  void freeze_mesh();
  /// With a frozen mesh: the next call adapts again and freezes its new steps.
  void refresh_mesh() { have_frozen_mesh_ = false; }
  /// Back to error-controlled steps on every call (the default).
  void use_adaptive_steps() { policy_ = MeshPolicy::adaptive; }
  MeshPolicy mesh_policy() const { return policy_; }
  /// The mesh of the last successful call under a fixed or frozen policy, as points measured
  /// from its t_k (s_0 = 0, s_N = t_end - t_k): the fixed mesh, the frozen one, or the steps an
  /// adapting call froze. Empty after a call with adaptive steps (which records nothing).
  ConstVector mesh() const { return used_mesh_; }

  /// The last result; throws std::logic_error if the last call failed or there was none.
  const ShootingResult& result() const;
  /// Counters summed over every call.
  const Statistics& total_statistics() const { return total_; }
  Integrator& integrator() { return *integrator_; }

 private:
  class StepWatcher;

  ShootingResult& fail(Status status, std::string message);
  Status accumulate_cost(const StepView& step);
  bool takes_mesh() const;
  void prepare_mesh(double t_k, double t_end);
  Outcome integrate_on_mesh(double t_k, double t_end);

  int nx_, nz_, nu_;
  std::unique_ptr<Integrator> integrator_;
  std::unique_ptr<ForwardSensitivity> sensitivity_;
  std::unique_ptr<StepWatcher> watcher_;  // listener after the sensitivities
  Statistics before_;  // the integrator's counters at the start of the current call
  RunningCost cost_;
  ShootingResult result_;
  Statistics total_;
  bool started_ = false;  // the integrator has been initialized once (warm start after)
  bool valid_ = false;
  std::vector<double> z_guess_;
  std::vector<double> hx_, hz_, hu_;  // cost gradients at a stage
  DenseMatrix identity_;              // the seed over (x_k, u_k)
  // Meshes, as points measured from t_k. fixed_fraction_: set_fixed_steps (fractions of the
  // interval's length); fixed_points_: set_mesh; frozen_points_: the frozen mesh.
  MeshPolicy policy_ = MeshPolicy::adaptive;
  bool fixed_by_count_ = false;
  std::vector<double> fixed_fraction_, fixed_points_, frozen_points_;
  bool have_frozen_mesh_ = false;
  bool recording_ = false;              // this call adapts and records its steps (frozen)
  std::vector<double> recorded_;        // the steps of the adapting call
  std::vector<double> mesh_times_;      // the absolute mesh of the current call
  std::vector<double> used_mesh_;       // mesh() of the last successful call
  double interval_start_ = 0.0;
};

}  // namespace esdirk
