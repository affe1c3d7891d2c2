#pragma once
// The problem: a semi-explicit DAE of index 1 with parameters p,
//
//     x' = f(t, x, z, p)     nx differential states
//     0  = g(t, x, z, p)     nz algebraic states, dg/dz nonsingular
//
// nz = 0 is an ODE. Callbacks return 0 on success, > 0 for a recoverable failure (the
// integrator retries with a smaller step) and < 0 for a fatal one (the integration stops).
// Matrices are column-major. The Jacobian is the (nx+nz) x (nx+nz) matrix
//
//     J = [ f_x  f_z ]      rows: the nx equations of f, then the nz equations of g
//         [ g_x  g_z ]      cols: the nx states x, then the nz states z
//
// and the parameter Jacobian the (nx+nz) x np matrix [f_p; g_p].

#include <functional>
#include <string>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class Problem;
namespace internal {
// The Krylov stage system whose setup the problem's preconditioner holds (null before the
// first): a stage system set up before another redoes its setup before it solves again.
const void*& preconditioner_owner(Problem& problem);
}  // namespace internal

class ESDIRK_API Problem {
 public:
  /// The largest nx + nz and nx + np supported (2^26): every size and product of sizes the
  /// library forms stays inside its integer types.
  static constexpr int max_size = 1 << 26;

  /// Throws std::invalid_argument unless nx >= 1, nz >= 0, np >= 0.
  Problem(int nx, int nz, int np);
  virtual ~Problem() = default;

  int nx() const { return nx_; }
  int nz() const { return nz_; }
  int np() const { return np_; }
  /// nx + nz, the size of the Jacobian and of the iteration matrix.
  int size() const { return nx_ + nz_; }

  /// Evaluates f (size nx) and g (size nz) at one point. Called with g empty when nz = 0.
  virtual int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f,
                       Vector g) = 0;

  /// True if jacobian() is implemented; otherwise it is formed by finite differences.
  virtual bool has_jacobian() const { return false; }
  /// Writes J (see above). Only called when has_jacobian() is true.
  virtual int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J);

  /// True if parameter_jacobian() is implemented; otherwise finite differences are used.
  virtual bool has_parameter_jacobian() const { return false; }
  /// Writes [f_p; g_p]. Only called when has_parameter_jacobian() is true.
  virtual int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                 MatrixRef Jp);

  /// True if parameter_vjp() is implemented: exact products w^T [f_p; g_p] without forming
  /// the parameter Jacobian (ad::ModelProblem, by reverse mode). The adjoint then forms its
  /// parameter terms by one product per stage and adjoint column, whatever np.
  virtual bool has_parameter_vjp() const { return false; }
  /// out = [f_p; g_p]^T w (w: nx + nz values, out: np). Only called when has_parameter_vjp()
  /// is true. Returns 0, or a failure code as the other callbacks.
  virtual int parameter_vjp(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector w,
                            Vector out);

  // --- Banded and sparse Jacobians (doc/linear-solvers-guide.md) -----------------------------
  // Declare the structure before an Integrator is made for the problem. Without a declaration
  // J is dense and factored by dense LU.

  /// J is banded: J(i, j) = 0 unless -upper <= i - j <= lower; the band LU back-end. Throws
  /// std::invalid_argument unless 0 <= lower, upper < nx + nz.
  void set_jacobian_bandwidths(int lower, int upper);
  /// J has the given sparsity pattern (n x n, n = nx + nz), factored by `solver`: sparse (KLU),
  /// banded (with the pattern's bandwidths) or dense (the pattern then only serves the
  /// coloured finite differences). Throws std::invalid_argument if the size is wrong.
  void set_jacobian_pattern(SparsityPattern pattern,
                            LinearSolverKind solver = LinearSolverKind::sparse);
  /// The settings of LinearSolverKind::krylov (kept with the structure; a later
  /// set_jacobian_pattern starts from the defaults again). Throws std::invalid_argument naming
  /// the setting out of range (validate_krylov_settings).
  void set_krylov_settings(const KrylovSettings& settings);
  /// Back to a dense Jacobian and the dense LU.
  void clear_jacobian_structure() { structure_ = JacobianStructure::dense(nx_ + nz_); }
  /// The declared structure (dense by default).
  const JacobianStructure& jacobian_structure() const { return structure_; }

  /// True if sparse_jacobian() is implemented (needs a declared pattern or bandwidths).
  /// Without it a banded or sparse J is formed by coloured finite differences.
  virtual bool has_sparse_jacobian() const { return false; }
  /// Writes the values of J on its pattern (J.at(i, j), or J.values in pattern order); entries
  /// not written are zero. Only called when has_sparse_jacobian() is true.
  virtual int sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                              SparseMatrixRef J);

  // --- Newton-Krylov (LinearSolverKind::krylov; doc/linear-solvers-guide.md) ---------------

  /// True if jacobian_vector_product() is implemented. Used by the Krylov stage solver with
  /// KrylovSettings::matrix_free (otherwise a difference quotient of f and g gives J v).
  virtual bool has_jacobian_vector_product() const { return false; }
  /// out = J v at (t, x, z, p) (v, out: nx + nz values, not overlapping). Only called when
  /// has_jacobian_vector_product() is true. Returns 0, or a failure code as the other
  /// callbacks (a failed product fails the GMRES solve: the step is retried).
  virtual int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                                      ConstVector v, Vector out);

  /// True if the problem brings its own preconditioner for the Krylov stage solver (it then
  /// replaces the built-in block-Jacobi one), as SUNDIALS' psetup/psolve.
  virtual bool has_preconditioner() const { return false; }
  /// Prepares P, an approximation of M = E - h_gamma J (E: identity on the nx differential
  /// rows, zero on the algebraic ones), at the point (t, x, z, p) where J was formed; `J` holds
  /// J on the declared pattern (analytic or coloured differences; with
  /// KrylovSettings::matrix_free, the pattern only this preconditioner needs). Called at every
  /// setup of the stage system (Statistics::preconditioner_setups), not inside GMRES. Returns
  /// 0, or a failure code: the solves with this setup then fail, and the stage recovers as from
  /// a GMRES failure (a new J and setup, then a smaller step; Status::linear_solver_failures
  /// when that keeps failing).
  virtual int preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                                   const JacobianMatrix& J, double h_gamma);
  /// out = P^{-1} r, or P^{-T} r if `transpose` (the transposed stage solves), with the P of
  /// the last setup (r, out: nx + nz values, not overlapping). Returns 0, or a failure code (the
  /// GMRES solve fails and the step is retried). A non-finite out fails the solve too.
  virtual int preconditioner_solve(ConstVector r, Vector out, bool transpose);

  /// Names used in diagnostics (the Jacobian checker). Defaults: "x[i]", "z[i]", "p[i]",
  /// "f[i]", "g[i]".
  virtual std::string state_name(int i) const;      ///< i in [0, nx+nz)
  virtual std::string equation_name(int i) const;   ///< i in [0, nx+nz)
  virtual std::string parameter_name(int i) const;  ///< i in [0, np)

  /// What the problem knows about its last failed evaluation, or "" (the default): ad::ModelProblem
  /// names the model function, equation and argument; the C API's problem its failed Krylov
  /// callback. The integrator appends it to the message of a callback or linear-solver failure.
  virtual std::string failure_note() const { return {}; }

 private:
  int nx_;
  int nz_;
  int np_;
  JacobianStructure structure_;
  friend const void*& internal::preconditioner_owner(Problem& problem);
  const void* preconditioner_owner_ = nullptr;
};

