#include "esdirk/events/hybrid_adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adjoint_sweep.hpp"
#include "esdirk/dense_basis.hpp"
#include "event_jumps.hpp"
#include "internal/recorded_run.hpp"
#include "internal/format_number.hpp"
#include "mode_problem.hpp"

namespace esdirk {
namespace {

using internal::format_number;

std::size_t size(int n) { return static_cast<std::size_t>(n); }

Status callback_status(int code) {
  if (code == 2) return Status::singular_algebraic_jacobian;
  return code < 0 ? Status::callback_fatal : Status::callback_failures;
}

}  // namespace

// --- Objective ----------------------------------------------------------------------------------

void HybridObjective::set_terminal_weights(ConstMatrixRef weights) {
  rows = weights.cols;
  terminal = internal::terminal_weights(weights, "HybridObjective");
}

void HybridObjective::validate() const {
  if (rows < 1) throw std::invalid_argument("HybridObjective: rows must be >= 1");
  if (!terminal && !at_output) throw std::invalid_argument("HybridObjective: no term (terminal or at_output)");
}

// --- What the recording keeps -------------------------------------------------------------------

// One mode between two events: its parameters [p; x*; z*] and where it starts.
struct HybridAdjoint::Segment {
  int mode = 0;
  std::vector<double> pe, x, z;  // parameters of the mode; the state at its start (consistent)
  double t = 0.0;  // its steps are the recorded run's segment of the same number
};

// The event that starts a segment (the data the forward jump used).
struct HybridAdjoint::Transition {
  double t = 0.0;
  int time_event = -1, primary = -1;
  std::vector<int> fired;
  std::vector<double> x_minus, z_minus;
  bool jumps = true, moving = true;  // the forward's sensitivity_jumps and moving event time
  int cascade = 0;  // EventRecord::cascade: its time moves as the first event's of its cascade
};

struct HybridAdjoint::Output {
  enum class Kind { dense, step_end, segment_start, event_left_limit, terminal_event };
  Kind kind = Kind::dense;
  double t = 0.0;
  int segment = 0, step = -1, primary = -1;
  bool cascade = false;  // a terminal event that is a cascaded one (its time moves with the first's)
  std::vector<double> x, z;
};

// --- Recording ----------------------------------------------------------------------------------

HybridAdjoint::HybridAdjoint(HybridSolver& solver, HybridAdjointOptions options)
    : solver_(solver), options_(options), run_(std::make_unique<internal::RecordedRun>()) {
  // The Krylov back-end too: the sweep's transposed stage solves are GMRES on M^T (doc/adjoint-theory.md,
  // "Krylov"); the event jumps factor only g_z, never M.
  solver_.integrator().require_step_jacobians("HybridAdjoint", true);
  options_.validate();
  // Records not kept are recomputed on a second view of the hybrid problem with the Jacobian
  // structure of the forward run (one declared on the hybrid problem after the run must not
  // reach the replay), made when first needed; each block in its segment's mode and with the
  // segment's parameters [p; x*; z*].
  auto replay_problem = std::make_shared<std::unique_ptr<internal::ModeProblem>>();
  run_->set_budget(
      options_.memory_budget, solver_.integrator(), "HybridAdjoint",
      [this, replay_problem]() -> Problem& {
        if (!*replay_problem) {
          const auto& forward = static_cast<const internal::ModeProblem&>(solver_.integrator().problem());
          *replay_problem = std::make_unique<internal::ModeProblem>(forward.hybrid(), forward.jacobian_structure());
        }
        return **replay_problem;
      },
      [this, replay_problem](int segment) {
        const Segment& seg = segments_[size(segment)];
        (*replay_problem)->mode = seg.mode;
        return ConstVector(seg.pe);
      });
  run_->clear();
  solver_.integrator().add_listener(*this);
}

HybridAdjoint::~HybridAdjoint() { solver_.integrator().remove_listener(*this); }

int HybridAdjoint::first_step(int segment) const { return run_->segment_first(segment); }
int HybridAdjoint::end_step(int segment) const { return run_->segment_end(segment); }

int HybridAdjoint::outputs() const { return static_cast<int>(outputs_.size()); }
double HybridAdjoint::output_time(int k) const { return outputs_.at(size(k)).t; }
int HybridAdjoint::segments() const { return static_cast<int>(segments_.size()); }
int HybridAdjoint::steps() const { return run_->size(); }

void HybridAdjoint::on_restart(double t, RestartKind kind) {
  Integrator& integrator = solver_.integrator();
  if (kind == RestartKind::initialize) {
    run_->clear();  // records stay allocated for the next run
    segments_.clear();
    transitions_.clear();
    outputs_.clear();
    recording_ = true;
    failed_ = false;
    report_ = HybridAdjointReport{};  // initialize() resets every counter, the listeners' too
  } else if (recording_) {
    // A transition: the solver's record holds the cause and the left limit already.
    const EventRecord& e = solver_.last_event();
    Transition tr;
    tr.t = e.t;
    tr.time_event = e.time_event;
    tr.primary = e.primary;
    tr.fired = e.fired;
    tr.x_minus = e.x_minus;
    tr.z_minus = e.z_minus;
    tr.jumps = solver_.options().sensitivity_jumps;
    tr.cascade = e.cascade;
    // A cascaded event happens when the event before it (the first of its cascade) does.
    tr.moving = e.cascade > 0 ? !transitions_.empty() && transitions_.back().moving
                              : e.time_event < 0 && !e.initial && solver_.options().event_time_sensitivity;
    transitions_.push_back(std::move(tr));
    run_->start_segment();
  }
  if (!recording_) return;
  Segment s;
  s.mode = static_cast<const internal::ModeProblem&>(integrator.problem()).mode;
  s.pe.assign(integrator.parameters().begin(), integrator.parameters().end());
  s.x.assign(integrator.x().begin(), integrator.x().end());
  s.z.assign(integrator.z().begin(), integrator.z().end());
  s.t = t;
  segments_.push_back(std::move(s));
}

void HybridAdjoint::add_statistics(Statistics& report) const {
  report.adjoint_steps += report_.sweep.adjoint_steps;
  report.adjoint_transposed_solves += report_.sweep.transposed_solves;
  report.adjoint_factorizations += report_.sweep.stage_factorizations;
  report.adjoint_jacobian_evaluations += report_.sweep.jacobian_evaluations;
  report.checkpoints += report_.checkpoints;
  report.adjoint_recomputed_steps += report_.recomputed_steps;
}

AcceptVerdict HybridAdjoint::on_accept(const StepView& step, DenseOutput&) {
  if (recording_) run_->add(step);
  return AcceptVerdict::proceed();
}

Outcome HybridAdjoint::integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
  const long events_before = solver_.event_count();
  const Outcome o = solver_.integrate_to(tout, x, z, Sx, Sz);
  if (!ok(o)) {
    failed_ = true;
    return o;
  }
  if (!recording_) return o;
  Output out;
  out.t = o.t;
  out.segment = static_cast<int>(segments_.size()) - 1;
  const int first = first_step(out.segment), end = end_step(out.segment);
  if (o.reason == StopReason::listener_stop) {
    out.kind = Output::Kind::terminal_event;
    out.primary = solver_.pending_event_component();
    out.cascade = solver_.pending_event_is_cascade();
    out.step = end - 1;
    out.x.assign(solver_.x().begin(), solver_.x().end());
    out.z.assign(solver_.z().begin(), solver_.z().end());
  } else if (solver_.event_count() > events_before && solver_.last_event().t == o.t) {
    // An event at tout: integrate_to returned its left limit (the segment before it; with a
    // cascade, before the first event of the cascade).
    out.kind = Output::Kind::event_left_limit;
    out.segment = static_cast<int>(segments_.size()) - 2 - solver_.last_event().cascade;
    out.x = transitions_[size(out.segment)].x_minus;
    out.z = transitions_[size(out.segment)].z_minus;
  } else {
    out.x.assign(solver_.x().begin(), solver_.x().end());
    out.z.assign(solver_.z().begin(), solver_.z().end());
    if (end == first) {
      out.kind = Output::Kind::segment_start;
    } else {
      out.step = end - 1;
      out.kind = o.t == run_->step_end(out.step) ? Output::Kind::step_end : Output::Kind::dense;
    }
  }
  outputs_.push_back(std::move(out));
  return o;
}

