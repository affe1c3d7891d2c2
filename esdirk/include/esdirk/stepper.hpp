#pragma once
// One ESDIRK step and what belongs to it (Kristensen et al. 2005, Algorithm 1 without the
// sensitivities): the Jacobian at t_n, the factored iteration matrix, the Newton stage solves, the
// error estimate (20)-(21), acceptance, and the dense output over the last accepted step. The
// driver (Integrator) decides which steps to try, when to accept them and where to stop; the
// stepper never chooses a step size and never loops over steps.
//
// Two sets of stage buffers and two stage linear systems are kept, trial and accepted, and
// swapped at acceptance, so the last accepted step (its stages, Jacobian and LU) stays intact
// while the next step is attempted. Every workspace is sized by the constructor.

#include <memory>
#include <string>
#include <vector>

#include "esdirk/dense_output.hpp"
#include "esdirk/error_weights.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/options.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

namespace internal {
class NewtonStoppingTest;
}

class ESDIRK_API Stepper final : public DenseOutput {
 public:
  /// How one attempt ended.
  enum class Attempt { converged, newton_failed, callback_failed, singular, fatal };

  /// `options` must be validated and, with `method` (options.method resolved), outlive the
  /// stepper; counters go to `stats`.
  Stepper(Problem& problem, const Options& options, const Tableau& method, Statistics& stats);
  ~Stepper();
  Stepper(const Stepper&) = delete;
  Stepper& operator=(const Stepper&) = delete;

  /// Takes (t, x, p) and the guess z, solves g(t, x, z) = 0 for z (damped Newton), and forgets
  /// the last step. Returns success or the failure with message(); a failed start leaves the
  /// stepper exactly as it was before the call (state, last step, Jacobian), so nothing is
  /// lost.
  Status start(double t, ConstVector x, ConstVector z_guess, ConstVector p);
  /// Takes the state at the start of a recorded step as it was: t, x, z and f, g there (the
  /// step's first stage), p, and the step's index. No consistent initialization and no new
  /// evaluation: the run that recorded the step carried f = F_s of the step before, which
  /// f(t, x, z) is not to the last bit. `stage_start` (empty or nx + nz values) is where the
  /// recorded step's first implicit stage started (StepView::stage_start): under
  /// StagePredictor::dense_output the attempts before the next accepted step start there, as
  /// the recording run did from its previous step, which the stepper no longer has.
  void resume(double t, ConstVector x, ConstVector z, ConstVector f, ConstVector g, ConstVector p,
              long index, ConstVector stage_start = {});

  /// Attempts one step of size h from the current state: the Jacobian at t_n (once per step,
  /// reused by retries), the LU of M with h*gamma, the stages, the error estimate. On
  /// `converged` the trial step is in trial() and its error norm in error_norm().
  Attempt attempt(double h);
  /// The error norm (21) of the last converged attempt.
  double error_norm() const { return error_norm_; }
  /// The trial step of the last converged attempt (its end time as t_n + h).
  StepView trial() const;
  /// Accepts the trial step, ending at `t_end` (t_n + h, or exactly the stop time it was cut
  /// to): the trial buffers become the last step, the state moves to t_end.
  void accept(double t_end);

  /// Hairer & Wanner's starting step for integrating towards `direction` (+1/-1), at most
  /// `bound`.
  double initial_step_size(double direction, double bound);

  // DenseOutput over the last accepted step.
  void evaluate(double t, Vector x, Vector z = {}) override;
  double t_begin() const override { return ta_; }
  double t_end() const override { return t_; }

