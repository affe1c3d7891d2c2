#pragma once
// The ESDIRK34 integrator for x' = f(t,x,z,p), 0 = g(t,x,z,p) (seed 002, Algorithm 1 without
// the sensitivities, which live in the sensitivity module).
//
//     esdirk::Integrator solver(problem, options);
//     solver.initialize(t0, x0, z0_guess, p);      // makes z consistent: g(t0, x0, z0) = 0
//     solver.integrate_to(t1, x, z);               // dense output at t1
//
// Every workspace is sized by the constructor; the step loop does not allocate.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/controller.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/options.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"
#include "esdirk/step_record.hpp"

namespace esdirk {

class Integrator {
 public:
  /// Validates the options (std::invalid_argument) and sizes every workspace. The problem
  /// must outlive the integrator.
  Integrator(Problem& problem, Options options = {});
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  /// Sets t0, x0 and p and solves g(t0, x0, z) = 0 for z by damped Newton from `z_guess`.
  /// Resets the statistics and the controller. Throws std::invalid_argument on wrong sizes or
  /// non-finite input; returns initialization_failed / singular_algebraic_jacobian /
  /// callback_* when z cannot be made consistent.
  Status initialize(double t0, ConstVector x0, ConstVector z_guess, ConstVector p);

  /// Restart after a discontinuity: new t, x, p (and z guess), consistent z again. Forgets the
  /// controller history and the last step but keeps the step-size guess and the statistics.
  Status restart(double t, ConstVector x, ConstVector z_guess, ConstVector p);

  /// Integrates to `tout` and writes the solution there (dense output) into x_out, z_out
  /// (z_out may be empty). The direction is fixed by the first call (tout < t0 integrates
  /// backwards). Throws std::invalid_argument for tout == t0 on the first call or a tout behind
  /// the last step; on failure returns the status and writes the solution at t().
  Status integrate_to(double tout, Vector x_out, Vector z_out = {});

  /// One-step mode: takes one accepted step towards `tout` (never past a stop time) and
  /// returns; the new state is x(), z() at t(). Direction as for integrate_to.
  Status step(double tout);

  /// Takes one step of exactly `h` (signed) without the error test: for order studies and for
  /// replaying a recorded step sequence (finite differences on a frozen step sequence). The
  /// first call fixes the direction like integrate_to. Newton or callback failures return
  /// their status with nothing changed.
  Status step_exactly(double h);

  /// Integration never steps past this time (discontinuities, ends of shooting intervals).
  void set_stop_time(double tstop);
  void clear_stop_time();

  /// Called after every accepted step with the step's record.
  void set_step_observer(std::function<void(const StepRecord&)> observer);

  /// Optional: an extra error norm for every trial step whose stages converged (the modules
  /// above use it to put sensitivities under error control). It receives the trial step's
  /// record while last_iteration_matrix() still holds the trial step's LU; the step is
  /// accepted only if max(r_states, r_extra) <= 1. Empty function: no extra norm.
  void set_trial_step_hook(std::function<double(const StepRecord&)> hook);

  /// Dense output over the last accepted step: x(t), z(t) for t between its ends
  /// (continuous extension of order 3). z is interpolated from the stage values and then
  /// corrected by simplified Newton on g(t, x(t), z) = 0, which costs up to two evaluations
  /// of the model (counted in function_evaluations). Throws std::domain_error outside.
  void dense_output(double t, Vector x_out, Vector z_out = {});

  // --- State --------------------------------------------------------------------------------
  double t() const { return t_; }             ///< the last accepted time
  ConstVector x() const { return x_; }        ///< x(t())
  ConstVector z() const { return z_; }        ///< z(t())
  ConstVector parameters() const { return p_; }
  double next_step() const { return h_; }     ///< the step size the next step will try
  const Statistics& statistics() const { return stats_; }
  Statistics& statistics() { return stats_; }
  const std::string& message() const { return message_; }  ///< why the last call failed
  const Options& options() const { return options_; }
  Problem& problem() const { return problem_; }
  bool initialized() const { return initialized_; }