// --- The backward sweep -------------------------------------------------------------------------

// Sweeps the segments last first with the smooth adjoint's sweep; between two segments, the
// transpose of the event's jump (doc/adjoint-theory.md, "Events", H1-H7).
class HybridAdjoint::Backward {
 public:
  Backward(HybridAdjoint& owner, const HybridObjective& objective)
      : owner_(owner),
        objective_(objective),
        problem_(static_cast<internal::ModeProblem&>(owner.solver_.integrator().problem()).hybrid(),
                 owner.solver_.integrator().problem().jacobian_structure()),  // the forward run's
        jumps_(problem_, counters_),
        sweep_(problem_, owner.solver_.integrator().method(), owner.solver_.integrator().jacobians(),
               objective.rows, owner.report_.sweep),
        nx_(problem_.nx()),
        nz_(problem_.nz()),
        np_(problem_.hybrid().np()),
        npe_(problem_.np()),
        m_(objective.rows),
        s_(owner.solver_.integrator().method().stages) {
    a_sx_.resize(nx_, m_);
    a_sz_.resize(std::max(nz_, 1), m_);
    a_pe_.resize(std::max(npe_, 1), m_);
    a_dx_.resize(nx_, m_);
    gx_.resize(nx_, m_);
    gz_.resize(std::max(nz_, 1), m_);
    gp_.resize(std::max(np_, 1), m_);
    tmp_x_.resize(nx_, m_);
    tmp_pe_.resize(std::max(npe_, 1), m_);
    carry_z_.resize(std::max(nz_, 1), m_);
    a_tau_.assign(size(m_), 0.0);
    carry_tau_.assign(size(m_), 0.0);
    row_.assign(size(jumps_.columns()), 0.0);
    reset_jacobian_.resize(nx_, jumps_.columns());
    parameter_reset_jacobian_.resize(np_, jumps_.columns());
    f_minus_.assign(size(nx_), 0.0);
    f_plus_.assign(size(nx_), 0.0);
    zdot_minus_.assign(size(nz_), 0.0);
    g_.assign(size(nz_), 0.0);
    weights_.assign(size(s_), 0.0);
  }

