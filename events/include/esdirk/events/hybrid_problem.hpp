#pragma once
// A hybrid problem: a semi-explicit index-1 DAE per mode, event functions that end a mode,
// and transitions (successor mode and an explicit reset of x) applied at the events.
//
//     mode m:   x' = f_m(t, x, z, p, mem)      0 = g_m(t, x, z, p, mem)
//     events:   h_m(t, x, z, p, mem) in R^ne   a zero crossing of component k ends the mode
//     reset:    x+ = phi(t, x-, z-, p, mem)    next mode from the same callback
//     optional: p+ = psi(t, x-, z-, p, mem)    new parameters for the next mode
//     memory:   mem = (x*, z*) latched at each transition (optional)
//
// Modes are integers the problem knows (has_mode). Every callback returns 0 on success, > 0
// for a recoverable failure and < 0 for a fatal one, like Problem. What is not supplied
// (Jacobians of f, g, h, phi) is formed by finite differences, counted apart
// (doc/events-guide.md). Matrices are column-major.

#include <span>
#include <string>

#include "esdirk/jacobian.hpp"
#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

namespace internal {
class ModeProblem;
}

/// Which zero crossings of an event component count: from - to + (rising), from + to -
/// (falling) or both.
enum class EventDirection { rising, falling, both };

/// What caused a transition: the state-event components that fired (+1 rising, -1 falling,
/// 0 not fired; size event_count(), all 0 for a time event) or the index of the time event
/// (HybridOptions::time_events), -1 for a state event.
struct TransitionCause {
  std::span<const int> fired;
  int time_event = -1;

  bool fired_component(int k) const { return fired[static_cast<std::size_t>(k)] != 0; }
};

class ESDIRK_API HybridProblem {
 public:
  /// nx >= 1 differential and nz >= 0 algebraic states, np >= 0 parameters, ne >= 0 event
  /// functions (the same number in every mode). With `memory`, f, g, h and phi also read the
  /// latched values mem = (x*, z*) of size nx + nz. Throws std::invalid_argument otherwise.
  HybridProblem(int nx, int nz, int np, int n_events, bool memory = false);
  virtual ~HybridProblem() = default;

  int nx() const { return nx_; }
  int nz() const { return nz_; }
  int np() const { return np_; }
  int event_count() const { return ne_; }
  bool has_memory() const { return memory_; }
  /// nx + nz with memory, 0 without.
  int memory_size() const { return memory_ ? nx_ + nz_ : 0; }

  /// False for a mode the model does not know (checked at initialize and at every transition).
  virtual bool has_mode(int mode) const {
    (void)mode;
    return true;
  }

