#pragma once
// A plain fixed-step collocation integrator with the exact derivative of its discrete map, for
// the shooting-interval benchmark: the way NMPC codes with an implicit Runge-Kutta integrator
// (acados' IRK) integrate one interval. 3-stage Radau IIA (order 5, stage order 3, the
// default) or 2- / 3-stage Gauss (order 4 / 6). Semi-explicit index-1 DAEs
// x' = f(t,x,z,p), 0 = g(t,x,z,p) through esdirk::Problem (analytic Jacobians needed).
//
// One step of size h solves for the stage increments W_i = X_i - x_n and the stage algebraic
// values Z_i (i = 1..s)
//
//     R_i = [ W_i - h sum_j a_ij f(t_n + c_j h, x_n + W_j, Z_j, p) ]  = 0
//           [ g(t_n + c_i h, x_n + W_i, Z_i, p)                     ]
//
// by simplified Newton: the iteration matrix is the exact Jacobian dR/d(W, Z) of the previous
// step (its stage Jacobians; the first step takes J(t_0, x_0, z_0) at every stage), so a step
// costs one LU of the sn x sn matrix. x_{n+1} = x_n + sum_j d_j W_j with d = b^T A^-1 (Radau
// IIA, stiffly accurate: x_n + W_3). After the Newton iteration converges the stage Jacobians
// J_i and parameter Jacobians at the converged stages form the exact dR/d(W, Z), its LU gives
// the derivative of the discrete map,
//
//     dR/d(W, Z) D = -(dR/dx_n S_n + dR/dp P),    S_{n+1} = S_n + sum_j d_j D_{W_j},
//
// and it is the next step's iteration matrix. z_n enters a step only as the Newton start of
// the Z_i, so the map x_n -> x_{n+1} does not depend on it.
//
// Directions: the nx unit initial states and the np scaled parameters p_k e_k, i.e.
// S = [dx/dx_0, dx/dp diag(p)]; Sz, the same derivative of z at the end, is that of the last
// stage's Z_s (Radau IIA: the algebraic states of a stiffly accurate step). Every workspace is
// sized by the constructor; integrate() does not allocate.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "esdirk/problem.hpp"

namespace bench {

/// A mesh of [t0, t1] whose steps grow geometrically from h0 by `ratio` up to h_max (a
/// reference through a start-up layer).
inline std::vector<double> graded_mesh(double t0, double t1, double h0, double ratio, double h_max) {
  std::vector<double> mesh = {t0};
  double h = h0;
  while (mesh.back() + 1.5 * h < t1) {
    mesh.push_back(mesh.back() + h);
    h = std::min(h * ratio, h_max);
  }
  mesh.push_back(t1);
  return mesh;
}

/// The collocation methods of the benchmark's fixed-step contenders.
enum class Collocation {
  radau_iia3,  ///< 3-stage Radau IIA: order 5, stage order 3, stiffly accurate, L-stable
  gauss2,      ///< 2-stage Gauss: order 4, stage order 2, A-stable (not L-stable)
  gauss3,      ///< 3-stage Gauss: order 6, stage order 3, A-stable (not L-stable)
};

class RadauIIA {
 public:
  explicit RadauIIA(esdirk::Problem& problem, Collocation method = Collocation::radau_iia3)
      : problem_(problem), nx_(problem.nx()), nz_(problem.nz()), np_(problem.np()), n_(nx_ + nz_),
        s_(method == Collocation::gauss2 ? 2 : 3), m_(s_ * n_), ns_(nx_ + np_) {
    set_tableau(method);
    auto size = [](int k) { return static_cast<std::size_t>(k); };
    x_.resize(size(nx_));
    xs_.resize(size(nx_));
    z_.resize(size(nz_));
    p_.resize(size(np_));
    U_.resize(size(m_));
    R_.resize(size(m_));
    F_.resize(size(s_ * n_));
    J_.resize(size(s_ * n_ * n_));
    Jp_.resize(size(s_ * n_ * std::max(np_, 1)));
    M_.resize(size(m_ * m_));
    pivots_.resize(size(m_));
    S_.resize(size(nx_ * ns_));
    Sz_.resize(size(nz_ * ns_));
    G_.resize(size(s_ * n_ * ns_));
    D_.resize(size(m_ * ns_));
    floor_.assign(size(n_), 1e-10);
  }

