#pragma once
// esdirk.HybridSolver's binding, shared by hybrid.cpp (the problem, the solver, solve_ivp's
// events) and hybrid_adjoint.cpp (esdirk.HybridAdjoint, which records the solver's runs).

#include <memory>
#include <string>
#include <vector>

#include "callbacks.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/matrix.hpp"

namespace esdirk {
class HybridAdjoint;
}

namespace esdirk::python {

/// esdirk.HybridProblem (hybrid.cpp): Python or compiled callbacks per mode.
class PythonHybridProblem;

/// esdirk.HybridSolver: owns the solver (which refers to the problem) and the arrays the last
/// integrate_to wrote (.t, .x, .z, .Sx, .Sz).
class HybridBinding {
 public:
  HybridBinding(std::shared_ptr<PythonHybridProblem> problem, HybridOptions options);
  ~HybridBinding();
  HybridBinding(const HybridBinding&) = delete;
  HybridBinding& operator=(const HybridBinding&) = delete;

  /// The problem's Python errors, and whether no callback is compiled (the GIL is then held).
  ErrorSlot& errors();
  bool python_only() const;
  /// run_integration with the problem's errors and GIL policy.
  template <class Work>
  auto run(Work&& work) {
    return run_integration(errors(), python_only(), std::forward<Work>(work));
  }

  void initialize(double t0, int mode, const py::object& x0, const py::object& z0,
                  const py::object& p);
  void initialize_sensitivities(const py::object& seed, const py::dict& keywords);
  /// solver.integrate_to(tout), or recorder->integrate_to(tout) when a hybrid adjoint records
  /// the output; raises SolverError on failure (the last good state kept in .t, .x, .z).
  std::string integrate_to(double tout, HybridAdjoint* recorder = nullptr);
  py::list events() const;

  HybridSolver& solver() { return *solver_; }
  const HybridProblem& problem() const;
  double t() const { return t_; }
  py::array_t<double> x() const { return to_array(x_); }
  py::array_t<double> z() const { return to_array(z_); }
  py::object Sx() const { return sensitivities_ ? py::object(to_array(Sx_.cref())) : py::none(); }
  py::object Sz() const { return sensitivities_ ? py::object(to_array(Sz_.cref())) : py::none(); }
  py::object Sp() const {
    return sensitivities_ ? py::object(to_array(solver_->parameter_sensitivity())) : py::none();
  }

 private:
  std::shared_ptr<PythonHybridProblem> problem_;
  std::unique_ptr<HybridSolver> solver_;
  std::vector<double> x_, z_;
  DenseMatrix Sx_, Sz_;
  bool sensitivities_ = false;
  double t_ = 0.0;
};

}  // namespace esdirk::python