  // --- State --------------------------------------------------------------------------------
  double t() const { return t_; }
  ConstVector x() const { return x_; }
  ConstVector z() const { return z_; }
  ConstVector f() const { return f_; }  ///< f at (t, x, z)
  ConstVector g() const { return g_; }  ///< g at (t, x, z), zero up to the Newton tolerance
  ConstVector parameters() const { return p_; }
  bool has_step() const { return has_step_; }
  /// The last accepted step; throws std::logic_error if there is none.
  StepView last_step() const;
  long accepted_count() const { return index_; }
  const StageLinearSystem& accepted_matrix() const { return *accepted_matrix_; }
  const ErrorWeights& weights() const { return weights_; }
  JacobianEvaluator& jacobians() { return jacobians_; }
  double last_contraction() const { return last_contraction_; }
  double max_contraction() const { return max_contraction_; }
  const std::string& message() const { return message_; }
  /// FactorizationPolicy::automatic reuses J and the LU only while this is false; set by the
  /// integrator while a module that needs J at t_n of every step is attached. Turning it on
  /// drops a kept J, so the next attempt forms J at t_n, and with the Krylov back-end solves the
  /// stages to KrylovSettings::tolerance_with_derivatives.
  void set_exact_step_jacobians(bool exact);
  /// FactorizationPolicy::automatic's decision: -1 not yet made (before the first
  /// factorization), 0 J and LU every step, 1 reuse.
  int automatic_reuse() const { return automatic_reuse_; }
  /// True if the last attempt's Newton failure came from a GMRES solve that did not reach its
  /// tolerance (LinearSolverKind::krylov).
  bool linear_solver_failed() const { return linear_solver_failed_; }
  /// After Attempt::singular: what the back-end of the matrix that failed knows about it
  /// (StageLinearSystem::failure_note), or empty.
  std::string singular_note() const;

 private:
  Status fail(Status status, std::string message);
  int evaluate_model(double t, ConstVector x, ConstVector z, Vector f, Vector g);
  Status solve_consistent_z(double t, ConstVector x, Vector z);
  Attempt solve_stage(int i, double h);
  void form_stage_base(int i, double h);
  void predict_stage(int i, double h);
  void extrapolate_stage(int i, double hg);
  void keep_stage_start(const double* X, const double* Z);
  enum class Iteration { again, converged, recover, callback_failed, fatal };
  Iteration newton_iteration(int i, double T, double hg);
  double measure_iterate(const double* X, const double* F, const double* G, double hg);
  bool damp_iterate(double* X, double* Z);
  bool restart_from_previous_stage(int i, double hg);
  bool fall_back_to_extrapolation(int i, double hg);
  bool extrapolation_amplifies(int i) const { return extrapolation_amplifies_[static_cast<std::size_t>(i)] != 0; }
  void remember_best(double measure, bool recover, int i);
  void finish_stage(int i, double hg);
  Attempt refresh_jacobian(double T, double hg, double best_measure);
  void factor_dense_correction();
  void decide_automatic_reuse();
  bool reuse_allowed() const;
  double lu_reuse_h_change() const;

  Problem& problem_;
  const Options& options_;
  const Tableau& tab_;
  Statistics& stats_;
  int nx_, nz_, n_, s_;
  JacobianEvaluator jacobians_;
  ErrorWeights weights_;
  // Two LUs; trial_matrix_ and accepted_matrix_ point into them. They point to the same one
  // while a step reuses the previous step's LU (Options::reuse_jacobian with h kept); a new
  // factorization then goes into the other (matrix_for_factoring()).
  std::unique_ptr<StageLinearSystem> matrix_storage_[2];
  StageLinearSystem* trial_matrix_ = nullptr;
  StageLinearSystem* accepted_matrix_ = nullptr;
  StageLinearSystem& matrix_for_factoring();

  bool has_step_ = false;
  bool jacobian_current_ = false;  // jacobian_ belongs to (t_, x_, z_), or is reused (below)
  bool jacobian_reused_ = false;   // jacobian_ is the last step's J (Options::reuse_jacobian)
  bool exact_step_jacobians_ = false;  // set_exact_step_jacobians()
  int automatic_reuse_ = -1;           // automatic_reuse()
  bool linear_solver_failed_ = false;  // linear_solver_failed()
  long index_ = 0;                 // accepted steps since start()
  double t_ = 0.0;
  double h_trial_ = 0.0;
  double error_norm_ = 0.0;
  double max_contraction_ = 0.0;   // largest Newton rate in the current attempt
  double last_contraction_ = 0.0;
  // Options::newton_test, chosen once (internal/newton_stopping_test.hpp).
  std::unique_ptr<internal::NewtonStoppingTest> newton_test_;
  std::string message_;