  Status run(MatrixRef dx0, MatrixRef dp);
  const std::string& message() const { return message_; }

  // The visitor of RecordedRun::sweep_backwards: a segment's mode and parameters, a step (with
  // the outputs at or inside it), a segment's start (the event that began it).
  Status enter(int j) {
    enter(owner_.segments_[size(j)]);
    return Status::success;
  }
  Status step(int j, int n, const StepRecord& r);
  Status leave(int j, bool swept_steps);

 private:
  MatrixRef sz_ref() { return {a_sz_.data(), nz_, m_, a_sz_.rows()}; }
  MatrixRef pe_ref() { return {a_pe_.data(), npe_, m_, a_pe_.rows()}; }
  void enter(const Segment& seg) {
    problem_.mode = seg.mode;
    sweep_.set_parameters(seg.pe);
  }
  Status fail(Status status, std::string what) {
    message_ = std::move(what);
    return status;
  }
  Status callback_failure(int code, const std::string& what, double t) {
    return fail(callback_status(code), what + (code == 2 ? " (g_z singular)" : " failed or was not finite") +
                                           " at t = " + format_number(t) + " (hybrid adjoint)");
  }
  Status sweep_failure(int code) {
    if (sweep_.linear_solver_failed()) return fail(Status::linear_solver_failures, sweep_.message());
    return fail(code < 0 ? Status::callback_fatal : Status::callback_failures, sweep_.message());
  }
  Status replay_failure() { return fail(owner_.run_->replay_status(), owner_.run_->replay_message()); }

  int objective_gradient(int k);
  Status add_output(int k);
  Status transpose_event(int j);
  Status add_left_limit_outputs(int segment);
  Status transpose_terminal_event(const Output& out);
  Status event_time_data(const Segment& before, int primary, double t, ConstVector x, ConstVector z, double& dh);
  void transpose_event_time(double dh);
  Status seed_left_limit(int segment, double t, ConstVector x, ConstVector z, bool at_step_end);

  HybridAdjoint& owner_;
  const HybridObjective& objective_;
  internal::ModeProblem problem_;  // this sweep's own view of the hybrid problem (mode set per segment)
  Statistics counters_;
  internal::EventJumps jumps_;
  internal::AdjointSweep sweep_;
  int nx_, nz_, np_, npe_, m_, s_;
  // The adjoint of an event's left limit: of s- (a_sx), w- (a_sz), the segment's parameter
  // directions [P; M] (a_pe) and tau (a_tau); a_dx that of the total derivative dX+ (J3).
  DenseMatrix a_sx_, a_sz_, a_pe_, a_dx_, gx_, gz_, gp_, tmp_x_, tmp_pe_, carry_z_;
  bool carry_valid_ = false;  // printed_recurrence: the z*-adjoint A carried to the next event
  std::vector<double> a_tau_, row_, f_minus_, f_plus_, zdot_minus_, g_, weights_;
  // The adjoint of the event time carried from the cascaded events to the first event of their
  // cascade, whose tau they share (doc/events-theory.md, D5).
  std::vector<double> carry_tau_;
  DenseMatrix reset_jacobian_, parameter_reset_jacobian_;
  std::string message_;
};

// The gradient of the objective's terms at output k (at_output, plus terminal at the last
// output) into gx_, gz_, gp_. Returns 0 or a code with message_.
int HybridAdjoint::Backward::objective_gradient(int k) {
  const Output& out = owner_.outputs_[size(k)];
  const ConstVector p(owner_.segments_[size(out.segment)].pe.data(), size(np_));
  const MatrixRef dz{gz_.data(), nz_, m_, gz_.rows()}, dp{gp_.data(), np_, m_, gp_.rows()};
  gx_.fill(0.0);
  gz_.fill(0.0);
  gp_.fill(0.0);
  int code = 0;
  if (objective_.at_output) {
    ++owner_.report_.sweep.objective_evaluations;
    code = objective_.at_output(k, out.t, out.x, out.z, p, gx_.ref(), dz, dp);
  }
  if (code == 0 && objective_.terminal && k + 1 == static_cast<int>(owner_.outputs_.size())) {
    // Into zeroed buffers of its own (each callback may assign rather than add).
    DenseMatrix tx(nx_, m_), tz(std::max(nz_, 1), m_), tp(std::max(np_, 1), m_);
    ++owner_.report_.sweep.objective_evaluations;
    code = objective_.terminal(out.t, out.x, out.z, p, tx.ref(), {tz.data(), nz_, m_, tz.rows()},
                               {tp.data(), np_, m_, tp.rows()});
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) gx_(i, c) += tx(i, c);
      for (int i = 0; i < nz_; ++i) gz_(i, c) += tz(i, c);
      for (int i = 0; i < np_; ++i) gp_(i, c) += tp(i, c);
    }
  }
  bool finite = true;
  for (int c = 0; c < m_; ++c) {
    for (int i = 0; i < nx_; ++i) finite = finite && std::isfinite(gx_(i, c));
    for (int i = 0; i < nz_; ++i) finite = finite && std::isfinite(gz_(i, c));
    for (int i = 0; i < np_; ++i) finite = finite && std::isfinite(gp_(i, c));
  }
  if (code != 0 || !finite) {
    message_ = "the objective's gradient " +
               std::string(code < 0 ? "returned a fatal code" : code > 0 ? "failed" : "is not finite") +
               " at output " + std::to_string(k) + " (t = " + format_number(out.t) + ")";
    return code < 0 ? code : 1;
  }
  return 0;
}

