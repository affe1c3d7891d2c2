#pragma once
// Internal to the C shim: the handle types and the helpers every entry point uses (not
// installed). The handles are defined at global scope because esdirk.h declares them there.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_sparse.h"
#include "esdirk/integrator.hpp"
#include "esdirk/outcome.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/reverse_shooting_interval.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"

namespace esdirk_capi {

// The first failure of a Krylov callback (of a plain or a hybrid C problem) since one last
// succeeded, kept as plain values (no allocation in the step loop). A success clears it: the
// step recovered, so the note would be stale; a failure that follows another (a NaN from
// P^{-1} r reaching J v) keeps the first, which is the cause.
class KrylovFailure {
 public:
  // Returns the code the core should see: `code`, or 1 for a non-finite result.
  int check(const char* who, int code, double t, esdirk::ConstVector out) noexcept {
    bool finite = true;
    if (code == 0)
      for (double v : out) finite = finite && std::isfinite(v);
    if (code == 0 && finite) {
      if (who_ != nullptr) who_ = nullptr;  // written only after a failure, not per call
      return 0;
    }
    if (who_ == nullptr) {
      who_ = who;
      code_ = code;
      t_ = t;
    }
    return code != 0 ? code : 1;
  }
  std::string describe() const {
    if (who_ == nullptr) return {};
    char text[160];
    if (code_ != 0)
      std::snprintf(text, sizeof text, "%s returned %d (J formed at t = %.9g)", who_, code_, t_);
    else
      std::snprintf(text, sizeof text, "%s gave non-finite values (J formed at t = %.9g)", who_, t_);
    return text;
  }

 private:
  const char* who_ = nullptr;
  int code_ = 0;
  double t_ = 0.0;
};

// A Problem whose callbacks are C function pointers (NULL vectors when a size is zero).
class CProblem final : public esdirk::Problem {
 public:
  CProblem(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
           void* user_data)
      : Problem(nx, nz, np), residual_(residual), user_data_(user_data) {}