  // --- Dynamics of a mode -------------------------------------------------------------------
  /// f (size nx) and g (size nz) of `mode`; `memory` is empty without memory.
  virtual int evaluate(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                       ConstVector memory, Vector f, Vector g) = 0;
  virtual bool has_jacobian() const { return false; }
  /// J = [f_x f_z; g_x g_z], (nx+nz) x (nx+nz). Only called when has_jacobian().
  virtual int jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                       ConstVector memory, MatrixRef J);
  virtual bool has_parameter_jacobian() const { return false; }
  /// True if constraint_time_derivative() is implemented. Without it the events module forms
  /// g_t (for z' = -g_z^{-1}(g_x f + g_t) at an event: D_h and the sensitivity jumps) by a
  /// central difference in t, counted in fd_function_evaluations.
  virtual bool has_constraint_time_derivative() const { return false; }
  /// g_t = dg/dt of `mode` (size nz) at (t, x, z, p, mem), the partial derivative in the
  /// explicit t. Only called when has_constraint_time_derivative() and nz > 0.
  virtual int constraint_time_derivative(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                                         ConstVector memory, Vector g_t);
  /// [f_p f_mem; g_p g_mem], (nx+nz) x (np + memory_size()): the parameters, then the memory
  /// (x*, then z*). Only called when has_parameter_jacobian().
  virtual int parameter_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                                 ConstVector memory, MatrixRef Jp);

  // --- Banded and sparse Jacobians (doc/linear-solvers-guide.md, doc/events-guide.md) --------
  // One structure for every mode: declare the union of the modes' patterns (an entry of J that
  // is nonzero in some mode must be in it). Declare it before a HybridSolver is made for the
  // problem; the checks and messages are Problem's. Without a declaration J is dense.

  /// J is banded in every mode: J(i, j) = 0 unless -upper <= i - j <= lower (band LU).
  /// Throws std::invalid_argument unless 0 <= lower, upper < nx + nz.
  void set_jacobian_bandwidths(int lower, int upper) {
    structure_ = JacobianStructure::banded(nx_ + nz_, lower, upper);
  }
  /// J has the given pattern in every mode, factored by `solver` (as
  /// Problem::set_jacobian_pattern). Throws std::invalid_argument if the size is wrong.
  void set_jacobian_pattern(SparsityPattern pattern, LinearSolverKind solver = LinearSolverKind::sparse) {
    structure_ = JacobianStructure::of_pattern(nx_ + nz_, std::move(pattern), solver);
  }
  /// The settings of LinearSolverKind::krylov for every mode (as Problem::set_krylov_settings:
  /// kept with the structure, a later set_jacobian_pattern starts from the defaults again).
  /// Throws std::invalid_argument naming the setting out of range (validate_krylov_settings).
  void set_krylov_settings(const KrylovSettings& settings) {
    validate_krylov_settings(settings, nx_ + nz_);
    structure_.krylov = settings;
  }
  /// Back to a dense Jacobian and the dense LU.
  void clear_jacobian_structure() { structure_ = JacobianStructure::dense(nx_ + nz_); }
  /// The declared structure (dense by default).
  const JacobianStructure& jacobian_structure() const { return structure_; }
  /// True if sparse_jacobian() is implemented (needs a declared pattern or bandwidths).
  virtual bool has_sparse_jacobian() const { return false; }
  /// The values of J of `mode` on the declared pattern (as Problem::sparse_jacobian). Only
  /// called when has_sparse_jacobian().
  virtual int sparse_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                              ConstVector memory, SparseMatrixRef J);

  // --- Newton-Krylov (LinearSolverKind::krylov; doc/linear-solvers-guide.md) ----------------
  // Problem's hooks with the mode and the memory: the same contracts, return codes and
  // statistics (Problem::jacobian_vector_product, preconditioner_setup, preconditioner_solve).

  /// True if jacobian_vector_product() is implemented (used with KrylovSettings::matrix_free).
  virtual bool has_jacobian_vector_product() const { return false; }
  /// out = J v of `mode` at (t, x, z, p, mem) (v, out: nx + nz values, not overlapping).
  virtual int jacobian_vector_product(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                                      ConstVector memory, ConstVector v, Vector out);
  /// True if the problem brings its own preconditioner (it replaces the built-in one).
  virtual bool has_preconditioner() const { return false; }
  /// Prepares P, an approximation of M = E - h_gamma J of `mode`, at the point where J was
  /// formed; `J` holds J on the declared pattern.
  virtual int preconditioner_setup(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                                   ConstVector memory, const JacobianMatrix& J, double h_gamma);
  /// out = P^{-1} r, or P^{-T} r if `transpose`, with the P of the last setup.
  virtual int preconditioner_solve(ConstVector r, Vector out, bool transpose);
  /// What the problem knows about its last failed evaluation, or "" (Problem::failure_note).
  virtual std::string failure_note() const { return {}; }

  // --- Events -------------------------------------------------------------------------------
  /// The ne event functions of `mode` at one point.
  virtual int events(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                     ConstVector memory, Vector h);
  virtual bool has_event_jacobian() const { return false; }
  /// The gradient of component k as one row [h_t, h_x (nx), h_z (nz), h_p (np), h_mem]
  /// (size 1 + nx + nz + np + memory_size()). Only called when has_event_jacobian().
  virtual int event_jacobian(int mode, int k, double t, ConstVector x, ConstVector z,
                             ConstVector p, ConstVector memory, Vector row);

  // --- Transitions --------------------------------------------------------------------------
  /// At an event: the successor mode (`next_mode` holds the current one on entry) and the reset
  /// x+ = phi(t, x-, z-, p, mem) (`x_plus` holds x- on entry: the identity by default). Must be
  /// a function of its arguments (it is also differentiated by differences).
  virtual int transition(int mode, const TransitionCause& cause, double t, ConstVector x,
                         ConstVector z, ConstVector p, ConstVector memory, int& next_mode,
                         Vector x_plus);
  virtual bool has_reset_jacobian() const { return false; }
  /// D = [phi_t | phi_x | phi_z | phi_p | phi_mem], nx x (1 + nx + nz + np + memory_size()).
  /// Only called when has_reset_jacobian().
  virtual int reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x,
                             ConstVector z, ConstVector p, ConstVector memory, MatrixRef D);

  // --- Parameter resets (doc/events-guide.md, "Parameter resets") ----------------------------
  /// True if transitions may assign new parameter values: the solver then calls
  /// reset_parameters() at every event and integrates the next mode with p+ (the p given to
  /// initialize is the first mode's). Needs np >= 1.
  virtual bool has_parameter_reset() const { return false; }
  /// At an event, after transition(): p+ = psi(t, x-, z-, p-, mem) (`p_plus` holds p- on
  /// entry: assign the parameters that change, leave the others). The arguments are those
  /// transition() had (the left limit, the parameters and memory of the mode that ends). Must
  /// be a function of its arguments (it is also differentiated by differences).
  virtual int reset_parameters(int mode, const TransitionCause& cause, double t, ConstVector x,
                               ConstVector z, ConstVector p, ConstVector memory, Vector p_plus);
  virtual bool has_parameter_reset_jacobian() const { return false; }
  /// E = [psi_t | psi_x | psi_z | psi_p | psi_mem], np x (1 + nx + nz + np + memory_size())
  /// (psi_p is the identity for a parameter the reset leaves alone). Only called when
  /// has_parameter_reset() and has_parameter_reset_jacobian().
  virtual int parameter_reset_jacobian(int mode, const TransitionCause& cause, double t,
                                       ConstVector x, ConstVector z, ConstVector p,
                                       ConstVector memory, MatrixRef E);

 private:
  int nx_, nz_, np_, ne_;
  bool memory_;
  JacobianStructure structure_;
  // The mode view whose setup the preconditioner holds: the forward run and the adjoint's
  // replays are separate views of this one problem (internal::ModeProblem).
  friend class internal::ModeProblem;
  const void* preconditioner_owner_ = nullptr;
};

/// check_jacobian_pattern (esdirk/jacobian.hpp) for one mode of a hybrid problem: its declared
/// pattern (and analytic sparse_jacobian, if any) against central differences of `mode`'s f, g
/// at (t, x, z, p, memory); memory is empty without memory. Check every mode: the pattern must
/// hold the entries of all of them. Throws std::invalid_argument for wrong sizes or without a
/// declared structure.
ESDIRK_API JacobianPatternCheck check_jacobian_pattern(HybridProblem& problem, int mode, double t,
                                                       ConstVector x, ConstVector z, ConstVector p,
                                                       ConstVector memory,
                                                       const JacobianCheckOptions& options = {});

}  // namespace esdirk