  /// Absolute floors of the Newton test's scale per state (x, then z): |delta_k| is measured
  /// relative to max(|v_k|, floor_k). Default 1e-10 for every state.
  void set_scale_floors(std::vector<double> floors) { floor_ = std::move(floors); }
  /// Newton iterations a step may take (default 20). A reference through a layer whose steps
  /// converge slowly (the previous step's matrix, a poor predictor) takes more.
  void set_max_newton_iterations(int iterations) { max_newton_iterations_ = iterations; }
  /// When a step's Newton iteration fails: retry it from the constant predictor with the
  /// iteration matrix of J(t_n, x_n, z_n), and split it into halves where that fails too (off
  /// by default: the benchmark's fixed-step contenders fail instead, as a code without that
  /// recovery; on for references, which want the flow rather than one mesh's map).
  void set_retry_with_fresh_jacobian(bool retry) { retry_ = retry; }

  struct Counters {
    long steps = 0, newton_iterations = 0, lus = 0, f_evaluations = 0, jacobians = 0, retries = 0;
  };

  /// Integrates [t0, t1] in `steps` equal steps from x0 (z made consistent from z_guess) with
  /// parameters p. The Newton iteration of a step stops when its estimated remaining error
  /// (rate-based, as RADAU5) is <= newton_tol in the scaled max-norm. Returns false with
  /// message() if Newton diverges or a callback fails.
  bool integrate(double t0, double t1, int steps, esdirk::ConstVector x0, esdirk::ConstVector z_guess,
                 esdirk::ConstVector p, double newton_tol, bool sensitivities = true) {
    const double h = (t1 - t0) / steps;
    return run([&](int k) { return k == steps ? t1 : t0 + k * h; }, steps, x0, z_guess, p, newton_tol, sensitivities);
  }
  /// The same on a given mesh t_0 < t_1 < ... (for references through fast layers). The
  /// Newton matrix of a step is the previous step's exact one, so neighbouring steps should
  /// differ little in size.
  bool integrate(esdirk::ConstVector mesh, esdirk::ConstVector x0, esdirk::ConstVector z_guess, esdirk::ConstVector p,
                 double newton_tol, bool sensitivities = true) {
    return run([&](int k) { return mesh[static_cast<std::size_t>(k)]; }, static_cast<int>(mesh.size()) - 1, x0,
               z_guess, p, newton_tol, sensitivities);
  }

  const std::vector<double>& x() const { return x_; }
  const std::vector<double>& z() const { return z_; }
  /// nx x (nx + np), column-major: [dx/dx_0, dx/dp diag(p)].
  const std::vector<double>& S() const { return S_; }
  /// nz x (nx + np), column-major: the same derivative of z at the end (needs a step).
  const std::vector<double>& Sz() const { return Sz_; }
  const Counters& counters() const { return counters_; }
  const std::string& message() const { return message_; }

 private:
  static std::size_t idx(int i, int j, int ld) { return static_cast<std::size_t>(i + j * ld); }
  int last() const { return (s_ - 1) * n_; }  // offset of the last stage in U_, F_

