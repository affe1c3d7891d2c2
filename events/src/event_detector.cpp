#include "event_detector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "internal/format_number.hpp"

namespace esdirk::internal {
namespace {

int sign_of(double v) { return v > 0.0 ? 1 : (v < 0.0 ? -1 : 0); }

// A few ulps of the times involved: the default width of the final bracket.
double default_tolerance(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  const double ulp = std::nextafter(m, std::numeric_limits<double>::infinity()) - m;
  return 4.0 * std::max(ulp, std::numeric_limits<double>::denorm_min());
}

// The bisection point of [lo, hi]: the middle, unless the ends differ in magnitude by more than
// a factor 2^26 (or in sign, or one is zero), where the point halves the number of doubles in
// between rather than the width, so that a bracket from 0.3 to 1e18 (a step over states at rest)
// narrows to a few ulp of 0.3 in about 60 halvings, not the 114 that halving the width takes.
double midpoint(double lo, double hi) {
  constexpr double wide = 67108864.0;  // 2^26
  const bool narrow = lo > 0.0 ? hi <= wide * lo : (hi < 0.0 && -lo <= -wide * hi);
  if (narrow) return 0.5 * (lo + hi);
  // Doubles in order as integers: the bit pattern for >= 0, its mirror image below zero.
  auto ordinal = [](double v) {
    std::int64_t i = 0;
    std::memcpy(&i, &v, sizeof i);
    return i >= 0 ? i : std::numeric_limits<std::int64_t>::min() - i;
  };
  const std::int64_t a = ordinal(lo), b = ordinal(hi);
  std::int64_t m = (a >> 1) + (b >> 1) + (a & b & 1);
  if (m < 0) m = std::numeric_limits<std::int64_t>::min() - m;
  double t = 0.0;
  std::memcpy(&t, &m, sizeof t);
  return t;
}

}  // namespace

EventDetector::EventDetector(Integrator& integrator, ModeProblem& problem,
                             const HybridOptions& options, Statistics& counters)
    : integrator_(integrator),
      problem_(problem),
      options_(options),
      counters_(counters),
      nx_(problem.nx()),
      nz_(problem.nz()),
      ne_(problem.hybrid().event_count()) {
  const auto ne = static_cast<std::size_t>(ne_), nx = static_cast<std::size_t>(nx_),
             nz = static_cast<std::size_t>(nz_);
  reference_.assign(ne, 0);
  candidate_.assign(ne, 0);
  fired_.assign(ne, 0);
  for (auto* v : {&h_start_, &h_prev_, &h_next_, &h_a_, &h_b_, &h_t_}) v->assign(ne, 0.0);
  x_s_.assign(nx, 0.0);
  x_good_.assign(nx, 0.0);
  rate_x_.assign(nx, 0.0);
  for (auto* v : {&x0_, &f0_, &x1_, &f1_}) v->assign(nx, 0.0);
  z_s_.assign(nz, 0.0);
  z_good_.assign(nz, 0.0);
  rate_z_.assign(nz, 0.0);
}

void EventDetector::on_restart(double, RestartKind kind) {
  if (kind == RestartKind::initialize) counters_ = Statistics{};
}

void EventDetector::add_statistics(Statistics& report) const { report += counters_; }

bool EventDetector::allowed(int k, int from, int to) const {
  if (from == 0 || to == 0 || from == to) return false;
  if (options_.directions.empty()) return true;
  switch (options_.directions[static_cast<std::size_t>(k)]) {
    case EventDirection::rising: return to > 0;
    case EventDirection::falling: return to < 0;
    case EventDirection::both: return true;
  }
  return true;
}

int EventDetector::evaluate(double t, ConstVector x, ConstVector z, Vector h) {
  const ConstVector p = integrator_.parameters();
  ++counters_.event_function_evaluations;
  const int code = problem_.hybrid().events(problem_.mode, t, x, z, problem_.parameters_of(p),
                                            problem_.memory_of(p), h);
  // The callback's own codes become 1 (recoverable) and -1 (fatal), so that none of them can
  // be mistaken for the location's internal results (-2, -3) or a singular g_z (2).
  bad_component_ = -1;
  if (code != 0) return code < 0 ? -1 : 1;
  for (int k = 0; k < ne_; ++k)
    if (!std::isfinite(h[static_cast<std::size_t>(k)])) {
      bad_component_ = k;
      bad_value_ = h[static_cast<std::size_t>(k)];
      return 1;
    }
  return 0;
}

std::string EventDetector::what_failed() const {
  if (bad_component_ < 0) return "the event functions failed";
  return "event function " + std::to_string(bad_component_) + " returned " + format_number(bad_value_) +
         " (the event functions must be finite)";
}

Status EventDetector::arm(std::span<const int> references) {
  failed_ = false;
  message_.clear();
  steps_since_arm_ = 0;
  t_good_ = integrator_.t();
  std::copy(integrator_.x().begin(), integrator_.x().end(), x_good_.begin());
  std::copy(integrator_.z().begin(), integrator_.z().end(), z_good_.begin());
  if (ne_ == 0) return Status::success;
  const int code = evaluate(t_good_, x_good_, z_good_, h_start_);
  if (code != 0) {
    failed_ = true;
    message_ = what_failed() + " at t = " + format_number(t_good_);
    return code < 0 ? Status::callback_fatal : Status::callback_failures;
  }
  std::copy(references.begin(), references.end(), reference_.begin());
  return Status::success;
}

AcceptVerdict EventDetector::location_failure(double t) {
  failed_ = true;
  message_ = std::string(status_name(Status::event_location_failed)) + ": the bracket of event function " +
             std::to_string(primary_candidate()) + " ending at t = " + format_number(t) +
             " did not narrow to the location tolerance within max_location_iterations = " +
             std::to_string(options_.max_location_iterations);
  return AcceptVerdict::fail(Status::event_location_failed);
}

int EventDetector::primary_candidate() const {
  for (int k = 0; k < ne_; ++k)
    if (candidate_[static_cast<std::size_t>(k)] != 0) return k;
  return -1;
}

AcceptVerdict EventDetector::fail(int code, const std::string& what, double t) {
  failed_ = true;
  const Status status = code < 0 ? Status::callback_fatal : Status::callback_failures;
  message_ = std::string(status_name(status)) + ": " + what + " at t = " + format_number(t);
  return AcceptVerdict::fail(status);
}

// h on the full dense output (x, and z corrected onto g = 0) at t.
int EventDetector::evaluate_full(DenseOutput& dense, double t, Vector h) {
  dense.evaluate(std::min(t, dense_end_), x_s_, z_s_);
  ++counters_.event_dense_evaluations;
  return evaluate(t, x_s_, z_s_, h);
}

AcceptVerdict EventDetector::on_accept(const StepView& step, DenseOutput& dense) {
  if (ne_ == 0 || failed_) return AcceptVerdict::proceed();
  ++steps_since_arm_;
  const int s = step.stages;
  const int samples = options_.detection_samples;
  std::copy(h_start_.begin(), h_start_.end(), h_prev_.begin());
  double t_prev = step.t;
  // The dense output takes theta = (t - step.t) / step.h within 1e-12 of [0, 1]; far from t = 0
  // a short step's end time can lie an ulp beyond that (t_end is not step.t + step.h exactly),
  // so evaluations there use the last time it accepts, at most a few ulp earlier.
  dense_end_ = step.t + step.h;
  while ((dense_end_ - step.t) / step.h > 1.0) dense_end_ = std::nextafter(dense_end_, step.t);
  for (int j = 1; j <= samples + 1; ++j) {
    const bool end = j == samples + 1;
    const double theta = static_cast<double>(j) / (samples + 1);
    const double tj = end ? step.t_end : step.t + theta * step.h;
    if (end) {
      for (int i = 0; i < nx_; ++i) x_s_[static_cast<std::size_t>(i)] = step.X(i, s - 1);
      for (int i = 0; i < nz_; ++i) z_s_[static_cast<std::size_t>(i)] = step.Z(i, s - 1);
    } else {
      // Detection only: x from the dense output (no model calls), z interpolated linearly.
      dense.evaluate(std::min(tj, dense_end_), x_s_);
      ++counters_.event_dense_evaluations;
      for (int i = 0; i < nz_; ++i)
        z_s_[static_cast<std::size_t>(i)] = (1.0 - theta) * step.Z(i, 0) + theta * step.Z(i, s - 1);
    }
    const int code = evaluate(tj, x_s_, z_s_, h_next_);
    if (code != 0) return fail(code, what_failed(), tj);
    bool any = false;
    for (int k = 0; k < ne_; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      // An exact zero reached from the reference side is a crossing candidate towards the other
      // side (located at the sample, fired if the filter allows it); skipping it would lose the
      // event when the next sample is already beyond it (doc/events-theory.md, D2).
      const int to = h_next_[kk] == 0.0 ? -reference_[kk] : sign_of(h_next_[kk]);
      candidate_[kk] = 0;
      if (to == 0) continue;  // zero with an unknown reference: wait for a nonzero value
      if (reference_[kk] != 0 && to != reference_[kk] && allowed(k, reference_[kk], to)) {
        candidate_[kk] = to;
        any = true;
      }
    }
    if (any) {
      const int result = locate(dense, t_prev, tj);
      if (result == 0) {
        first_step_event_ = steps_since_arm_ == 1;
        const double dt = step.t_end - step.t;
        for (int i = 0; i < nx_; ++i)
          rate_x_[static_cast<std::size_t>(i)] = (step.X(i, s - 1) - step.X(i, 0)) / dt;
        for (int i = 0; i < nz_; ++i)
          rate_z_[static_cast<std::size_t>(i)] = (step.Z(i, s - 1) - step.Z(i, 0)) / dt;
        step_t_ = step.t;
        step_h_ = step.t_end - step.t;
        for (int i = 0; i < nx_; ++i) {
          const auto ii = static_cast<std::size_t>(i);
          x0_[ii] = step.X(i, 0);
          f0_[ii] = step.F(i, 0);
          x1_[ii] = step.X(i, s - 1);
          f1_[ii] = step.F(i, s - 1);
        }
        ++counters_.events;
        return AcceptVerdict::stop_at(t_star_);
      }
      if (result == -3) return location_failure(tj);
      if (result != -2) return fail(result, what_failed() + " while locating an event before", tj);
      // Not confirmed on the corrected dense output: no event here.
    }
    // No event up to tj: every nonzero sample is the new reference (a crossing the filter
    // ignores, the first nonzero value after an unknown start). Only now, not before the
    // location: an ignored crossing after the located t* must not count as done at t*. Exact
    // zeros keep the side they came from.
    for (int k = 0; k < ne_; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      if (h_next_[kk] != 0.0) reference_[kk] = sign_of(h_next_[kk]);
    }
    std::swap(h_prev_, h_next_);
    t_prev = tj;
  }
  // No event in this step: its end is the new start, and the last good point.
  std::copy(h_prev_.begin(), h_prev_.end(), h_start_.begin());
  t_good_ = step.t_end;
  for (int i = 0; i < nx_; ++i) x_good_[static_cast<std::size_t>(i)] = step.X(i, s - 1);
  for (int i = 0; i < nz_; ++i) z_good_[static_cast<std::size_t>(i)] = step.Z(i, s - 1);
  return AcceptVerdict::proceed();
}

void EventDetector::hermite_weights(double t, double w[4]) const {
  const double th = (t - step_t_) / step_h_, th2 = th * th, th3 = th2 * th;
  w[0] = 2.0 * th3 - 3.0 * th2 + 1.0;
  w[1] = th3 - 2.0 * th2 + th;
  w[2] = -2.0 * th3 + 3.0 * th2;
  w[3] = th3 - th2;
}

void EventDetector::hermite(double t, Vector x) const {
  double w[4];
  hermite_weights(t, w);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = w[0] * x0_[i] + w[1] * step_h_ * f0_[i] + w[2] * x1_[i] + w[3] * step_h_ * f1_[i];
}

// The earliest allowed crossing in [a, b]: locate the root of the first candidate, then, if
// another candidate has already crossed at the bracket's near end, that one crossed earlier:
// locate it on [a, near end] instead. The event's components are those whose sign at t* differs
// from their reference sign (simultaneous events fire together).
int EventDetector::locate(DenseOutput& dense, double a, double b) {
  // The ends on the corrected dense output (interior samples used interpolated z).
  const bool corrected_ends = nz_ > 0;
  if (corrected_ends) {
    if (a != dense.t_begin()) {
      const int code = evaluate_full(dense, a, h_a_);
      if (code != 0) return code;
    } else {
      std::copy(h_start_.begin(), h_start_.end(), h_a_.begin());
    }
    const int code = evaluate_full(dense, b, h_b_);
    if (code != 0) return code;
  } else {
    std::copy(h_prev_.begin(), h_prev_.end(), h_a_.begin());
    std::copy(h_next_.begin(), h_next_.end(), h_b_.begin());
  }
  int k = -1;
  for (int c = 0; c < ne_; ++c) {
    const auto cc = static_cast<std::size_t>(c);
    if (candidate_[cc] != 0 && (sign_of(h_b_[cc]) == candidate_[cc] || h_b_[cc] == 0.0)) {
      k = c;
      break;
    }
  }
  if (k < 0) return -2;
  // The near end must be on the side the component had before. After a restart at h ~ 0 it
  // can sit on the wrong side of zero by rounding while the component leaves zero towards its
  // reference side (dh/dt has that sign) and comes back within the segment (a whole arc of the
  // bouncing ball inside one long step): look for that side at a + (b - a) 2^-m, m = 1, 2, ...,
  // and bracket between the first such point and the one before it.
  const auto kk = static_cast<std::size_t>(k);
  if (sign_of(h_a_[kk]) != reference_[kk]) {
    bool found = false;
    double outer = b;
    for (int m = 1; m <= 60 && !found; ++m) {
      const double t = a + std::ldexp(b - a, -m);
      if (t == a) break;
      const int code = evaluate_full(dense, t, h_t_);
      if (code != 0) return code;
      if (sign_of(h_t_[kk]) == reference_[kk]) {
        found = true;
        if (outer != b) {
          const int code_b = evaluate_full(dense, outer, h_b_);
          if (code_b != 0) return code_b;
          b = outer;
        }
        a = t;
        std::copy(h_t_.begin(), h_t_.end(), h_a_.begin());
      } else {
        outer = t;
      }
    }
    if (!found) return -2;
  }
  iterations_ = 0;
  const double segment_start = a;
  for (int round = 0; round <= ne_; ++round) {
    const int code = bracket_root(dense, k, a, b);
    if (code != 0) return code;
    // Has another candidate crossed already at the near end a?
    int earlier = -1;
    for (int c = 0; c < ne_ && a != segment_start; ++c) {
      const auto cc = static_cast<std::size_t>(c);
      if (c != k && allowed(c, reference_[cc], sign_of(h_a_[cc]))) {
        earlier = c;
        break;
      }
    }
    if (earlier < 0) break;
    // Relocate on [segment_start, a] for that component.
    k = earlier;
    b = a;
    std::copy(h_a_.begin(), h_a_.end(), h_b_.begin());
    a = segment_start;
    const int code2 = a == dense.t_begin() ? 0 : evaluate_full(dense, a, h_a_);
    if (a == dense.t_begin()) std::copy(h_start_.begin(), h_start_.end(), h_a_.begin());
    if (code2 != 0) return code2;
  }
  t_star_ = b;
  bracket_ = std::abs(b - a);
  primary_ = k;
  for (int c = 0; c < ne_; ++c) {
    const auto cc = static_cast<std::size_t>(c);
    const int ref = reference_[cc];
    const int to = sign_of(h_b_[cc]) != 0 ? sign_of(h_b_[cc]) : -ref;  // exactly zero: reached
    fired_[cc] = (c == k || allowed(c, ref, to)) ? to : 0;
    // A crossing the filter ignored before t* (in the same sample interval): the component is
    // on its new side at t*, which is what the cascade test after the transition compares
    // with (doc/events-theory.md, D5).
    if (fired_[cc] == 0 && sign_of(h_b_[cc]) != 0) reference_[cc] = sign_of(h_b_[cc]);
  }
  return 0;
}

// Anderson-Bjorck regula falsi on component k of h along the dense output, from the bracket
// [a, b] (h_a_, h_b_ hold every component at the ends; b is on the crossed side or exactly
// zero). Safeguards that make it converge on any sign change, of any multiplicity: a trial
// point stays at least half the tolerance inside the bracket, and every third iteration is a
// bisection unless the two before halved the bracket, so the bracket halves at least every
// third iteration and reaches the tolerance (a few ulp of t) in at most about 3 x 55 iterations
// (doc/events-theory.md, D4). Returns 0, a callback code, or -3 if max_location_iterations
// ran out first (only possible with a cap below that bound).
int EventDetector::bracket_root(DenseOutput& dense, int k, double& a, double& b) {
  const auto kk = static_cast<std::size_t>(k);
  double fa = h_a_[kk], fb = h_b_[kk];
  if (fb == 0.0) {  // b is a root already (an exact zero at a sample)
    a = b;
    std::copy(h_b_.begin(), h_b_.end(), h_a_.begin());
    return 0;
  }
  int iterations = 0, since_check = 0, kept = 0;  // kept: the end that stayed last (-1 a, 1 b)
  double checked_width = std::abs(b - a);
  for (;;) {
    // A few ulp of the bracket as it is now, not as it began: a crossing early in a very long
    // step (states at rest, a trigger on time) is located to the ulps of its own time.
    const double tol = std::max(options_.location_tolerance, default_tolerance(a, b));
    if (!(std::abs(b - a) > tol)) break;
    if (iterations >= options_.max_location_iterations) return -3;
    ++iterations;
    ++iterations_;
    ++counters_.event_root_iterations;
    const double lo = std::min(a, b), hi = std::max(a, b), margin = 0.5 * tol;
    // Every third iteration checks the two before: if they did not halve the bracket, this one
    // bisects. (A secant step converges from one side, so one step rarely halves the bracket;
    // its last step, half a tolerance beyond the root, collapses it.)
    bool bisect = false;
    if (++since_check == 3) {
      since_check = 0;
      bisect = hi - lo > 0.5 * checked_width;
      checked_width = bisect ? 0.5 * (hi - lo) : hi - lo;
    }
    double t = (bisect || fa == fb) ? midpoint(lo, hi) : b - fb * (b - a) / (fb - fa);
    if (!(t > lo + margin)) t = lo + margin;
    if (!(t < hi - margin)) t = hi - margin;
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    const int code = evaluate_full(dense, t, h_t_);
    if (code != 0) return code;
    const double ft = h_t_[kk];
    if (ft == 0.0) {  // an exact root: a zero-width bracket on the crossed side
      a = b = t;
      std::copy(h_t_.begin(), h_t_.end(), h_a_.begin());
      std::copy(h_t_.begin(), h_t_.end(), h_b_.begin());
      return 0;
    }
    // The end that stays is scaled down when it stayed the time before too (Anderson-Bjorck:
    // by 1 - f_new / f_replaced, or 0.5 if that is not positive), so that the secant does not
    // stall on a convex or flat side.
    if (sign_of(ft) == sign_of(fb)) {
      const double m = 1.0 - ft / fb;
      if (kept == -1) fa *= m > 0.0 ? m : 0.5;
      kept = -1;
      b = t;
      fb = ft;
      std::copy(h_t_.begin(), h_t_.end(), h_b_.begin());
    } else {
      const double m = 1.0 - ft / fa;
      if (kept == 1) fb *= m > 0.0 ? m : 0.5;
      kept = 1;
      a = t;
      fa = ft;
      std::copy(h_t_.begin(), h_t_.end(), h_a_.begin());
    }
  }
  return 0;
}

}  // namespace esdirk::internal