  int evaluate(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector g) override {
    return residual_(nx(), nz(), np(), t, x.data(), zp(z), pp(p), f.data(),
                     nz() ? g.data() : nullptr, user_data_);
  }
  bool has_jacobian() const override { return jacobian_fn != nullptr; }
  int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    return jacobian_fn(nx(), nz(), np(), t, x.data(), zp(z), pp(p), J.data, J.ld, user_data_);
  }
  bool has_parameter_jacobian() const override { return parameter_jacobian_fn != nullptr; }
  int parameter_jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z,
                         esdirk::ConstVector p, esdirk::MatrixRef Jp) override {
    return parameter_jacobian_fn(nx(), nz(), np(), t, x.data(), zp(z), pp(p), Jp.data, Jp.ld,
                                 user_data_);
  }

  // The analytic Jacobian on a declared pattern or band (esdirk_sparse.h).
  bool has_sparse_jacobian() const override { return sparse_jacobian_fn != nullptr; }
  int sparse_jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z,
                      esdirk::ConstVector p, esdirk::SparseMatrixRef J) override {
    return sparse_jacobian_fn(nx(), nz(), np(), t, x.data(), zp(z), pp(p), J.nonzeros(),
                              J.column_pointers(), J.row_indices(), J.values, user_data_);
  }

  // The Newton-Krylov callbacks (esdirk_problem_set_krylov_callbacks). A failure (a nonzero
  // code or a non-finite result) is what the core sees as a failed GMRES solve; it is also
  // kept for failure_note(), which the integrator appends to its message.
  bool has_jacobian_vector_product() const override { return jacobian_vector_fn != nullptr; }
  int jacobian_vector_product(double t, esdirk::ConstVector x, esdirk::ConstVector z,
                              esdirk::ConstVector p, esdirk::ConstVector v,
                              esdirk::Vector out) override {
    const int code = jacobian_vector_fn(nx(), nz(), np(), t, x.data(), zp(z), pp(p), v.data(),
                                        out.data(), user_data_);
    return krylov_failure_.check("the J v callback", code, t, out);
  }
  bool has_preconditioner() const override { return preconditioner_solve_fn != nullptr; }
  int preconditioner_setup(double t, esdirk::ConstVector x, esdirk::ConstVector z,
                           esdirk::ConstVector p, const esdirk::JacobianMatrix& J,
                           double h_gamma) override {
    // The Krylov back-end always keeps J on its pattern (it needs one).
    if (J.is_dense()) throw std::logic_error("preconditioner_setup: J has no pattern");
    const esdirk::SparsityPattern& pattern = J.pattern();
    setup_t_ = t;
    const int code = preconditioner_setup_fn(
        nx(), nz(), np(), t, x.data(), zp(z), pp(p), h_gamma, pattern.nonzeros(),
        pattern.column_pointers().data(), pattern.row_indices().data(), J.values(), user_data_);
    return krylov_failure_.check("the preconditioner setup callback", code, t, {});
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool transpose) override {
    const int code = preconditioner_solve_fn(nx(), nz(), r.data(), out.data(), transpose ? 1 : 0,
                                             user_data_);
    return krylov_failure_.check("the preconditioner solve callback", code, setup_t_, out);
  }
  std::string failure_note() const override { return krylov_failure_.describe(); }

  esdirk_jacobian_fn jacobian_fn = nullptr;
  esdirk_parameter_jacobian_fn parameter_jacobian_fn = nullptr;
  esdirk_sparse_jacobian_fn sparse_jacobian_fn = nullptr;
  esdirk_jacobian_vector_fn jacobian_vector_fn = nullptr;
  esdirk_preconditioner_setup_fn preconditioner_setup_fn = nullptr;
  esdirk_preconditioner_solve_fn preconditioner_solve_fn = nullptr;

  /// A problem with the same callbacks and user data (one per shooting interval of the
  /// multiple-shooting evaluator, esdirk_multishoot.h).
  std::unique_ptr<CProblem> copy() const {
    auto c = std::make_unique<CProblem>(nx(), nz(), np(), residual_, user_data_);
    c->jacobian_fn = jacobian_fn;
    c->parameter_jacobian_fn = parameter_jacobian_fn;
    c->sparse_jacobian_fn = sparse_jacobian_fn;
    c->jacobian_vector_fn = jacobian_vector_fn;
    c->preconditioner_setup_fn = preconditioner_setup_fn;
    c->preconditioner_solve_fn = preconditioner_solve_fn;
    const esdirk::JacobianStructure& structure = jacobian_structure();
    if (structure.pattern != nullptr) {
      c->set_jacobian_pattern(*structure.pattern, structure.solver);  // Krylov settings: defaults
      if (structure.solver == esdirk::LinearSolverKind::krylov) c->set_krylov_settings(structure.krylov);
    }
    return c;
  }

 private:
  const double* zp(esdirk::ConstVector z) const { return nz() ? z.data() : nullptr; }
  const double* pp(esdirk::ConstVector p) const { return np() ? p.data() : nullptr; }
  esdirk_residual_fn residual_;
  void* user_data_;
  double setup_t_ = 0.0;  // t of the last preconditioner setup (the solves' messages)
  KrylovFailure krylov_failure_;
};

/// The C status of a core status (the values are the same; the mapping is from the table).
int to_c_status(esdirk::Status status);

/// The C code of a normal stop: ESDIRK_STOP_TIME_REACHED, ESDIRK_LISTENER_STOP or
/// ESDIRK_SUCCESS (reached tout, one step taken).
int to_c_stop(esdirk::StopReason reason);

struct Messages;

/// The value of the counter called `name`; false if there is none.
bool counter_value(const esdirk::Statistics& st, const char* name, std::int64_t& value);

/// Fills the caller's statistics struct up to its struct_size (see esdirk.h).
int fill_statistics(const esdirk::Statistics& st, esdirk_statistics* out, Messages& messages);

/// esdirk_*_get_counter: one counter by name.
int get_counter(const esdirk::Statistics& st, const char* name, std::int64_t* value,
                Messages& messages);

/// A vector argument: NULL is allowed only for length 0.
inline bool vector_ok(const void* data, esdirk_int n) { return n == 0 || data != nullptr; }

inline std::span<const double> in(const double* data, esdirk_int n) {
  return {data, static_cast<std::size_t>(n)};
}
inline std::span<double> out(double* data, esdirk_int n) {
  return {data, static_cast<std::size_t>(n)};
}