  std::vector<double> x_, z_, f_, g_, p_;  // accepted state, f and g at it, parameters
  std::vector<double> wx_, wz_;            // error weights of x_n, z_n
  JacobianMatrix jacobian_, accepted_jacobian_;  // J at (t_, x_, z_); J of the last step
  DenseMatrix X_, Z_, F_, G_;              // trial stages
  DenseMatrix Xa_, Za_, Fa_, Ga_;          // the last accepted step's stages
  std::vector<double> T_, Ta_;             // stage times (trial, accepted)
  // StepView::stage_start of the trial and of the last accepted step (X then Z; valid when the
  // flag is set), and the one resume() was given for the first step after it.
  std::vector<double> stage_start_, stage_start_a_, resumed_start_;
  bool has_stage_start_ = false, has_stage_start_a_ = false, has_resumed_start_ = false;
  double ta_ = 0.0, ha_ = 0.0;             // the last step's t_n and h
  std::vector<double> base_, residual_, error_;
  DenseMatrix dgdz_;                       // dg/dz (consistent initialization)
  std::vector<int> dgdz_pivots_;
  DenseMatrix dense_dgdz_;                 // LU of the last step's dg/dz (dense output)
  std::vector<int> dense_pivots_;
  // StagePredictor::stage_extrapolation: weight of stage j in the prediction of stage i.
  DenseMatrix extrapolation_weights_;
  std::vector<char> extrapolation_amplifies_;  // per stage: sum_j |W(i, j)| > 1
  long dense_lu_index_ = -1;               // the step dense_dgdz_ belongs to (-1: none)
  bool dense_lu_singular_ = false;
  std::vector<double> weights_b_, weights_l_;  // dense-output basis at one theta
  std::vector<double> z_trial_, z_correction_;
  // Newton recovery: the best evaluated iterate of a stage (x then z) with f and g there, the
  // last iterate before a correction and that correction (for damping).
  std::vector<double> best_, best_f_, best_g_, good_, delta_;
  // The Newton iteration of the current stage (solve_stage).
  struct StageNewton {
    double previous = 0.0;  // measure of the previous iterate
    double best_measure = 0.0;  // of the best evaluated iterate
    // The best iterate's x and z are in good_ rather than best_ (copied out only when good_ is
    // about to take a worse iterate, or for a refresh): a contracting iteration copies each
    // iterate once, not twice. f and g there are kept only for a difference Jacobian's base.
    bool best_in_good = false;
    double contraction = 0.0;  // the largest rate of the stage
    double lambda = 1.0;       // damping factor of the last correction
    int dampings = 0;
    int iteration = 0;         // since the start or the last refresh
    bool restarted_from_previous_stage = false;  // the extrapolated predictor left the domain
    // The stage started from the last step's dense output (StepView::stage_start) and has not
    // yet fallen back to the stage extrapolation (fall_back_to_extrapolation).
    bool from_dense_start = false;
  } newton_;
  int refreshes_left_ = 0;  // Jacobian refreshes still allowed in this stage
  bool matrix_refreshed_ = false;  // the trial LU is that of newton_jacobian_, not of J_n
  JacobianMatrix newton_jacobian_;  // J at a stage iterate (Newton recovery)

  // The state before a start(), restored when the start fails (no allocation: sized once).
  struct SavedStart {
    double t = 0.0;
    std::vector<double> x, z, f, g, p;
    bool has_step = false, has_resumed_start = false;
    long index = 0, dense_lu_index = -1;
  } saved_;
  void save_start();
  void restore_start();
};

}  // namespace esdirk
