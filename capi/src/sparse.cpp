// The C API of banded and sparse Jacobians (esdirk_sparse.h): declares a problem's Jacobian
// structure, and with it the linear-solver back-end, on the C++ Problem.

#include <algorithm>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "esdirk/esdirk_sparse.h"
#include "esdirk/jacobian.hpp"
#include "hybrid_shim.hpp"

static_assert(std::is_same_v<esdirk_int, int>,
              "the CSC arrays are passed between C and C++ without copies: esdirk_int must be int");

namespace {

// A callback of the problem failed (the pattern checker).
struct CallbackFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `body` (which may throw std::invalid_argument for bad input) and keeps the message.
template <class Body>
int structure_call(std::string& message, Body&& body) noexcept {
  message.clear();
  try {
    body();
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument& e) {
    message = e.what();
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const CallbackFailed& e) {
    message = e.what();
    return ESDIRK_CALLBACK_FAILURES;
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    return ESDIRK_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    message = e.what();
    return ESDIRK_INTERNAL_ERROR;
  } catch (...) {
    message = "unknown error";
    return ESDIRK_INTERNAL_ERROR;
  }
}

bool solver_kind(int code, esdirk::LinearSolverKind& kind) {
  switch (code) {
    case ESDIRK_LINEAR_SOLVER_DENSE: kind = esdirk::LinearSolverKind::dense; return true;
    case ESDIRK_LINEAR_SOLVER_BANDED: kind = esdirk::LinearSolverKind::banded; return true;
    case ESDIRK_LINEAR_SOLVER_SPARSE: kind = esdirk::LinearSolverKind::sparse; return true;
    case ESDIRK_LINEAR_SOLVER_KRYLOV: kind = esdirk::LinearSolverKind::krylov; return true;
    default: return false;
  }
}

int solver_code(esdirk::LinearSolverKind kind) {
  switch (kind) {
    case esdirk::LinearSolverKind::banded: return ESDIRK_LINEAR_SOLVER_BANDED;
    case esdirk::LinearSolverKind::sparse: return ESDIRK_LINEAR_SOLVER_SPARSE;
    case esdirk::LinearSolverKind::krylov: return ESDIRK_LINEAR_SOLVER_KRYLOV;
    case esdirk::LinearSolverKind::dense: break;
  }
  return ESDIRK_LINEAR_SOLVER_DENSE;
}

// --- One implementation for every problem handle (esdirk_problem, esdirk_hybrid_problem) -----
// `Model` is the C++ problem (esdirk::Problem or esdirk::HybridProblem: both declare their
// structure with the same calls and messages); `message` the handle's structure message.

int size_of(const esdirk::Problem& model) { return model.size(); }
int size_of(const esdirk::HybridProblem& model) { return model.nx() + model.nz(); }

template <class Model>
int set_bandwidths(Model& model, std::string& message, esdirk_int lower, esdirk_int upper) {
  return structure_call(message, [&] { model.set_jacobian_bandwidths(lower, upper); });
}

template <class Model>
int set_pattern(Model& model, std::string& message, const esdirk_int* column_pointers,
                const esdirk_int* row_indices, int linear_solver) {
  message.clear();
  if (!column_pointers) {
    message = "column_pointers is NULL";
    return ESDIRK_NULL_ARGUMENT;
  }
  esdirk::LinearSolverKind kind{};
  if (!solver_kind(linear_solver, kind)) {
    message = "linear_solver " + std::to_string(linear_solver) +
              " is not ESDIRK_LINEAR_SOLVER_DENSE, _BANDED, _SPARSE or _KRYLOV";
    return ESDIRK_INVALID_ARGUMENT;
  }
  const int n = size_of(model);
  // Read only what the pointers promise: n + 1 pointers, then pointers[n] rows if that is a
  // sane count (the constructor checks the rest and names the first bad entry).
  const esdirk_int nonzeros = column_pointers[n];
  if (column_pointers[0] != 0 || nonzeros < 0 ||
      static_cast<long long>(nonzeros) > static_cast<long long>(n) * n) {
    message = "column_pointers[0] must be 0 and column_pointers[n] (" + std::to_string(nonzeros) +
              ") the number of entries, at most n^2 = " +
              std::to_string(static_cast<long long>(n) * n);
    return ESDIRK_INVALID_ARGUMENT;
  }
  if (nonzeros > 0 && !row_indices) {
    message = "row_indices is NULL";
    return ESDIRK_NULL_ARGUMENT;
  }
  return structure_call(message, [&] {
    esdirk::SparsityPattern pattern(n, std::vector<int>(column_pointers, column_pointers + n + 1),
                                    std::vector<int>(row_indices, row_indices + nonzeros));
    model.set_jacobian_pattern(std::move(pattern), kind);
  });
}

template <class Model>
int clear_structure(Model& model, std::string& message) {
  message.clear();
  model.clear_jacobian_structure();
  return ESDIRK_SUCCESS;
}

template <class Model>
int get_structure(const Model& model, int* linear_solver, esdirk_int* lower, esdirk_int* upper,
                  esdirk_int* nonzeros) {
  const esdirk::JacobianStructure& s = model.jacobian_structure();
  const int n = size_of(model);
  const bool dense = s.pattern == nullptr;
  if (linear_solver) *linear_solver = solver_code(s.solver);
  if (lower) *lower = dense ? n - 1 : s.lower;
  if (upper) *upper = dense ? n - 1 : s.upper;
  if (nonzeros) {
    const long long all = static_cast<long long>(n) * n;
    *nonzeros = dense ? static_cast<esdirk_int>(std::min<long long>(all, INT32_MAX))
                      : s.pattern->nonzeros();
  }
  return ESDIRK_SUCCESS;
}

template <class Model>
int get_pattern(const Model& model, esdirk_int* column_pointers, esdirk_int* row_indices,
                esdirk_int capacity) {
  const esdirk::JacobianStructure& s = model.jacobian_structure();
  if (s.pattern == nullptr) return ESDIRK_WRONG_CALL_ORDER;
  if (!column_pointers) return ESDIRK_NULL_ARGUMENT;
  if (capacity < s.pattern->nonzeros()) return ESDIRK_BUFFER_TOO_SMALL;
  if (s.pattern->nonzeros() > 0 && !row_indices) return ESDIRK_NULL_ARGUMENT;
  std::copy(s.pattern->column_pointers().begin(), s.pattern->column_pointers().end(), column_pointers);
  std::copy(s.pattern->row_indices().begin(), s.pattern->row_indices().end(), row_indices);
  return ESDIRK_SUCCESS;
}

// The pattern checker's C side for either problem kind: `run(options)` runs the C++ checker.
template <class Model, class Run>
int check_pattern(const Model& model, std::string& message, double threshold, esdirk_int* missing,
                  esdirk_int* rows, esdirk_int* cols, esdirk_int capacity, esdirk_int* wrong,
                  Run&& run) {
  if (!missing || !wrong || (capacity > 0 && (!rows || !cols))) return ESDIRK_NULL_ARGUMENT;
  if (capacity < 0) return ESDIRK_INVALID_ARGUMENT;
  if (model.jacobian_structure().pattern == nullptr) {
    message = "the problem declares no pattern or bandwidths to check";
    return ESDIRK_WRONG_CALL_ORDER;
  }
  *missing = 0;
  *wrong = 0;
  return structure_call(message, [&] {
    esdirk::JacobianCheckOptions options;
    if (threshold > 0.0) options.absolute_tolerance = threshold;
    options.max_reported = std::max(capacity, 10);
    const esdirk::JacobianPatternCheck check = run(options);
    if (!check.callback_error.empty()) throw CallbackFailed(check.callback_error);
    *missing = check.missing_count;
    *wrong = static_cast<esdirk_int>(check.wrong.size());
    const int reported = std::min<int>(capacity, static_cast<int>(check.missing.size()));
    for (int k = 0; k < reported; ++k) {
      rows[k] = check.missing[static_cast<std::size_t>(k)].row;
      cols[k] = check.missing[static_cast<std::size_t>(k)].col;
    }
    if (!check.ok) message = check.summary();
  });
}

// --- The Newton-Krylov settings, for either problem kind -----------------------------------

// The GMRES settings; matrix_free, sensitivity_tolerance and the preconditioner stay as they are.
template <class Model>
int set_krylov(Model& model, std::string& message, esdirk_int dimension, int max_restarts,
               double tolerance, double tolerance_with_derivatives, esdirk_int block_size) {
  return structure_call(message, [&] {
    // The caps on dimension and restarts (esdirk::max_krylov_dimension, max_krylov_restarts)
    // are the core's: set_krylov_settings refuses before it changes anything.
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
    settings.dimension = dimension;
    settings.max_restarts = max_restarts;
    settings.tolerance = tolerance;
    settings.tolerance_with_derivatives = tolerance_with_derivatives;
    settings.block_size = block_size;
    model.set_krylov_settings(settings);  // throws naming the setting out of range
  });
}

// "<caller>: the preconditioner must be ..." unless `code` is a built-in preconditioner.
esdirk::KrylovPreconditioner preconditioner_of(int code, const char* caller) {
  if (code != ESDIRK_KRYLOV_PRECONDITIONER_ILU0 &&
      code != ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI)
    throw std::invalid_argument(
        std::string(caller) +
        ": the preconditioner must be "
        "ESDIRK_KRYLOV_PRECONDITIONER_ILU0 (0) or ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI (1) "
        "(got " +
        std::to_string(code) + ")");
  return code == ESDIRK_KRYLOV_PRECONDITIONER_ILU0 ? esdirk::KrylovPreconditioner::ilu0
                                                   : esdirk::KrylovPreconditioner::block_jacobi;
}

// matrix_free and sensitivity_tolerance, and the preconditioner when `preconditioner` is given;
// the GMRES settings stay as they are (valid for any n: the defaults are krylov_defaults(n)).
template <class Model>
int set_krylov_options(Model& model, std::string& message, int matrix_free,
                       double sensitivity_tolerance,
                       std::optional<esdirk::KrylovPreconditioner> preconditioner) {
  return structure_call(message, [&] {
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
    settings.matrix_free = matrix_free != 0;
    settings.sensitivity_tolerance = sensitivity_tolerance;
    if (preconditioner) settings.preconditioner = *preconditioner;
    model.set_krylov_settings(settings);  // throws naming the setting out of range
  });
}

// `body(model)` on the C++ problem the structure handle belongs to.
template <class Structure, class Body>
int on_model(Structure& structure, Body&& body) {
  if (structure.plain) return body(*structure.plain);
  return body(*structure.hybrid);
}

// esdirk_*_set_krylov_callbacks of a plain or a hybrid problem: the preconditioner's setup and
// solve come both or neither.
template <class Handle, class Product, class Setup>
int set_krylov_callbacks(Handle* problem, Product product, Setup setup, esdirk_preconditioner_solve_fn solve,
                         const char* who) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->structure.message.clear();
  if ((setup == nullptr) != (solve == nullptr)) {
    problem->structure.message = std::string(who) + ": give the preconditioner's setup and solve, or neither";
    return ESDIRK_INVALID_ARGUMENT;
  }
  auto& model = *problem->problem;
  model.jacobian_vector_fn = product;
  model.preconditioner_setup_fn = setup;
  model.preconditioner_solve_fn = solve;
  return ESDIRK_SUCCESS;
}

}  // namespace