  void set_tableau(Collocation method) {
    if (method == Collocation::radau_iia3) {
      const double s6 = std::sqrt(6.0);
      const double c[3] = {(4.0 - s6) / 10.0, (4.0 + s6) / 10.0, 1.0};
      const double a[3][3] = {{(88.0 - 7.0 * s6) / 360.0, (296.0 - 169.0 * s6) / 1800.0, (-2.0 + 3.0 * s6) / 225.0},
                              {(296.0 + 169.0 * s6) / 1800.0, (88.0 + 7.0 * s6) / 360.0, (-2.0 - 3.0 * s6) / 225.0},
                              {(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0}};
      for (int i = 0; i < 3; ++i) {
        c_[i] = c[i];
        for (int j = 0; j < 3; ++j) a_[i][j] = a[i][j];
      }
      d_[2] = 1.0;  // stiffly accurate: x_{n+1} = x_n + W_3
      return;
    }
    double b[3] = {};
    if (method == Collocation::gauss2) {
      const double r3 = std::sqrt(3.0) / 6.0;
      c_[0] = 0.5 - r3;
      c_[1] = 0.5 + r3;
      a_[0][0] = 0.25, a_[0][1] = 0.25 - r3;
      a_[1][0] = 0.25 + r3, a_[1][1] = 0.25;
      b[0] = b[1] = 0.5;
    } else {
      const double r15 = std::sqrt(15.0);
      c_[0] = 0.5 - r15 / 10.0, c_[1] = 0.5, c_[2] = 0.5 + r15 / 10.0;
      const double a[3][3] = {{5.0 / 36.0, 2.0 / 9.0 - r15 / 15.0, 5.0 / 36.0 - r15 / 30.0},
                              {5.0 / 36.0 + r15 / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r15 / 24.0},
                              {5.0 / 36.0 + r15 / 30.0, 2.0 / 9.0 + r15 / 15.0, 5.0 / 36.0}};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a_[i][j] = a[i][j];
      b[0] = b[2] = 5.0 / 18.0;
      b[1] = 4.0 / 9.0;
    }
    // d = A^-T b (Gaussian elimination with partial pivoting on A^T, s <= 3).
    double T[3][4] = {};
    for (int i = 0; i < s_; ++i) {
      for (int j = 0; j < s_; ++j) T[i][j] = a_[j][i];
      T[i][3] = b[i];
    }
    for (int k = 0; k < s_; ++k) {
      int p = k;
      for (int i = k + 1; i < s_; ++i)
        if (std::abs(T[i][k]) > std::abs(T[p][k])) p = i;
      for (int j = 0; j < 4; ++j) std::swap(T[k][j], T[p][j]);
      for (int i = k + 1; i < s_; ++i) {
        const double f = T[i][k] / T[k][k];
        for (int j = k; j < 4; ++j) T[i][j] -= f * T[k][j];
      }
    }
    for (int i = s_ - 1; i >= 0; --i) {
      double v = T[i][3];
      for (int j = i + 1; j < s_; ++j) v -= T[i][j] * d_[j];
      d_[i] = v / T[i][i];
    }
  }

  template <class Mesh>
  bool run(Mesh mesh, int steps, esdirk::ConstVector x0, esdirk::ConstVector z_guess, esdirk::ConstVector p,
           double newton_tol, bool sensitivities) {
    counters_ = {};
    std::copy(x0.begin(), x0.end(), x_.begin());
    std::copy(z_guess.begin(), z_guess.end(), z_.begin());
    std::copy(p.begin(), p.end(), p_.begin());
    const double t0 = mesh(0);
    if (!consistent_z(t0)) return false;
    std::fill(S_.begin(), S_.end(), 0.0);
    std::fill(Sz_.begin(), Sz_.end(), 0.0);
    for (int k = 0; k < nx_; ++k) S_[idx(k, k, nx_)] = 1.0;
    // The first iteration matrix: J(t0, x0, z0) at every stage.
    if (!jacobian_at(t0, x_.data(), z_.data(), J_.data())) return false;
    for (int i = 1; i < s_; ++i) std::copy(J_.begin(), J_.begin() + n_ * n_, J_.begin() + i * n_ * n_);
    if (!factor_iteration_matrix(mesh(1) - t0)) return false;
    // f_n for the predictor: evaluated at the start, then the last Newton residual of the
    // previous step's last stage.
    if (!evaluate(t0, x_.data(), z_.data(), F_.data() + last())) return false;
    for (int step = 0; step < steps; ++step) {
      const double t = mesh(step), h = mesh(step + 1) - t;
      // Predictor: W_i = c_i h f_n, Z_i = z_n.
      for (int i = 0; i < s_; ++i)
        for (int k = 0; k < n_; ++k)
          U_[static_cast<std::size_t>(i * n_ + k)] =
              k < nx_ ? c_[i] * h * F_[static_cast<std::size_t>(last() + k)] : z_[static_cast<std::size_t>(k - nx_)];
      if (newton(t, h, newton_tol)) {
        if (!finish_step(t, h, sensitivities)) return false;
      } else if (!(retry_ && split_step(t, h, newton_tol, sensitivities, 0))) {
        return false;
      }
    }
    return true;
  }

  // After a converged step: the sensitivities, then the new x and z.
  bool finish_step(double t, double h, bool sensitivities) {
    if (sensitivities) {
      if (!stage_jacobians(t, h)) return false;
      if (!factor_iteration_matrix(h)) return false;
      propagate_sensitivities(h);
    }
    // x_{n+1} = x_n + sum_j d_j W_j (d = b^T A^-1; Radau IIA: W_3); z: the last stage's (exact
    // for Radau IIA, stiffly accurate; for Gauss only the next step's Newton start).
    for (int k = 0; k < nx_; ++k) {
      double w = 0.0;
      for (int j = 0; j < s_; ++j) w += d_[j] * U_[static_cast<std::size_t>(j * n_ + k)];
      x_[static_cast<std::size_t>(k)] += w;
    }
    for (int k = 0; k < nz_; ++k) z_[static_cast<std::size_t>(k)] = U_[static_cast<std::size_t>(last() + nx_ + k)];
    ++counters_.steps;
    return true;
  }

  // A step whose Newton iteration failed: retried from the constant predictor with the
  // iteration matrix of J(t_n, x_n, z_n); if that fails too, as two halves (recursively, up
  // to 2^12 pieces). The map is then no longer that of the given mesh: for references only.
  bool split_step(double t, double h, double newton_tol, bool sensitivities, int depth) {
    if (!jacobian_at(t, x_.data(), z_.data(), J_.data())) return false;
    for (int i = 1; i < s_; ++i) std::copy(J_.begin(), J_.begin() + n_ * n_, J_.begin() + i * n_ * n_);
    if (!factor_iteration_matrix(h)) return false;
    for (int i = 0; i < s_; ++i)
      for (int k = 0; k < n_; ++k)
        U_[static_cast<std::size_t>(i * n_ + k)] = k < nx_ ? 0.0 : z_[static_cast<std::size_t>(k - nx_)];
    ++counters_.retries;
    if (newton(t, h, newton_tol)) return finish_step(t, h, sensitivities);
    if (depth >= 12) return false;
    return split_step(t, 0.5 * h, newton_tol, sensitivities, depth + 1) &&
           split_step(t + 0.5 * h, 0.5 * h, newton_tol, sensitivities, depth + 1);
  }

  bool evaluate(double t, const double* x, const double* z, double* out) {
    ++counters_.f_evaluations;
    const int code = problem_.evaluate(t, {x, static_cast<std::size_t>(nx_)}, {z, static_cast<std::size_t>(nz_)}, p_,
                                       {out, static_cast<std::size_t>(nx_)}, {out + nx_, static_cast<std::size_t>(nz_)});
    for (int k = 0; k < n_; ++k)
      if (!std::isfinite(out[k])) return fail("non-finite f or g at t = " + std::to_string(t));
    return code == 0 || fail("the model failed at t = " + std::to_string(t));
  }
  bool jacobian_at(double t, const double* x, const double* z, double* J) {
    ++counters_.jacobians;
    const int code = problem_.jacobian(t, {x, static_cast<std::size_t>(nx_)}, {z, static_cast<std::size_t>(nz_)}, p_,
                                       {J, n_, n_, n_});
    return code == 0 || fail("the Jacobian failed at t = " + std::to_string(t));
  }
  bool fail(std::string message) {
    message_ = std::move(message);
    return false;
  }

  // z0: Newton on g(t0, x0, z) = 0 with g_z from the Jacobian.
  bool consistent_z(double t0) {
    if (nz_ == 0) return true;
    for (int iteration = 0; iteration < 50; ++iteration) {
      if (!evaluate(t0, x_.data(), z_.data(), F_.data())) return false;
      double change = 0.0;
      if (!jacobian_at(t0, x_.data(), z_.data(), J_.data())) return false;
      // g_z into M_ (nz x nz), -g into R_.
      for (int j = 0; j < nz_; ++j)
        for (int i = 0; i < nz_; ++i) M_[idx(i, j, nz_)] = J_[idx(nx_ + i, nx_ + j, n_)];
      for (int i = 0; i < nz_; ++i) R_[static_cast<std::size_t>(i)] = -F_[static_cast<std::size_t>(nx_ + i)];
      if (!lu(M_.data(), nz_)) return fail("singular g_z at t0");
      solve(M_.data(), nz_, R_.data());
      for (int i = 0; i < nz_; ++i) {
        z_[static_cast<std::size_t>(i)] += R_[static_cast<std::size_t>(i)];
        change = std::max(change, std::abs(R_[static_cast<std::size_t>(i)]) /
                                      std::max(std::abs(z_[static_cast<std::size_t>(i)]), floor_[static_cast<std::size_t>(nx_ + i)]));
      }
      if (change < 1e-13) return true;
    }
    return fail("no consistent z at t0");
  }

  // M = dR/d(W, Z) from the stage Jacobians J_i, factored in place.
  bool factor_iteration_matrix(double h) {
    std::fill(M_.begin(), M_.end(), 0.0);
    for (int i = 0; i < s_; ++i)
      for (int j = 0; j < s_; ++j) {
        const double* Jj = J_.data() + j * n_ * n_;
        for (int col = 0; col < n_; ++col)
          for (int row = 0; row < nx_; ++row)
            M_[idx(i * n_ + row, j * n_ + col, m_)] = (i == j && row == col ? 1.0 : 0.0) - h * a_[i][j] * Jj[idx(row, col, n_)];
      }
    for (int i = 0; i < s_; ++i) {
      const double* Ji = J_.data() + i * n_ * n_;
      for (int col = 0; col < n_; ++col)
        for (int row = nx_; row < n_; ++row) M_[idx(i * n_ + row, i * n_ + col, m_)] = Ji[idx(row, col, n_)];
    }
    ++counters_.lus;
    return lu(M_.data(), m_) || fail("singular iteration matrix");
  }

  bool newton(double t, double h, double tol) {
    double previous = 0.0, eta = 1.0;
    for (int iteration = 0; iteration < max_newton_iterations_; ++iteration) {
      // Residual at the current stages.
      for (int i = 0; i < s_; ++i) {
        for (int k = 0; k < nx_; ++k) work_x_(k) = x_[static_cast<std::size_t>(k)] + U_[static_cast<std::size_t>(i * n_ + k)];
        if (!evaluate(t + c_[i] * h, xs_.data(), U_.data() + i * n_ + nx_, F_.data() + i * n_)) return false;
      }
      for (int i = 0; i < s_; ++i) {
        for (int k = 0; k < nx_; ++k) {
          double s = 0.0;
          for (int j = 0; j < s_; ++j) s += a_[i][j] * F_[static_cast<std::size_t>(j * n_ + k)];
          R_[static_cast<std::size_t>(i * n_ + k)] = -(U_[static_cast<std::size_t>(i * n_ + k)] - h * s);
        }
        for (int k = nx_; k < n_; ++k) R_[static_cast<std::size_t>(i * n_ + k)] = -F_[static_cast<std::size_t>(i * n_ + k)];
      }
      solve(M_.data(), m_, R_.data());
      ++counters_.newton_iterations;
      double norm = 0.0;
      for (int i = 0; i < s_; ++i)
        for (int k = 0; k < n_; ++k) {
          const std::size_t at = static_cast<std::size_t>(i * n_ + k);
          U_[at] += R_[at];
          const double value = k < nx_ ? x_[static_cast<std::size_t>(k)] + U_[at] : U_[at];
          norm = std::max(norm, std::abs(R_[at]) / std::max(std::abs(value), floor_[static_cast<std::size_t>(k)]));
        }
      if (!std::isfinite(norm)) return fail("Newton diverged (non-finite) at t = " + std::to_string(t));
      if (iteration > 0) {
        const double rate = norm / previous;
        if (rate >= 1.0) return fail("Newton diverged at t = " + std::to_string(t));
        eta = rate / (1.0 - rate);
      }
      if (eta * norm <= tol || norm == 0.0) return true;
      previous = norm;
    }
    return fail("Newton did not converge in " + std::to_string(max_newton_iterations_) + " iterations at t = " +
                std::to_string(t));
  }

  // Jacobians and parameter Jacobians at the converged stages.
  bool stage_jacobians(double t, double h) {
    for (int i = 0; i < s_; ++i) {
      for (int k = 0; k < nx_; ++k) work_x_(k) = x_[static_cast<std::size_t>(k)] + U_[static_cast<std::size_t>(i * n_ + k)];
      const double* z = U_.data() + i * n_ + nx_;
      if (!jacobian_at(t + c_[i] * h, xs_.data(), z, J_.data() + i * n_ * n_)) return false;
      if (np_ > 0 &&
          problem_.parameter_jacobian(t + c_[i] * h, {xs_.data(), static_cast<std::size_t>(nx_)},
                                      {z, static_cast<std::size_t>(nz_)}, p_, {Jp_.data() + i * n_ * np_, n_, np_, n_}) != 0)
        return fail("the parameter Jacobian failed");
    }
    return true;
  }

  // S <- S + D_{W_3} with dR/d(W,Z) D = -(dR/dx_n S + dR/dp P), P = [0, diag(p)].
  void propagate_sensitivities(double h) {
    // G_i = J_i [S; 0] + Jp_i P (n x ns) per stage.
    for (int i = 0; i < s_; ++i) {
      const double* Ji = J_.data() + i * n_ * n_;
      const double* Jpi = Jp_.data() + i * n_ * np_;
      double* Gi = G_.data() + i * n_ * ns_;
      for (int col = 0; col < ns_; ++col) {
        double* g = Gi + col * n_;
        for (int row = 0; row < n_; ++row) g[row] = 0.0;
        for (int k = 0; k < nx_; ++k) {
          const double s = S_[idx(k, col, nx_)];
          if (s == 0.0) continue;
          for (int row = 0; row < n_; ++row) g[row] += Ji[idx(row, k, n_)] * s;
        }
        if (col >= nx_) {
          const int l = col - nx_;
          for (int row = 0; row < n_; ++row) g[row] += Jpi[idx(row, l, n_)] * p_[static_cast<std::size_t>(l)];
        }
      }
    }
    // Right-hand sides: x rows h sum_j a_ij G_j^x, z rows -G_i^z.
    for (int col = 0; col < ns_; ++col) {
      double* d = D_.data() + col * m_;
      for (int i = 0; i < s_; ++i) {
        for (int k = 0; k < nx_; ++k) {
          double s = 0.0;
          for (int j = 0; j < s_; ++j) s += a_[i][j] * G_[static_cast<std::size_t>(j * n_ * ns_ + col * n_ + k)];
          d[i * n_ + k] = h * s;
        }
        for (int k = nx_; k < n_; ++k) d[i * n_ + k] = -G_[static_cast<std::size_t>(i * n_ * ns_ + col * n_ + k)];
      }
      solve(M_.data(), m_, d);
      for (int k = 0; k < nx_; ++k) {
        double w = 0.0;
        for (int j = 0; j < s_; ++j) w += d_[j] * d[j * n_ + k];
        S_[idx(k, col, nx_)] += w;
      }
      for (int k = 0; k < nz_; ++k) Sz_[idx(k, col, nz_)] = d[last() + nx_ + k];
    }
  }

  // LU with partial pivoting in place (column-major, size m); pivots_ records the row swaps.
  bool lu(double* A, int m) {
    for (int k = 0; k < m; ++k) {
      int pivot = k;
      double largest = std::abs(A[idx(k, k, m)]);
      for (int i = k + 1; i < m; ++i)
        if (std::abs(A[idx(i, k, m)]) > largest) largest = std::abs(A[idx(i, k, m)]), pivot = i;
      pivots_[static_cast<std::size_t>(k)] = pivot;
      if (largest == 0.0) return false;
      if (pivot != k)
        for (int j = 0; j < m; ++j) std::swap(A[idx(k, j, m)], A[idx(pivot, j, m)]);
      const double inverse = 1.0 / A[idx(k, k, m)];
      for (int i = k + 1; i < m; ++i) A[idx(i, k, m)] *= inverse;
      for (int j = k + 1; j < m; ++j) {
        const double a = A[idx(k, j, m)];
        if (a == 0.0) continue;
        for (int i = k + 1; i < m; ++i) A[idx(i, j, m)] -= A[idx(i, k, m)] * a;
      }
    }
    return true;
  }
  void solve(const double* A, int m, double* b) const {
    for (int k = 0; k < m; ++k) std::swap(b[k], b[pivots_[static_cast<std::size_t>(k)]]);
    for (int j = 0; j < m; ++j) {
      const double v = b[j];
      if (v == 0.0) continue;
      for (int i = j + 1; i < m; ++i) b[i] -= A[idx(i, j, m)] * v;
    }
    for (int j = m - 1; j >= 0; --j) {
      b[j] /= A[idx(j, j, m)];
      const double v = b[j];
      if (v == 0.0) continue;
      for (int i = 0; i < j; ++i) b[i] -= A[idx(i, j, m)] * v;
    }
  }
  double& work_x_(int k) { return xs_[static_cast<std::size_t>(k)]; }

  esdirk::Problem& problem_;
  int nx_, nz_, np_, n_, s_, m_, ns_;
  int max_newton_iterations_ = 20;
  bool retry_ = false;
  double c_[3] = {}, a_[3][3] = {}, d_[3] = {};
  std::vector<double> x_, z_, p_, U_, R_, F_, J_, Jp_, M_, S_, Sz_, G_, D_, floor_;
  std::vector<double> xs_;
  std::vector<int> pivots_;
  Counters counters_;
  std::string message_;
};

}  // namespace bench