// An output inside a segment (H6): at a step end or the segment's start the adjoint of the
// state itself; inside a step the transpose of the dense output Sx = Sx_n + h sum_i b_i(theta)
// SF_i and of the consistent Sz there.
Status HybridAdjoint::Backward::add_output(int k) {
  const int code = objective_gradient(k);
  if (code != 0) return fail(code < 0 ? Status::callback_fatal : Status::callback_failures, message_);
  const Output& out = owner_.outputs_[size(k)];
  const Segment& seg = owner_.segments_[size(out.segment)];
  MatrixRef lambda = sweep_.lambda(), mu = sweep_.mu_ref();
  for (int c = 0; c < m_; ++c)
    for (int i = 0; i < np_; ++i) mu(i, c) += gp_(i, c);
  if (out.kind != Output::Kind::dense) {
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) lambda(i, c) += gx_(i, c);
      for (int i = 0; i < nz_; ++i) lambda(nx_ + i, c) += gz_(i, c);
    }
    return Status::success;
  }
  const StepRecord* rp = owner_.run_->record(out.step);
  if (!rp) return replay_failure();
  const StepRecord& r = *rp;
  const double theta = step_fraction(out.t, r.t, r.h, r.t_end);
  for (int c = 0; c < m_; ++c)
    for (int i = 0; i < nx_; ++i) tmp_x_(i, c) = gx_(i, c);
  if (nz_ > 0) {
    if (theta >= 1.0 - 1e-12) {  // the forward takes the last stage's Sz there
      for (int c = 0; c < m_; ++c)
        for (int i = 0; i < nz_; ++i) lambda(nx_ + i, c) += gz_(i, c);
    } else {
      const int jc = jumps_.algebraic_adjoint(out.t, out.x, out.z, seg.pe, {gz_.data(), nz_, m_, gz_.rows()},
                                              tmp_x_.ref(), mu);
      if (jc != 0) return callback_failure(jc, "the algebraic sensitivities of an output", out.t);
    }
  }
  dense_weights(owner_.solver_.integrator().method(), theta, weights_);
  for (double& w : weights_) w *= r.h;
  sweep_.seed_interpolant(1.0, weights_, 0.0, tmp_x_.cref());
  return Status::success;
}

// f-, z'- (J0), the event gradient row and D_h (J1) at the left limit of an event in `before`.
Status HybridAdjoint::Backward::event_time_data(const Segment& before, int primary, double t, ConstVector x,
                                                ConstVector z, double& dh) {
  problem_.mode = before.mode;
  int code = jumps_.rates(t, x, z, before.pe, f_minus_, zdot_minus_);
  if (code == 0) code = jumps_.event_gradient(primary, t, x, z, before.pe, row_);
  if (code != 0) return callback_failure(code, "the model or the event gradient", t);
  dh = row_[0];
  double scale = std::abs(row_[0]);
  for (int i = 0; i < nx_; ++i) {
    dh += row_[size(1 + i)] * f_minus_[size(i)];
    scale += std::abs(row_[size(1 + i)] * f_minus_[size(i)]);
  }
  for (int i = 0; i < nz_; ++i) {
    dh += row_[size(1 + nx_ + i)] * zdot_minus_[size(i)];
    scale += std::abs(row_[size(1 + nx_ + i)] * zdot_minus_[size(i)]);
  }
  if (!(std::abs(dh) > owner_.solver_.options().grazing_tolerance * scale))
    return fail(Status::event_grazing, "event function " + std::to_string(primary) + " has dh/dt = " +
                                           format_number(dh) + " at t = " + format_number(t) +
                                           " (grazing): the event-time sensitivity is not defined (hybrid adjoint)");
  return Status::success;
}