extern "C" {

// --- The structure handle ------------------------------------------------------------------

esdirk_jacobian_structure* esdirk_problem_jacobian_structure(esdirk_problem* problem) {
  return problem ? &problem->structure : nullptr;
}

esdirk_jacobian_structure* esdirk_hybrid_problem_jacobian_structure(
    esdirk_hybrid_problem* problem) {
  return problem ? &problem->structure : nullptr;
}

int esdirk_jacobian_structure_set_bandwidths(esdirk_jacobian_structure* structure, esdirk_int lower,
                                             esdirk_int upper) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure, [&](auto& model) {
    return set_bandwidths(model, structure->message, lower, upper);
  });
}

int esdirk_jacobian_structure_set_pattern(esdirk_jacobian_structure* structure,
                                          const esdirk_int* column_pointers,
                                          const esdirk_int* row_indices, int linear_solver) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure, [&](auto& model) {
    return set_pattern(model, structure->message, column_pointers, row_indices, linear_solver);
  });
}

int esdirk_jacobian_structure_clear(esdirk_jacobian_structure* structure) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure,
                  [&](auto& model) { return clear_structure(model, structure->message); });
}

int esdirk_jacobian_structure_get(const esdirk_jacobian_structure* structure, int* linear_solver,
                                  esdirk_int* lower, esdirk_int* upper, esdirk_int* nonzeros,
                                  esdirk_int* column_pointers, esdirk_int* row_indices,
                                  esdirk_int capacity) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure, [&](const auto& model) {
    get_structure(model, linear_solver, lower, upper, nonzeros);
    if (!column_pointers) return static_cast<int>(ESDIRK_SUCCESS);
    return get_pattern(model, column_pointers, row_indices, capacity);
  });
}