/// Marks a handle busy while one of its entry points runs (see guarded()); the flag was set by
/// the caller (atomically, so that two threads cannot both take it), this records the thread
/// that owns the call and clears both at the end.
class BusyScope {
 public:
  BusyScope(std::atomic<bool>& busy, std::atomic<std::thread::id>& owner) : busy_(busy), owner_(owner) {
    owner_.store(std::this_thread::get_id());
  }
  ~BusyScope() {
    owner_.store(std::thread::id{});
    busy_.store(false);
  }
  BusyScope(const BusyScope&) = delete;
  BusyScope& operator=(const BusyScope&) = delete;

 private:
  std::atomic<bool>& busy_;
  std::atomic<std::thread::id>& owner_;
};

inline constexpr const char* in_use_message =
    "this handle is in use: its functions may not be called from inside its own callbacks";

/// Something with a `fail(status, message)` member and a `busy` flag: runs `body`, mapping
/// exceptions to statuses and messages, so that no exception crosses the C boundary. A call
/// made from inside one of the same handle's callbacks (the handle is busy) is refused: it
/// would replace or free what the running call is using.
template <class Handle, class Body>
int guarded(Handle* handle, Body&& body) noexcept {
  if (handle->busy.exchange(true)) return handle->fail(ESDIRK_WRONG_CALL_ORDER, in_use_message);
  BusyScope scope(handle->busy, handle->owner);
  try {
    return body();
  } catch (const std::length_error& e) {
    // A size beyond a documented limit, or one whose workspace overflows the size types: an
    // invalid argument (as the structural functions answer it), not a failed allocation.
    return handle->fail(ESDIRK_INVALID_ARGUMENT, std::string("a size is too large: ") + e.what());
  } catch (const std::out_of_range& e) {
    return handle->fail(ESDIRK_INVALID_ARGUMENT, e.what());
  } catch (const std::invalid_argument& e) {
    return handle->fail(ESDIRK_INVALID_ARGUMENT, e.what());
  } catch (const std::domain_error& e) {
    return handle->fail(ESDIRK_INVALID_ARGUMENT, e.what());
  } catch (const std::logic_error& e) {
    return handle->fail(ESDIRK_WRONG_CALL_ORDER, e.what());
  } catch (const std::bad_alloc&) {
    return handle->fail(ESDIRK_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return handle->fail(ESDIRK_INTERNAL_ERROR, std::string("internal error: ") + e.what());
  } catch (...) {
    return handle->fail(ESDIRK_INTERNAL_ERROR, "internal error: unknown exception");
  }
}

/// *_create of a solver-type handle bound to `problem`: NULL checks, no exception out.
template <class Handle, class Problem>
int create_handle(Problem* problem, Handle** handle) noexcept {
  if (!handle) return ESDIRK_NULL_ARGUMENT;
  *handle = nullptr;
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  try {
    auto made = std::make_unique<Handle>();
    made->problem = problem;
    *handle = made.release();
    return ESDIRK_SUCCESS;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

/// *_free: frees and nulls the handle; a no-op from inside the handle's own callback (the
/// running call still uses it).
template <class Handle>
void free_handle(Handle** handle) noexcept {
  if (!handle || (*handle && (*handle)->busy)) return;
  delete *handle;
  *handle = nullptr;
}

/// The scalar-tolerance check shared by the set_tolerances functions.
inline bool tolerances_ok(double rtol, double atol) {
  return rtol >= 0.0 && atol >= 0.0 && std::isfinite(rtol) && std::isfinite(atol);
}
inline constexpr const char* tolerances_message = "set_tolerances: rtol and atol must be finite and >= 0";

/// A handle's message store and failure helper.
///
/// While an entry point runs, the handle's callbacks may run on other threads too (the
/// multiple-shooting pool): a refused call from such a thread returns its status without
/// touching the message, which belongs to the running call, and last_error there answers the
/// in-use text. Only the thread that owns the running call writes or reads the message.
struct Messages {
  std::string message;
  std::atomic<bool> busy{false};  // one of the handle's entry points is running (see guarded())
  std::atomic<std::thread::id> owner{};  // the thread running it
  /// Never throws: if the message cannot be stored, the status still is returned.
  int fail(int status, std::string why) noexcept {
    if (!mine()) return status;
    message.swap(why);
    return status;
  }
  /// The message for last_error.
  const char* text() const noexcept { return mine() ? message.c_str() : in_use_message; }

 private:
  // Not busy, or busy in a call this thread owns.
  bool mine() const noexcept { return !busy.load() || owner.load() == std::this_thread::get_id(); }
};

}  // namespace esdirk_capi

namespace esdirk_capi {
class CHybridProblem;
}

// The Jacobian structure of a plain or a hybrid problem as C sees it (esdirk_sparse.h): a handle
// that its problem handle owns, on the problem's C++ model (exactly one of the two pointers is
// set, by the problem's create), and the message of the last structure call on that problem.
struct esdirk_jacobian_structure {
  esdirk_capi::CProblem* plain = nullptr;
  esdirk_capi::CHybridProblem* hybrid = nullptr;
  std::string message;
};

struct esdirk_problem {
  std::unique_ptr<esdirk_capi::CProblem> problem;
  esdirk_jacobian_structure structure;  // structure.plain is problem.get()
};

struct esdirk_solver : esdirk_capi::Messages {
  esdirk_problem* problem = nullptr;
  esdirk::Options options;
  esdirk::SensitivityOptions sensitivity_options;
  // Made by initialize with the options of that moment; the sensitivities (attached to the
  // integrator) are destroyed first.
  std::unique_ptr<esdirk::Integrator> integrator;
  std::unique_ptr<esdirk::ForwardSensitivity> sensitivity;
  // The adjoint (esdirk_adjoint.h, capi/src/adjoint.cpp): made with each new integrator, before
  // its initialize, when record_adjoint is set, so that it records from t0.
  bool record_adjoint = false;
  esdirk::AdjointOptions adjoint_options;
  std::unique_ptr<esdirk::Adjoint> adjoint;
  bool last_run_failed = false;  // the last integration call failed (no gradient of it)
  bool restarted = false;        // restarted since initialize (the smooth adjoint needs one run)
  bool initialized = false;

  int from(esdirk::Status status, const std::string& why) {
    if (status == esdirk::Status::success) {
      message.clear();
      return ESDIRK_SUCCESS;
    }
    message = why;
    return esdirk_capi::to_c_status(status);
  }
  // Integration calls: a normal stop before tout is a positive code (CVODES style).
  int from(const esdirk::Outcome& outcome, const std::string& why) {
    last_run_failed = !esdirk::ok(outcome.status);
    if (!esdirk::ok(outcome.status)) return from(outcome.status, why);
    message.clear();
    return esdirk_capi::to_c_stop(outcome.reason);
  }
  int check_sizes(esdirk_int nx, esdirk_int nz, esdirk_int np, const char* who);
  int require_initialized(const char* who);
};

struct esdirk_shooting : esdirk_capi::Messages {
  esdirk_problem* problem = nullptr;
  esdirk::Options options;
  esdirk::SensitivityOptions sensitivity_options;
  bool options_changed = true;  // the interval object is rebuilt at the next integrate
  std::unique_ptr<esdirk::ShootingInterval> interval;
  esdirk_running_cost_fn cost = nullptr;
  void* cost_user_data = nullptr;
  bool has_result = false;
  // The mesh settings, applied again to a rebuilt interval: 0 adaptive, 1 fixed steps, 2 fixed
  // mesh, 3 frozen.
  int mesh_setting = 0;
  int fixed_steps = 0;
  std::vector<double> mesh_points;
};

// The reverse-mode shooting interval of esdirk_adjoint.h (capi/src/adjoint.cpp).
struct esdirk_reverse_shooting : esdirk_capi::Messages {
  esdirk_problem* problem = nullptr;
  esdirk::Options options;
  bool options_changed = true;  // the interval object is rebuilt at the next integrate
  std::unique_ptr<esdirk::ReverseShootingInterval> interval;
  esdirk_running_cost_fn cost = nullptr;
  void* cost_user_data = nullptr;
  bool has_result = false;
};
