#pragma once
// Internal: the step listener that finds events. After every accepted step it samples the event
// functions at the step's end and at `detection_samples` interior points of the dense output,
// compares each component's sign with the sign it had before (its reference sign), and locates
// the earliest allowed sign change with a bracketing root finder (Anderson-Bjorck with a
// bisection safeguard) on the dense output,
// then asks the integrator to stop there (AcceptVerdict::stop_at). doc/events-guide.md.

#include <span>
#include <string>
#include <vector>

#include "esdirk/events/hybrid_options.hpp"
#include "esdirk/integrator.hpp"
#include "mode_problem.hpp"

namespace esdirk::internal {

class EventDetector final : public StepListener {
 public:
  EventDetector(Integrator& integrator, ModeProblem& problem, const HybridOptions& options,
                Statistics& counters);

  /// Sets the reference signs at the integrator's current point (after initialize or a
  /// restart): the sign each component had there (+1, -1, or 0: unknown, taken from the first
  /// nonzero value later without an event). The hybrid solver chooses them (the sign of h+, or
  /// of dh/dt where h+ is zero to rounding: doc/events-theory.md, D1). Returns the callback's
  /// status (success, callback_failures, callback_fatal) with message().
  Status arm(std::span<const int> references);
  /// h at the integrator's current point, as evaluated by the last arm().
  ConstVector armed_values() const { return h_start_; }
  /// The reference signs the detector compares with (+1, -1, 0 unknown): after an event, the
  /// sides the components were on before it (the hybrid solver's cascade test).
  std::span<const int> references() const { return reference_; }
  /// Whether the direction filter of component k allows a change from sign `from` to `to`.
  bool allowed(int k, int from, int to) const;

  /// Evaluates h of the current mode at one point (counted), checking finiteness: 0, 1 (the
  /// callback's recoverable failure or a non-finite value) or -1 (its fatal failure).
  int evaluate(double t, ConstVector x, ConstVector z, Vector h);
  /// What made the last evaluate() fail: "event function k returned nan" or "the event
  /// functions failed".
  std::string what_failed() const;

  // What the last located event was (valid after the integrator returned listener_stop).
  double event_time() const { return t_star_; }
  double bracket() const { return bracket_; }
  int iterations() const { return iterations_; }
  int primary() const { return primary_; }
  std::span<const int> fired() const { return fired_; }
  /// True if the event was found in the first step after arm().
  bool in_first_step() const { return first_step_event_; }
  /// The mean rates of x and z over the step that held the event (for the grazing scale).
  ConstVector mean_rate_x() const { return rate_x_; }
  ConstVector mean_rate_z() const { return rate_z_; }

  /// The cubic Hermite interpolant of the step that held the event, from x and x' = f at its
  /// two ends (the stages X_1, F_1, X_s, F_s): O(h^4) accurate like the step itself, where the
  /// method's own dense output is O(h^3). The hybrid solver refines t* and the left limit on it.
  void hermite(double t, Vector x) const;
  /// The Hermite weights at t: x(t) = w0 x_n + w1 h F_1 + w2 x_{n+1} + w3 h F_s.
  void hermite_weights(double t, double w[4]) const;
  double step_begin() const { return step_t_; }
  double step_end() const { return step_t_ + step_h_; }
  double step_size() const { return step_h_; }

  /// The last point where every event function was evaluated without failure (for failures
  /// of the event functions: the state kept).
  double good_time() const { return t_good_; }
  ConstVector good_x() const { return x_good_; }
  ConstVector good_z() const { return z_good_; }
  bool failed() const { return failed_; }
  const std::string& message() const { return message_; }

  // StepListener
  AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) override;
  void on_restart(double t, RestartKind kind) override;
  void add_statistics(Statistics& report) const override;
  std::string failure_message() const override { return message_; }

 private:
  AcceptVerdict fail(int code, const std::string& what, double t);
  int evaluate_full(DenseOutput& dense, double t, Vector h);
  // Locates the earliest allowed crossing in [a, b] (values ha, hb of all components, with the
  // candidates marked in candidate_). Returns 0 and sets t_star_ etc., -2 if no bracket was
  // confirmed, -3 if the root finder ran out of iterations, or a callback code.
  int locate(DenseOutput& dense, double a, double b);
  int bracket_root(DenseOutput& dense, int k, double& a, double& b);
  AcceptVerdict location_failure(double t);
  int primary_candidate() const;

  Integrator& integrator_;
  ModeProblem& problem_;
  const HybridOptions& options_;
  Statistics& counters_;
  int nx_, nz_, ne_;
  std::vector<int> reference_;  // the sign each component had before (+1, -1, 0 unknown)
  std::vector<int> candidate_;  // per component: the new sign of an allowed crossing, else 0
  std::vector<double> h_start_, h_prev_, h_next_, h_a_, h_b_, h_t_;
  std::vector<double> x_s_, z_s_;
  std::vector<double> x_good_, z_good_, rate_x_, rate_z_;
  std::vector<double> x0_, f0_, x1_, f1_;  // the event's step: ends and their derivatives
  double step_t_ = 0.0, step_h_ = 0.0;
  double dense_end_ = 0.0;  // the last time the dense output of the current step accepts
  double t_good_ = 0.0;
  double t_star_ = 0.0, bracket_ = 0.0;
  int iterations_ = 0, primary_ = -1;
  std::vector<int> fired_;
  long steps_since_arm_ = 0;
  bool first_step_event_ = false;
  bool failed_ = false;
  int bad_component_ = -1;  // the first non-finite component of the last evaluate(), or -1
  double bad_value_ = 0.0;
  std::string message_;
};

}  // namespace esdirk::internal