int esdirk_jacobian_structure_set_krylov(esdirk_jacobian_structure* structure, esdirk_int dimension,
                                         int max_restarts, double tolerance,
                                         double tolerance_with_derivatives, esdirk_int block_size) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure, [&](auto& model) {
    return set_krylov(model, structure->message, dimension, max_restarts, tolerance,
                      tolerance_with_derivatives, block_size);
  });
}

int esdirk_jacobian_structure_set_krylov_options(esdirk_jacobian_structure* structure,
                                                 int matrix_free, double sensitivity_tolerance,
                                                 int preconditioner) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  esdirk::KrylovPreconditioner chosen{};
  const int status = structure_call(structure->message, [&] {
    chosen = preconditioner_of(preconditioner, "esdirk_jacobian_structure_set_krylov_options");
  });
  if (status != ESDIRK_SUCCESS) return status;
  return on_model(*structure, [&](auto& model) {
    return set_krylov_options(model, structure->message, matrix_free, sensitivity_tolerance, chosen);
  });
}

int esdirk_jacobian_structure_set_krylov_sensitivity(esdirk_jacobian_structure* structure,
                                                     int step_preconditioner, double error_fraction) {
  if (!structure) return ESDIRK_NULL_ARGUMENT;
  return on_model(*structure, [&](auto& model) {
    return structure_call(structure->message, [&] {
      esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
      settings.sensitivity_step_preconditioner = step_preconditioner != 0;
      settings.sensitivity_error_fraction = error_fraction;
      model.set_krylov_settings(settings);  // throws naming the setting out of range
    });
  });
}