/// A Problem defined by callables (lambdas) instead of a subclass:
///
///     esdirk::FunctionProblem problem(2, 0, 1,
///         [](double t, auto x, auto z, auto p, auto f) { f[0] = x[1]; ...; return 0; });
///     problem.set_jacobian([](double t, auto x, auto z, auto p, esdirk::MatrixRef J) {...});
class ESDIRK_API FunctionProblem : public Problem {
 public:
  using Rhs = std::function<int(double t, ConstVector x, ConstVector z, ConstVector p, Vector f)>;
  using Constraints =
      std::function<int(double t, ConstVector x, ConstVector z, ConstVector p, Vector g)>;
  using JacobianFn =
      std::function<int(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J)>;
  using SparseJacobianFn =
      std::function<int(double t, ConstVector x, ConstVector z, ConstVector p, SparseMatrixRef J)>;
  using JacobianVectorFn = std::function<int(double t, ConstVector x, ConstVector z,
                                             ConstVector p, ConstVector v, Vector out)>;
  using PreconditionerSetupFn = std::function<int(double t, ConstVector x, ConstVector z,
                                                  ConstVector p, const JacobianMatrix& J,
                                                  double h_gamma)>;
  using PreconditionerSolveFn = std::function<int(ConstVector r, Vector out, bool transpose)>;

  /// `g` may be empty only when nz = 0.
  FunctionProblem(int nx, int nz, int np, Rhs f, Constraints g = {});

  FunctionProblem& set_jacobian(JacobianFn jacobian);
  FunctionProblem& set_parameter_jacobian(JacobianFn parameter_jacobian);
  /// The analytic J on the declared pattern (see Problem::sparse_jacobian).
  FunctionProblem& set_sparse_jacobian(SparseJacobianFn jacobian);
  /// The exact J v (see Problem::jacobian_vector_product).
  FunctionProblem& set_jacobian_vector_product(JacobianVectorFn product);
  /// The Krylov stage solver's preconditioner (see Problem::preconditioner_setup and
  /// preconditioner_solve). Throws std::invalid_argument unless both or neither are given.
  FunctionProblem& set_preconditioner(PreconditionerSetupFn setup, PreconditionerSolveFn solve);

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override;
  bool has_jacobian() const override { return static_cast<bool>(jacobian_); }
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override;
  bool has_parameter_jacobian() const override { return static_cast<bool>(parameter_jacobian_); }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                         MatrixRef Jp) override;
  bool has_sparse_jacobian() const override { return static_cast<bool>(sparse_jacobian_); }
  int sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                      SparseMatrixRef J) override;
  bool has_jacobian_vector_product() const override { return static_cast<bool>(product_); }
  int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                              ConstVector v, Vector out) override;
  bool has_preconditioner() const override { return static_cast<bool>(preconditioner_solve_); }
  int preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                           const JacobianMatrix& J, double h_gamma) override;
  int preconditioner_solve(ConstVector r, Vector out, bool transpose) override;

 private:
  Rhs f_;
  Constraints g_;
  JacobianFn jacobian_;
  JacobianFn parameter_jacobian_;
  SparseJacobianFn sparse_jacobian_;
  JacobianVectorFn product_;
  PreconditionerSetupFn preconditioner_setup_;
  PreconditionerSolveFn preconditioner_solve_;
};

}  // namespace esdirk