// The transpose of tau = -(h_x s- + h_z w- + h_pe [P; M]) / D_h (J2, H2): a_tau enters the
// adjoints of s-, w- and the parameter directions.
void HybridAdjoint::Backward::transpose_event_time(double dh) {
  for (int c = 0; c < m_; ++c) {
    const double v = a_tau_[size(c)] / dh;
    for (int i = 0; i < nx_; ++i) a_sx_(i, c) -= row_[size(1 + i)] * v;
    for (int i = 0; i < nz_; ++i) a_sz_(i, c) -= row_[size(1 + nx_ + i)] * v;
    for (int i = 0; i < npe_; ++i) a_pe_(i, c) -= row_[size(1 + nx_ + nz_ + i)] * v;
  }
}

// Starts the sweep of `segment` from the adjoint (a_sx, a_sz, a_pe) of its end point, the left
// limit of the event that ends it (H1): at a step end (time event) the adjoint of the last
// stage; at a located state event the transpose of w- = -g_z^{-1}(g_x s- + g_pe [P; M]) and of
// the cubic Hermite interpolant the left limit and s- were taken from (events-theory J8).
Status HybridAdjoint::Backward::seed_left_limit(int segment, double t, ConstVector x, ConstVector z,
                                                bool at_step_end) {
  const Segment& seg = owner_.segments_[size(segment)];
  enter(seg);
  sweep_.start();
  const int end = owner_.end_step(segment);
  const bool hermite = !at_step_end && end > owner_.first_step(segment);
  const bool printed = owner_.options_.memory_transfer == MemoryTransfer::printed_recurrence &&
                       problem_.hybrid().has_memory() && nz_ > 0 && hermite;
  const int mx = np_, mz = np_ + nx_;  // rows of x* and z* in the parameters [p; x*; z*]
  if (printed) {
    // Erratum E8: the x*-adjoint of the earlier memory as A phi_{y*} at this event (A carried
    // from the later event), in place of the B = (J + A) phi_{y*} carried from the later one.
    if (carry_valid_) {
      tmp_x_.fill(0.0);
      tmp_pe_.fill(0.0);
      const int code = jumps_.algebraic_adjoint(t, x, z, seg.pe, {carry_z_.data(), nz_, m_, carry_z_.rows()},
                                                tmp_x_.ref(), {tmp_pe_.data(), npe_, m_, tmp_pe_.rows()});
      if (code != 0) return callback_failure(code, "the algebraic sensitivities at the event", t);
      for (int c = 0; c < m_; ++c)
        for (int i = 0; i < nx_; ++i) a_sx_(i, c) += tmp_pe_(mx + i, c);
    }
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) tmp_x_(i, c) = a_pe_(mx + i, c);
      for (int i = 0; i < nz_; ++i) carry_z_(i, c) = a_pe_(mz + i, c);
    }
  }
  if (hermite) {
    if (nz_ > 0) {
      const int code = jumps_.algebraic_adjoint(t, x, z, seg.pe, sz_ref(), a_sx_.ref(), pe_ref());
      if (code != 0) return callback_failure(code, "the algebraic sensitivities at the event", t);
    }
    if (printed) {
      for (int c = 0; c < m_; ++c) {
        for (int i = 0; i < nx_; ++i) a_pe_(mx + i, c) = tmp_x_(i, c);  // B dropped
        for (int i = 0; i < nz_; ++i) {
          const double before = carry_z_(i, c);
          carry_z_(i, c) = a_pe_(mz + i, c) - before;  // A = (J + A) phi_{z*}, carried on
        }
      }
      carry_valid_ = true;
    }
    const StepRecord* rp = owner_.run_->record(end - 1);
    if (!rp) return replay_failure();
    const StepRecord& r = *rp;
    const double hh = r.t_end - r.t, th = (t - r.t) / hh, th2 = th * th, th3 = th2 * th;
    std::fill(weights_.begin(), weights_.end(), 0.0);
    weights_[0] = (th3 - 2.0 * th2 + th) * hh;
    weights_[size(s_ - 1)] = (th3 - th2) * hh;
    sweep_.seed_interpolant(2.0 * th3 - 3.0 * th2 + 1.0, weights_, -2.0 * th3 + 3.0 * th2, a_sx_.cref());
  } else {
    MatrixRef lambda = sweep_.lambda();
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) lambda(i, c) += a_sx_(i, c);
      for (int i = 0; i < nz_; ++i) lambda(nx_ + i, c) += a_sz_(i, c);
    }
  }
  MatrixRef mu = sweep_.mu_ref();
  for (int c = 0; c < m_; ++c)
    for (int i = 0; i < npe_; ++i) mu(i, c) = a_pe_(i, c);
  return Status::success;
}