const char* esdirk_jacobian_structure_last_error(const esdirk_jacobian_structure* structure) {
  if (!structure) return "null structure handle";
  return structure->message.c_str();
}

// --- Plain problems: callbacks and the pattern checker --------------------------------------

int esdirk_problem_set_sparse_jacobian(esdirk_problem* problem,
                                       esdirk_sparse_jacobian_fn jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->sparse_jacobian_fn = jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_problem_set_krylov_callbacks(esdirk_problem* problem, esdirk_jacobian_vector_fn product,
                                        esdirk_preconditioner_setup_fn setup,
                                        esdirk_preconditioner_solve_fn solve) {
  return set_krylov_callbacks(problem, product, setup, solve, "esdirk_problem_set_krylov_callbacks");
}

int esdirk_hybrid_problem_set_krylov_callbacks(esdirk_hybrid_problem* problem,
                                               esdirk_hybrid_jacobian_vector_fn product,
                                               esdirk_hybrid_preconditioner_setup_fn setup,
                                               esdirk_preconditioner_solve_fn solve) {
  return set_krylov_callbacks(problem, product, setup, solve, "esdirk_hybrid_problem_set_krylov_callbacks");
}

int esdirk_problem_check_jacobian_pattern(esdirk_problem* problem, double t, const double* x,
                                          const double* z, const double* p, double threshold,
                                          esdirk_int* missing, esdirk_int* rows, esdirk_int* cols,
                                          esdirk_int capacity, esdirk_int* wrong) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  esdirk_capi::CProblem& model = *problem->problem;
  if (!x || (model.nz() > 0 && !z) || (model.np() > 0 && !p)) return ESDIRK_NULL_ARGUMENT;
  return check_pattern(model, problem->structure.message, threshold, missing, rows, cols, capacity,
                       wrong, [&](const esdirk::JacobianCheckOptions& options) {
                         return esdirk::check_jacobian_pattern(
                             model, t, esdirk_capi::in(x, model.nx()),
                             esdirk_capi::in(z, model.nz()), esdirk_capi::in(p, model.np()),
                             options);
                       });
}

// --- Hybrid problems: the callbacks and the checker of each mode ----------------------------

int esdirk_hybrid_problem_set_sparse_jacobian(esdirk_hybrid_problem* problem,
                                              esdirk_hybrid_sparse_jacobian_fn jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->sparse_jacobian_fn = jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_problem_check_jacobian_pattern(esdirk_hybrid_problem* problem, int mode, double t,
                                                 const double* x, const double* z, const double* p,
                                                 const double* mem, double threshold,
                                                 esdirk_int* missing, esdirk_int* rows,
                                                 esdirk_int* cols, esdirk_int capacity,
                                                 esdirk_int* wrong) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  esdirk_capi::CHybridProblem& model = *problem->problem;
  if (!x || (model.nz() > 0 && !z) || (model.np() > 0 && !p) || (model.memory_size() > 0 && !mem))
    return ESDIRK_NULL_ARGUMENT;
  return check_pattern(model, problem->structure.message, threshold, missing, rows, cols, capacity,
                       wrong, [&](const esdirk::JacobianCheckOptions& options) {
                         return esdirk::check_jacobian_pattern(
                             model, mode, t, esdirk_capi::in(x, model.nx()),
                             esdirk_capi::in(z, model.nz()), esdirk_capi::in(p, model.np()),
                             esdirk_capi::in(mem, model.memory_size()), options);
                       });
}

