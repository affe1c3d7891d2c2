#pragma once
// The discrete adjoint of a hybrid run: the exact transpose of the forward sensitivities of
// HybridSolver, events and memory included (doc/adjoint-theory.md, "Events"). It records the
// run segment by segment (the steps of each mode, the data of each transition), then sweeps back
// through the segments with the smooth adjoint's sweep (one implementation of the step algebra)
// and, at every event, the transpose of the jump maps of doc/events-theory.md (J2-J6).
//
//     esdirk::HybridSolver solver(problem, options);
//     esdirk::HybridAdjoint adjoint(solver);               // listens to the solver's integrator
//     solver.initialize(t0, mode0, x0, z0_guess, p);
//     for (double t : output_times) adjoint.integrate_to(t, x, z);   // records each output
//     esdirk::HybridObjective objective;                   // terms at the recorded outputs
//     objective.terminal = ...;                            // at the last one
//     adjoint.gradient(objective, dx0, dp);                // d(objective)/d(x0), d/d(p)
//
// The steps and the event sequence are frozen (the controller, the root finder and the mode
// sequence are not differentiated); the gradient is that of the computed solution, the same
// number the forward sensitivities give on the same steps, to rounding. Running costs are
// carried as states q' = L (as the forward does), so their Leibniz terms at events come with
// the transposed jumps. Every step is kept, or, with HybridAdjointOptions::memory_budget, blocks
// of steps within each mode are recomputed bit for bit from checkpoints during the sweep.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

namespace internal {
class AdjointSweep;
class EventJumps;
class ModeProblem;
}  // namespace internal

/// How the adjoint of the memory (x*, z*) is carried back at events.
enum class MemoryTransfer {
  /// The transpose of the forward memory sensitivities (Serban & Recuero 2019 Algorithm 1, read so
  /// that the accumulators A and B arise as the adjoint of the latched
  /// memory, with (J + A) formed once from the old A). Correct.
  transpose,
  /// The recurrence printed in Serban & Recuero 2019's text (erratum E8): the x*-part of the
  /// adjoint of an earlier memory, A phi_{y*}, is applied at the event that formed it, with that
  /// event's phi_{y*}, instead of being carried to the event where that memory was latched; J
  /// phi_{y*} is lost. Wrong; only to show what the erratum changes (defined for memory problems).
  printed_recurrence,
};

struct HybridAdjointOptions {
  /// Transpose the sensitivity jumps at events. false: the adjoint passes through every event
  /// unchanged, the transpose of a forward run with HybridOptions::sensitivity_jumps = false
  /// (to show what ignoring the jumps gives: a wrong gradient).
  bool jumps = true;
  MemoryTransfer memory_transfer = MemoryTransfer::transpose;
  /// Doubles the step records may occupy: 0 keeps every step; otherwise at most
  /// k = memory_budget / (doubles per record) records are kept at a time (the last k steps of
  /// the run after recording), the steps of each mode are split into blocks of at most k, and
  /// each block has a checkpoint (the state, f and g at its first step's start) from which the
  /// sweep replays it bit for bit when its records are gone. The gradient is bit-identical to
  /// keep-everything; every step is recomputed at most once. Stored besides the records: t, h,
  /// t_end per step and 2 (nx + nz) doubles per block. A budget below one record throws
  /// std::invalid_argument at construction.
  long memory_budget = 0;
  /// Throws std::invalid_argument for a negative memory budget (inline: a plain aggregate).
  void validate() const {
    if (memory_budget < 0)
      throw std::invalid_argument("HybridAdjointOptions: memory_budget must be >= 0 (0 keeps every step)");
  }
};

/// A (vector) objective of a hybrid run with `rows` rows, a sum of point terms at the outputs
/// recorded by HybridAdjoint::integrate_to:  Phi = sum_k C_k(x(t_k), z(t_k), p) + C(x(t_f), ...),
/// t_f the last output. An output at an event time is the left limit (what integrate_to
/// returned); at a terminal event (integrate_to returned listener_stop) t_f = t* moves with the
/// parameters and the gradient is that of C(x(t*(theta))) (Schäfer 2021's implicit event that ends
/// the integration), where C must not depend on t explicitly. If the run went on past a terminal
/// event, its output counts as the left limit at a fixed output time, like any other event.
/// The p the terms receive is that of the output's mode (with parameter resets, the p+ of the
/// last reset before it; their dp is the derivative with respect to that p); the gradient's dp
/// is with respect to the p of initialize (doc/events-theory.md, J3p).
struct ESDIRK_API HybridObjective {
  int rows = 1;
  /// Gradient of C at the last recorded output.
  ObjectiveGradient terminal;
  /// Gradient of C_k at the k-th recorded output (k = 0, 1, ..., outputs() - 1, the last one
  /// included: it then adds to `terminal`).
  std::function<int(int k, double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef dx,
                    MatrixRef dz, MatrixRef dp)>
      at_output;
  /// A terminal term given as constant weights: C = w^T [x(tf); z(tf)], w (nx+nz) x rows.
  void set_terminal_weights(ConstMatrixRef weights);
  /// Throws std::invalid_argument for rows < 1 or no term at all.
  void validate() const;
};