  // --- What the modules above need -----------------------------------------------------------
  /// True once a step has been accepted since initialize()/restart().
  bool has_step() const { return has_step_; }
  /// The last accepted step (stage values and derivatives).
  StepRecord last_step() const;
  /// The Jacobian J at (t_n, x_n, z_n) of the last accepted step.
  ConstMatrixRef last_jacobian() const { return jacobian_.cref(); }
  /// The factored iteration matrix of the last accepted step (h*gamma of that step).
  const LinearSolver& last_iteration_matrix() const { return *solver_; }
  /// The Jacobian evaluator (analytic or finite differences), for the parameter Jacobian.
  JacobianEvaluator& jacobians() { return jacobians_; }
  /// f at (t(), x(), z()).
  ConstVector current_derivative() const { return f_; }
  /// g at (t(), x(), z()) (zero up to the Newton tolerance).
  ConstVector current_algebraic_residual() const { return g_; }
  /// The error norm (21) of the last attempted step.
  double last_error_norm() const { return last_error_; }
  /// Error weights 1/(atol_i + rtol_i |x_i|) at the current state (differential states).
  void error_weights(ConstVector x, Vector w) const;

 private:
  enum class Attempt { accepted, error_rejected, newton_failed, callback_failed, singular, fatal };

  void require_initialized(const char* who) const;
  void check_size(ConstVector v, int n, const char* what) const;
  Status solve_consistent_z(double t, ConstVector x, Vector z);
  int evaluate(double t, ConstVector x, ConstVector z, Vector f, Vector g);
  double initial_step_size(double tout);
  Status set_direction(double tout);
  Status take_step();
  Attempt attempt_step(double h, bool hits_stop, bool force_accept = false);
  StepRecord trial_step() const;
  Attempt solve_stage(int i, double h);
  void accept_step(double h, bool hits_stop);
  Status fail(Status status, std::string message);

  Problem& problem_;
  Options options_;
  const Tableau& tab_;
  int nx_, nz_, n_, s_;
  Statistics stats_;
  JacobianEvaluator jacobians_;
  std::unique_ptr<LinearSolver> solver_;
  StepController controller_;

  bool initialized_ = false;
  bool has_step_ = false;
  bool jacobian_current_ = false;  // J belongs to (t_, x_, z_)
  double direction_ = 0.0;         // +1 / -1 once fixed by the first output time
  double t_ = 0.0;
  double h_ = 0.0;                 // signed size of the next step
  bool have_stop_ = false;
  double t_stop_ = 0.0;
  std::string message_;
  std::function<void(const StepRecord&)> observer_;
  std::function<double(const StepRecord&)> trial_hook_;

  std::vector<double> x_, z_, f_, g_, p_;     // accepted state, f and g at it, parameters
  std::vector<double> wx_, wz_;               // weights 1/(atol + rtol|.|) of x_n, z_n
  std::vector<double> rtol_, atol_, atolz_;   // expanded tolerances
  DenseMatrix jacobian_;                      // J at (t_, x_, z_)
  DenseMatrix X_, Z_, F_, G_;                 // trial stages
  DenseMatrix Xa_, Za_, Fa_, Ga_;             // the last accepted step's stages
  std::vector<double> T_, Ta_;                // stage times (trial, accepted)
  double ta_ = 0.0, ha_ = 0.0;                // its t_n and h
  std::vector<double> base_, residual_, error_;
  DenseMatrix dgdz_;                          // dg/dz for the consistent initialization
  std::vector<int> dgdz_pivots_;
  std::vector<double> z_trial_, z_correction_;
  long steps_in_call_ = 0;
  double last_error_ = 0.0;                   // error norm of the last attempt
  double max_contraction_ = 0.0;              // largest Newton rate in the current attempt
  double last_contraction_ = 0.0;
};

}  // namespace esdirk