// The last output at a terminal event: the gradient of C(x(t*)) along the moving event time,
// C_x (s- + f- tau) + C_z (w- + z'- tau) + C_p P (Schäfer 2021's implicit event that ends the
// integration, H5).
Status HybridAdjoint::Backward::transpose_terminal_event(const Output& out) {
  const int code = objective_gradient(static_cast<int>(owner_.outputs_.size()) - 1);
  if (code != 0) return fail(code < 0 ? Status::callback_fatal : Status::callback_failures, message_);
  const Segment& seg = owner_.segments_[size(out.segment)];
  a_sx_.fill(0.0);
  a_sz_.fill(0.0);
  a_pe_.fill(0.0);
  for (int c = 0; c < m_; ++c) {
    for (int i = 0; i < nx_; ++i) a_sx_(i, c) = gx_(i, c);
    for (int i = 0; i < nz_; ++i) a_sz_(i, c) = gz_(i, c);
    for (int i = 0; i < np_; ++i) a_pe_(i, c) = gp_(i, c);
  }
  // A cascaded terminal event's time is the first event's of its cascade: moving if that one's
  // is, and its adjoint goes to that event's tau (D5).
  const bool moving = out.cascade ? !owner_.transitions_.empty() && owner_.transitions_.back().moving
                                  : owner_.solver_.options().event_time_sensitivity;
  if (moving && owner_.options_.jumps) {
    double dh = 0.0;
    if (out.cascade) {
      problem_.mode = seg.mode;
      const int code = jumps_.rates(out.t, out.x, out.z, seg.pe, f_minus_, zdot_minus_);
      if (code != 0) return callback_failure(code, "the model at the terminal event", out.t);
    } else {
      const Status status = event_time_data(seg, out.primary, out.t, out.x, out.z, dh);
      if (!ok(status)) return status;
    }
    for (int c = 0; c < m_; ++c) {
      double v = 0.0;
      for (int i = 0; i < nx_; ++i) v += gx_(i, c) * f_minus_[size(i)];
      for (int i = 0; i < nz_; ++i) v += gz_(i, c) * zdot_minus_[size(i)];
      a_tau_[size(c)] = v;
    }
    if (out.cascade)
      carry_tau_ = a_tau_;
    else
      transpose_event_time(dh);
  }
  return seed_left_limit(out.segment, out.t, out.x, out.z, false);
}

// The transpose of the jump at event j (between segments j-1 and j), H1-H4: from the adjoint
// of s+ (lambda_x after segment j's consistent start) and of [P; M+] (mu) to the adjoints of
// s-, w-, tau and [P; M-], then into segment j-1.
Status HybridAdjoint::Backward::transpose_event(int j) {
  const Transition& tr = owner_.transitions_[size(j - 1)];
  const Segment& before = owner_.segments_[size(j - 1)];
  const Segment& after = owner_.segments_[size(j)];
  const ConstMatrixRef lam = sweep_.lambda_x(), mu = sweep_.mu();
  const int nm = npe_ - np_;
  a_sx_.fill(0.0);
  a_sz_.fill(0.0);
  a_pe_.fill(0.0);
  if (!(tr.jumps && owner_.options_.jumps)) {
    // No jump: s+ = s-, the parameter directions (memory rows included) unchanged.
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) a_sx_(i, c) = lam(i, c);
      for (int i = 0; i < npe_; ++i) a_pe_(i, c) = mu(i, c);
    }
  } else {
    ++owner_.report_.jumps;
    double dh = 0.0;
    if (tr.moving) {
      if (tr.cascade > 0) {  // no crossing of its own: only the rates at its left limit
        problem_.mode = before.mode;
        const int code = jumps_.rates(tr.t, tr.x_minus, tr.z_minus, before.pe, f_minus_, zdot_minus_);
        if (code != 0) return callback_failure(code, "the model at the left limit of a cascaded event", tr.t);
      } else {
        const Status status = event_time_data(before, tr.primary, tr.t, tr.x_minus, tr.z_minus, dh);
        if (!ok(status)) return status;
      }
      problem_.mode = after.mode;  // f+ in the new mode at the restart point (J4)
      const int code = problem_.evaluate(tr.t, after.x, after.z, after.pe, f_plus_, g_);
      if (code != 0) return callback_failure(code, "the model after the event", tr.t);
    }
    problem_.mode = before.mode;
    const TransitionCause cause{tr.fired, tr.time_event};
    int code = jumps_.reset_jacobian(cause, tr.t, tr.x_minus, tr.z_minus, before.pe, reset_jacobian_.ref());
    if (code != 0) return callback_failure(code, "the reset Jacobian", tr.t);
    const bool resets_p = problem_.hybrid().has_parameter_reset();
    if (resets_p) {
      code = jumps_.parameter_reset_jacobian(cause, tr.t, tr.x_minus, tr.z_minus, before.pe,
                                             parameter_reset_jacobian_.ref());
      if (code != 0) return callback_failure(code, "the parameter reset's Jacobian", tr.t);
    }
    // s+ = dX+ - f+ tau and M+ = [dX+; w- + z'- tau] (J4, J6): the adjoint of dX+; the
    // adjoint of P+ is mu's parameter rows, P+ = P- without a parameter reset, dP+ with (J3p).
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) a_dx_(i, c) = lam(i, c) + (nm > 0 ? mu(np_ + i, c) : 0.0);
      for (int i = 0; i < np_ && !resets_p; ++i) a_pe_(i, c) = mu(i, c);
    }
    // dX+ = D v and dP+ = E v with v = [tau; s- + f- tau; w- + z'- tau; [P; M-]] (J3, J3p):
    // row r of D (or E) with adjoint a adds a D(r, .) to the adjoints of v's parts.
    for (int c = 0; c < m_; ++c) {
      double tau = 0.0;
      for (int r = 0; r < nx_ + (resets_p ? np_ : 0); ++r) {
        const double a = r < nx_ ? a_dx_(r, c) : mu(r - nx_, c);
        if (a == 0.0) continue;
        const DenseMatrix& D = r < nx_ ? reset_jacobian_ : parameter_reset_jacobian_;
        const int row = r < nx_ ? r : r - nx_;
        double rate = D(row, 0);
        for (int i = 0; i < nx_; ++i) {
          a_sx_(i, c) += D(row, 1 + i) * a;
          rate += D(row, 1 + i) * f_minus_[size(i)];
        }
        for (int i = 0; i < nz_; ++i) {
          a_sz_(i, c) += D(row, 1 + nx_ + i) * a;
          rate += D(row, 1 + nx_ + i) * zdot_minus_[size(i)];
        }
        for (int i = 0; i < npe_; ++i) a_pe_(i, c) += D(row, 1 + nx_ + nz_ + i) * a;
        tau += rate * a;
      }
      if (nm > 0)
        for (int i = 0; i < nz_; ++i) {
          const double a = mu(np_ + nx_ + i, c);
          a_sz_(i, c) += a;
          tau += zdot_minus_[size(i)] * a;
        }
      for (int i = 0; i < nx_; ++i) tau -= f_plus_[size(i)] * lam(i, c);
      // Plus what the cascaded events after it at the same instant carried back (D5).
      a_tau_[size(c)] = tr.moving ? tau + carry_tau_[size(c)] : 0.0;
    }
    if (tr.moving && tr.cascade > 0) {
      carry_tau_ = a_tau_;  // to the event before: the first of the cascade transposes tau
    } else {
      std::fill(carry_tau_.begin(), carry_tau_.end(), 0.0);
      if (tr.moving) transpose_event_time(dh);
    }
  }
  const Status status = add_left_limit_outputs(j - 1);
  if (!ok(status)) return status;
  return seed_left_limit(j - 1, tr.t, tr.x_minus, tr.z_minus, tr.time_event >= 0);
}

