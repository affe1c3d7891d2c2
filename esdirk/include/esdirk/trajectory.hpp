#pragma once
// A step listener that keeps an owned record of every accepted step, and replays a recorded
// step sequence bit for bit: the base of finite differences on frozen steps and of the adjoint's
// reverse sweep (which needs the stage values of every step, or checkpoints to recompute them).
//
//     esdirk::Trajectory trajectory;
//     solver.add_listener(trajectory);
//     solver.initialize(t0, x0, z0, p);
//     solver.integrate_to(t1, x, z);                 // trajectory.steps() holds every step
//     other.initialize(t0, x0, z0, p);               // same problem and options
//     trajectory.replay(other);                      // the same steps, the same bits

#include <memory>

#include "esdirk/integrator.hpp"
#include "esdirk/step_listener.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

namespace internal {
class RecordedRun;
}

/// The keep-everything case of the library's one recorded-run store (the adjoints keep theirs
/// under a memory budget; doc/architecture.md, "One recorded run").
class ESDIRK_API Trajectory final : public StepListener {
 public:
  Trajectory();
  ~Trajectory() override;
  Trajectory(const Trajectory& other);
  Trajectory& operator=(const Trajectory& other);

  /// Records are reused across runs: after clear() (or a new initialize()), steps are copied
  /// into the records already allocated, so a run no longer than an earlier one (or than
  /// reserve()) does not allocate. `stages` is that of the resolved method,
  /// Integrator::method().stages (Options::method may be "auto").
  void reserve(int steps, int nx, int nz, int stages);
  void clear();
  /// A replay repeats each step from its own start: the integrator must not carry a Jacobian
  /// from one step to the next while recording (FactorizationPolicy::automatic).
  bool needs_jacobian_at_step_start() const override { return true; }

  /// The recorded steps, oldest first.
  int size() const;
  const StepRecord& operator[](int k) const;

  /// Replays steps [first, first + count) (all by default) on `integrator`, which must stand at
  /// the start of step `first` exactly as the recording run did (for step 0: initialized with
  /// the same t0, x0, z guess, p, problem and options). Each step is taken with its recorded h
  /// and end time (Integrator::replay_step), so states, stages and the listeners' results
  /// (e.g. exact-mode sensitivities) come out bit for bit. Returns the first failure, with the
  /// integrator's message. Throws std::invalid_argument for a range outside the record and
  /// std::logic_error when the integrator is not at the start of step `first`.
  Status replay(Integrator& integrator, int first = 0, int count = -1) const;

  // StepListener
  AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) override;
  void on_restart(double t, RestartKind kind) override;

  /// The store itself (internal: for the adjoint's sweep over a trajectory).
  internal::RecordedRun& recorded_run() const { return *run_; }

 private:
  std::unique_ptr<internal::RecordedRun> run_;
};

}  // namespace esdirk
