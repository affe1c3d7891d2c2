#pragma once
// Conservation-law diagnostics of an adjoint run (Tran & Leok §2-3; tests T2, T6,
// T11): the quadratic invariant <p_n, dq_n>, the presymplectic form of the one-step map, the
// Hamiltonian and a symmetry's momentum.

#include <functional>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/geometric/geometric_adjoint.hpp"

namespace esdirk::geometric {

/// The largest |<p_n, dq_n> - <p_0, dq_0>| over the run, absolute and relative to
/// max_n |p_n| * max_n |dq_n| (max-norms, times nx). Needs backward() (without running cost:
/// with one the pairing changes by the cost's derivative, eq. 3.5) and tangent().
struct Drift {
  double absolute = 0.0;
  double relative = 0.0;
  int worst_step = 0;  ///< the n of the largest deviation
};
ESDIRK_API Drift pairing_drift(const GeometricAdjoint& run);

/// The Hamiltonian H_n = <p_n, f(t_n, q_n, u_n)> (the constraint term <lambda, phi> vanishes
/// at consistent points): its drift over the run. Only approximately conserved by the
/// discrete map (O(h^p)): an accuracy diagnostic. Throws std::runtime_error if f fails.
ESDIRK_API Drift hamiltonian_drift(const GeometricAdjoint& run);

/// The momentum <p_n, g(q_n)> of a symmetry generator g (nx -> nx, [g, f] = 0; Tran & Leok
/// Prop. 2.4): exactly conserved by any Runge-Kutta map when g is linear (T11).
ESDIRK_API Drift momentum_drift(const GeometricAdjoint& run,
                                const std::function<void(ConstVector q, Vector g)>& generator);

/// The one-step map M: (q0, p0) -> (q1, p1) (2nx x 2nx, column-major) of one Type II step and
/// its presymplectic defect max |M^T J M - J|, J = [[0, I], [-I, 0]]: the presymplectic form
/// dq ^ dp restricted to the differential variables (the algebraic u, lambda are in its
/// kernel; Tran & Leok §2.2). M is formed from the derivatives of the Type II map
/// (q0, p1) -> (q1, p0) by fourth-order central differences with increments
/// `increment` * (1 + |x|), each evaluation a full step solved to the step's tolerance.
struct OneStepMap {
  Status status = Status::success;
  std::vector<double> M;  ///< 2nx x 2nx, column-major
  double defect = 0.0;    ///< max |M^T J M - J|
};
ESDIRK_API OneStepMap one_step_map(TypeTwoStep& step, double t, double h, ConstVector q0,
                                   ConstVector u_guess, ConstVector p1, double increment = 1e-3);

}  // namespace esdirk::geometric