// The outputs at the left limit of the event that ends `segment`, at fixed t (no tau), added to
// the adjoints of s-, w- and P.
Status HybridAdjoint::Backward::add_left_limit_outputs(int segment) {
  for (int k = 0; k < static_cast<int>(owner_.outputs_.size()); ++k) {
    const Output& out = owner_.outputs_[size(k)];
    // A terminal event the run went on from counts as an event at an output time.
    const bool left_limit = out.kind == Output::Kind::event_left_limit ||
                            (out.kind == Output::Kind::terminal_event && k + 1 < static_cast<int>(owner_.outputs_.size()));
    if (!left_limit || out.segment != segment) continue;
    const int code = objective_gradient(k);
    if (code != 0) return fail(code < 0 ? Status::callback_fatal : Status::callback_failures, message_);
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) a_sx_(i, c) += gx_(i, c);
      for (int i = 0; i < nz_; ++i) a_sz_(i, c) += gz_(i, c);
      for (int i = 0; i < np_; ++i) a_pe_(i, c) += gp_(i, c);
    }
  }
  return Status::success;
}

Status HybridAdjoint::Backward::run(MatrixRef dx0, MatrixRef dp) {
  const auto& outputs = owner_.outputs_;
  const Output& last = outputs.back();
  const int last_index = static_cast<int>(outputs.size()) - 1;
  sweep_.start();
  // Where the sweep starts: the last output's segment, from its step (later steps do not enter).
  const int J = last.segment;
  int step_limit = owner_.end_step(J);
  if (last.kind == Output::Kind::terminal_event) {
    const Status status = transpose_terminal_event(last);
    if (!ok(status)) return status;
  } else if (last.kind == Output::Kind::event_left_limit) {
    const Transition& tr = owner_.transitions_[size(J)];
    const int code = objective_gradient(last_index);
    if (code != 0) return fail(code < 0 ? Status::callback_fatal : Status::callback_failures, message_);
    a_sx_.fill(0.0);
    a_sz_.fill(0.0);
    a_pe_.fill(0.0);
    for (int c = 0; c < m_; ++c) {
      for (int i = 0; i < nx_; ++i) a_sx_(i, c) = gx_(i, c);
      for (int i = 0; i < nz_; ++i) a_sz_(i, c) = gz_(i, c);
      for (int i = 0; i < np_; ++i) a_pe_(i, c) = gp_(i, c);
    }
    const Status status = seed_left_limit(J, tr.t, tr.x_minus, tr.z_minus, tr.time_event >= 0);
    if (!ok(status)) return status;
  } else {
    enter(owner_.segments_[size(J)]);
    step_limit = last.kind == Output::Kind::segment_start ? owner_.first_step(J) : last.step + 1;
  }
  // The recorded run's reverse driver calls enter, step and leave below.
  const Status status = owner_.run_->sweep_backwards(J, step_limit, *this);
  if (!ok(status)) return ok(owner_.run_->replay_status()) ? status : replay_failure();
  const ConstMatrixRef lambda_x = sweep_.lambda_x(), mu = sweep_.mu();
  for (int c = 0; c < m_; ++c) {
    for (int i = 0; i < nx_; ++i) dx0(i, c) = lambda_x(i, c);
    for (int i = 0; i < np_ && dp.rows > 0; ++i) dp(i, c) = mu(i, c);
  }
  return Status::success;
}

