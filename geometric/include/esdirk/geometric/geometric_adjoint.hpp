#pragma once
// The adjoint system over many steps: a forward sweep that keeps every step's stages, then the
// Type II steps composed backwards from p_N (Tran & Leok §3.3: p_N = grad C(q_N) gives p_0 =
// grad_{q0} C(q_N) of the discrete map; with a running cost and p_N = 0, p_0 is the gradient
// of sum_n h sum_i b_i L(Q_n^i, U_n^i)). Fixed step ends, chosen by the caller.
//
//     esdirk::geometric::GeometricAdjoint adjoint(problem, esdirk::geometric::pghvi1());
//     adjoint.forward(times, q0, u0_guess);
//     adjoint.backward(grad_C);                 // adjoint.adjoint_state(0) = dC/dq0
//     adjoint.tangent(dq0);                     // <p_n, dq_n> is the same for every n

#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/geometric/type_two_step.hpp"

namespace esdirk::geometric {

class ESDIRK_API GeometricAdjoint {
 public:
  /// Throws like TypeTwoStep's constructor.
  GeometricAdjoint(Problem& problem, PrkPair pair, StepOptions options = {});

  void set_parameters(ConstVector p);
  /// Steps from times[0] through times[1], ... (at least two strictly monotone times). q0 has
  /// nx values; u0_guess (nz) is made consistent (phi(t0, q0, u0) = 0) and starts the stage
  /// solves of the first step. Keeps s (nx + nz) values per step. Returns the first failing
  /// step's status (message() says which); the steps before it are kept.
  Status forward(ConstVector times, ConstVector q0, ConstVector u0_guess);
  /// The backward sweep from p_N (nx): p_n for every n. With `running`, the augmented step
  /// (and running_quadrature() the discrete cost). Needs a complete forward run.
  Status backward(ConstVector pN, const RunningCost* running = nullptr);
  /// The tangents dq_n of the discrete map (3.8) from dq_0, for every n (no failure
  /// possible after a complete forward run).
  void tangent(ConstVector dq0);

  int steps() const { return steps_; }
  double time(int n) const { return times_[static_cast<std::size_t>(n)]; }
  ConstVector state(int n) const { return column(q_, n, nx_); }           ///< q_n
  ConstVector algebraic(int n) const { return column(u_, n, nz_); }       ///< u_n
  ConstVector adjoint_state(int n) const { return column(p_, n, nx_); }   ///< p_n
  ConstVector tangent_state(int n) const { return column(dq_, n, nx_); }  ///< dq_n
  /// P_n^i and Lambda_n^i (stage i of step n) of the last backward sweep, normalized as
  /// TypeTwoStep::stage_adjoint (kappa^i itself where b_i = 0). With them, the gradient of a
  /// discrete cost with respect to stage controls is h b_i (grad_u L + f_u^T P^i + phi_u^T
  /// Lambda^i) (Tran & Leok).
  ConstVector stage_adjoint(int n, int i) const {
    return {stage_p_.data() + (static_cast<std::size_t>(n) * stages_ + i) * nx_,
            static_cast<std::size_t>(nx_)};
  }
  ConstVector stage_multiplier(int n, int i) const {
    return {stage_lambda_.data() + (static_cast<std::size_t>(n) * stages_ + i) * nz_,
            static_cast<std::size_t>(nz_)};
  }
  /// sum_n h_n sum_i b_i L(Q_n^i, U_n^i) of the last backward() with a running cost value.
  double running_quadrature() const { return running_quadrature_; }
  double max_forward_defect() const {
    return max_forward_defect_;
  }  ///< largest constraint defect of a step
  double max_adjoint_defect() const {
    return max_adjoint_defect_;
  }  ///< largest (3.9f) defect of a step
  const std::string& message() const { return step_.message(); }
  const Statistics& statistics() const { return step_.statistics(); }
  TypeTwoStep& step() { return step_; }
  const TypeTwoStep& step() const { return step_; }
  Problem& problem() const { return step_.problem(); }

 private:
  static ConstVector column(const std::vector<double>& v, int n, int rows) {
    return {v.data() + static_cast<std::size_t>(n) * rows, static_cast<std::size_t>(rows)};
  }
  TypeTwoStep step_;
  int nx_, nz_, stages_, unknowns_per_step_;
  int steps_ = 0;
  bool complete_ = false;
  std::vector<double> times_, q_, u_, p_, dq_, unknowns_, stage_p_, stage_lambda_;
  double running_quadrature_ = 0.0, max_forward_defect_ = 0.0, max_adjoint_defect_ = 0.0;
};

}  // namespace esdirk::geometric
