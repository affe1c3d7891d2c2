#pragma once
// SimulationOptions::max_seconds: a step listener that ends a run once its wall-clock time is
// spent, so that a hostile model (events ever closer, steps ever shorter) stops with a status
// and a message instead of running on. Looked at after every accepted step (a clock read).

#include <chrono>
#include <sstream>
#include <string>

#include "esdirk/step_listener.hpp"

namespace esdirk::sbml::detail {

class TimeLimit final : public StepListener {
 public:
  /// seconds <= 0: no limit. The clock starts now.
  explicit TimeLimit(double seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}

  bool expired() const {
    return seconds_ > 0.0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > seconds_;
  }
  /// The status a run that ran out of time ends with: the work limit's (as max_steps).
  static constexpr Status status = Status::too_many_steps;
  std::string message(double t) const {
    std::ostringstream text;
    text << "the time limit SimulationOptions::max_seconds = " << seconds_ << " s was reached at t = " << t;
    return text.str();
  }

  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    if (!expired()) return AcceptVerdict::proceed();
    message_ = message(step.t_end);
    return AcceptVerdict::fail(status);
  }
  std::string failure_message() const override { return message_; }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point start_;
  std::string message_;
};

}  // namespace esdirk::sbml::detail