/// What a hybrid sweep did: the smooth sweep's counters summed over the segments, and the events.
struct HybridAdjointReport {
  AdjointReport sweep;          ///< adjoint steps, transposed solves, Jacobians, objective calls
  long segments = 0;            ///< modes swept (events + 1)
  long jumps = 0;               ///< event jumps transposed
  long peak_stored_doubles = 0; ///< step records, schedule, checkpoints and event data kept
  long checkpoints = 0;         ///< block starts stored (0 without a memory budget)
  long recomputed_steps = 0;    ///< steps replayed from checkpoints by the last sweep
  long stored_records = 0;      ///< step records held at a time
};

class ESDIRK_API HybridAdjoint final : public StepListener {
 public:
  /// Adds itself to the solver's integrator (removed by the destructor); the solver and its
  /// problem must outlive this object. Construct it before solver.initialize(): the recording
  /// starts with the initialization. Throws std::invalid_argument for invalid options.
  explicit HybridAdjoint(HybridSolver& solver, HybridAdjointOptions options = {});
  ~HybridAdjoint() override;
  HybridAdjoint(const HybridAdjoint&) = delete;
  HybridAdjoint& operator=(const HybridAdjoint&) = delete;

  /// solver.integrate_to(tout, ...) (the same arguments and result), recording the output it
  /// returns as output number outputs() - 1. A failed call marks the recording as failed.
  Outcome integrate_to(double tout, Vector x, Vector z = {}, MatrixRef Sx = {}, MatrixRef Sz = {});

  /// The gradient of every objective row with respect to x0 (dx0: nx x rows) and p (dp: np x
  /// rows, may be empty when np = 0): the transpose of the forward sensitivities of the
  /// recorded run. Throws std::logic_error before a recorded output (no initialize or no
  /// integrate_to through this object) or after a failed call (the run is incomplete), and
  /// std::invalid_argument for wrong sizes. Returns callback_failures / callback_fatal (a model,
  /// event, reset or objective callback failed or returned non-finite values),
  /// singular_algebraic_jacobian, event_grazing (an event with dh/dt ~ 0, where the event-time
  /// sensitivity is not defined) or singular_iteration_matrix, with message().
  Status gradient(const HybridObjective& objective, MatrixRef dx0, MatrixRef dp);

  /// Outputs recorded by integrate_to since initialize, and the time of output k.
  int outputs() const;
  double output_time(int k) const;
  /// Modes visited (events + 1) and steps recorded (kept or not).
  int segments() const;
  int steps() const;
  const HybridAdjointReport& report() const { return report_; }
  const std::string& message() const { return message_; }
  const HybridAdjointOptions& options() const { return options_; }

  // StepListener
  AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) override;
  void on_restart(double t, RestartKind kind) override;
  /// Adds the last sweep's counters (adjoint steps, transposed solves, LUs, Jacobians) to the
  /// integrator's report.
  void add_statistics(Statistics& report) const override;
  bool needs_jacobian_at_step_start() const override { return true; }

 private:
  struct Segment;
  struct Transition;
  struct Output;
  class Backward;

  /// The steps [first_step(j), end_step(j)) of segment j.
  int first_step(int segment) const;
  int end_step(int segment) const;

  HybridSolver& solver_;
  HybridAdjointOptions options_;
  // The recorded steps, one segment per mode (all of them, or the last ones and checkpoints
  // under a memory budget; blocks are replayed in the segment's mode when needed).
  std::unique_ptr<internal::RecordedRun> run_;
  std::vector<Segment> segments_;       // segment j starts at event j (j >= 1) or at t0
  std::vector<Transition> transitions_; // transitions_[j - 1]: the event that starts segment j
  std::vector<Output> outputs_;
  bool recording_ = false;
  bool failed_ = false;
  HybridAdjointReport report_;
  std::string message_;
};

}  // namespace esdirk