// Step n of segment j backwards: first the outputs at its end or inside it (last first).
Status HybridAdjoint::Backward::step(int j, int n, const StepRecord& r) {
  const auto& outputs = owner_.outputs_;
  for (int k = static_cast<int>(outputs.size()) - 1; k >= 0; --k) {
    const Output& out = outputs[size(k)];
    if (out.segment != j || out.step != n) continue;
    if (out.kind != Output::Kind::dense && out.kind != Output::Kind::step_end) continue;
    const Status status = add_output(k);
    if (!ok(status)) return status;
  }
  const int code = sweep_.step(r, nullptr);
  if (code != 0) return sweep_failure(code);
  return Status::success;
}

// The start of segment j: its outputs there, the consistent start, then the transpose of the
// event that started it (the segment-boundary hook of the reverse driver).
Status HybridAdjoint::Backward::leave(int j, bool swept_steps) {
  const auto& outputs = owner_.outputs_;
  const Segment& seg = owner_.segments_[size(j)];
  for (int k = static_cast<int>(outputs.size()) - 1; k >= 0; --k) {
    const Output& out = outputs[size(k)];
    if (out.segment != j || out.kind != Output::Kind::segment_start) continue;
    const Status status = add_output(k);
    if (!ok(status)) return status;
  }
  const int code = swept_steps ? sweep_.consistent_start() : sweep_.consistent_start(&seg.t, seg.x, seg.z);
  if (code != 0) return fail(Status::singular_algebraic_jacobian, sweep_.message());
  if (j == 0) return Status::success;
  return transpose_event(j);
}

// --- gradient -----------------------------------------------------------------------------------

Status HybridAdjoint::gradient(const HybridObjective& objective, MatrixRef dx0, MatrixRef dp) {
  objective.validate();
  if (failed_)
    throw std::logic_error("HybridAdjoint::gradient: the last integrate_to failed (" + solver_.message() +
                           "); the recorded run is incomplete (initialize and integrate again)");
  if (!recording_ || outputs_.empty())
    throw std::logic_error("HybridAdjoint::gradient: no recorded output (initialize the solver after "
                           "constructing the adjoint, then integrate with HybridAdjoint::integrate_to)");
  const HybridProblem& problem = static_cast<internal::ModeProblem&>(solver_.integrator().problem()).hybrid();
  const int m = objective.rows, np = problem.np();
  if (dx0.data == nullptr || dx0.rows != problem.nx() || dx0.cols != m)
    throw std::invalid_argument("HybridAdjoint::gradient: dx0 must be nx x rows = " + std::to_string(problem.nx()) +
                                " x " + std::to_string(m));
  if (np > 0 && !(dp.rows == np && dp.cols == m && dp.data != nullptr) && !(dp.rows == 0 && dp.data == nullptr))
    throw std::invalid_argument("HybridAdjoint::gradient: dp must be np x rows = " + std::to_string(np) + " x " +
                                std::to_string(m) + " (or empty)");
  report_ = HybridAdjointReport{};
  report_.segments = static_cast<long>(segments_.size());
  const long record = internal::RecordedRun::record_doubles(solver_.integrator());
  report_.stored_records = run_->stored_records();
  report_.checkpoints = run_->checkpoints();
  // Without a budget the records carry their own times: the schedule counts with one only.
  report_.peak_stored_doubles = report_.stored_records * record +
                                (run_->capacity() > 0 ? run_->schedule_doubles() : 0) + run_->checkpoint_doubles() +
                                static_cast<long>(segments_.size()) * (problem.nx() + problem.nz() + problem.np() + problem.memory_size() + 1) +
                                static_cast<long>(transitions_.size()) * (problem.nx() + problem.nz() + problem.event_count() + 1);
  message_.clear();
  run_->start_sweep();
  Backward backward(*this, objective);
  const Status status = backward.run(dx0, np > 0 && dp.rows > 0 ? dp : MatrixRef{});
  report_.recomputed_steps = run_->recomputed_steps();
  if (!ok(status)) message_ = backward.message();
  return status;
}

}  // namespace esdirk