// --- Deprecated (one release): the per-problem structure calls, on the problem's handle ------
// Same statuses and messages as before the structure handle (the same templates and the same
// message string, now the handle's).

int esdirk_problem_set_jacobian_bandwidths(esdirk_problem* problem, esdirk_int lower,
                                           esdirk_int upper) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_set_bandwidths(&problem->structure, lower, upper);
}

int esdirk_problem_set_jacobian_pattern(esdirk_problem* problem, const esdirk_int* column_pointers,
                                        const esdirk_int* row_indices, int linear_solver) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_set_pattern(&problem->structure, column_pointers, row_indices,
                                               linear_solver);
}

int esdirk_problem_set_krylov_settings(esdirk_problem* problem, esdirk_int dimension,
                                       int max_restarts, double tolerance, esdirk_int block_size) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  esdirk_capi::CProblem& model = *problem->problem;
  return set_krylov(model, problem->structure.message, dimension, max_restarts, tolerance,
                    model.jacobian_structure().krylov.tolerance_with_derivatives, block_size);
}

int esdirk_problem_set_krylov_options(esdirk_problem* problem, int matrix_free,
                                      double sensitivity_tolerance) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return set_krylov_options(*problem->problem, problem->structure.message, matrix_free,
                            sensitivity_tolerance, std::nullopt);
}

int esdirk_problem_set_krylov_preconditioner(esdirk_problem* problem, int preconditioner) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  esdirk_capi::CProblem& model = *problem->problem;
  return structure_call(problem->structure.message, [&] {
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;  // the others kept
    settings.preconditioner =
        preconditioner_of(preconditioner, "esdirk_problem_set_krylov_preconditioner");
    model.set_krylov_settings(settings);
  });
}

int esdirk_problem_clear_jacobian_structure(esdirk_problem* problem) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_clear(&problem->structure);
}

int esdirk_problem_get_jacobian_structure(const esdirk_problem* problem, int* linear_solver,
                                          esdirk_int* lower, esdirk_int* upper,
                                          esdirk_int* nonzeros) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_get(&problem->structure, linear_solver, lower, upper, nonzeros,
                                       nullptr, nullptr, 0);
}

int esdirk_problem_get_jacobian_pattern(const esdirk_problem* problem, esdirk_int* column_pointers,
                                        esdirk_int* row_indices, esdirk_int capacity) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return get_pattern(*problem->problem, column_pointers, row_indices, capacity);
}

const char* esdirk_problem_structure_error(const esdirk_problem* problem) {
  if (!problem) return "null problem handle";
  return esdirk_jacobian_structure_last_error(&problem->structure);
}

int esdirk_hybrid_problem_set_jacobian_bandwidths(esdirk_hybrid_problem* problem,
                                                  esdirk_int lower, esdirk_int upper) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_set_bandwidths(&problem->structure, lower, upper);
}

int esdirk_hybrid_problem_set_jacobian_pattern(esdirk_hybrid_problem* problem,
                                               const esdirk_int* column_pointers,
                                               const esdirk_int* row_indices, int linear_solver) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_set_pattern(&problem->structure, column_pointers, row_indices,
                                               linear_solver);
}

int esdirk_hybrid_problem_clear_jacobian_structure(esdirk_hybrid_problem* problem) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_clear(&problem->structure);
}

int esdirk_hybrid_problem_get_jacobian_structure(const esdirk_hybrid_problem* problem,
                                                 int* linear_solver, esdirk_int* lower,
                                                 esdirk_int* upper, esdirk_int* nonzeros) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return esdirk_jacobian_structure_get(&problem->structure, linear_solver, lower, upper, nonzeros,
                                       nullptr, nullptr, 0);
}

int esdirk_hybrid_problem_get_jacobian_pattern(const esdirk_hybrid_problem* problem,
                                               esdirk_int* column_pointers,
                                               esdirk_int* row_indices, esdirk_int capacity) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  return get_pattern(*problem->problem, column_pointers, row_indices, capacity);
}

const char* esdirk_hybrid_problem_structure_error(const esdirk_hybrid_problem* problem) {
  if (!problem) return "null hybrid problem handle";
  return esdirk_jacobian_structure_last_error(&problem->structure);
}

}  // extern "C"
