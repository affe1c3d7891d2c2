#include "esdirk/multishoot/ipopt_ocp.hpp"

#include <IpIpoptApplication.hpp>
#include <IpSolveStatistics.hpp>
#include <IpTNLP.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace esdirk::multishoot {
namespace {

using Ipopt::Index;
using Ipopt::Number;
using Clock = std::chrono::steady_clock;
std::size_t sz(int n) { return static_cast<std::size_t>(n); }
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const char* status_name(Ipopt::ApplicationReturnStatus s) {
  switch (s) {
    case Ipopt::Solve_Succeeded: return "Solve_Succeeded";
    case Ipopt::Solved_To_Acceptable_Level: return "Solved_To_Acceptable_Level";
    case Ipopt::Infeasible_Problem_Detected: return "Infeasible_Problem_Detected";
    case Ipopt::Search_Direction_Becomes_Too_Small: return "Search_Direction_Becomes_Too_Small";
    case Ipopt::Diverging_Iterates: return "Diverging_Iterates";
    case Ipopt::User_Requested_Stop: return "User_Requested_Stop";
    case Ipopt::Feasible_Point_Found: return "Feasible_Point_Found";
    case Ipopt::Maximum_Iterations_Exceeded: return "Maximum_Iterations_Exceeded";
    case Ipopt::Restoration_Failed: return "Restoration_Failed";
    case Ipopt::Error_In_Step_Computation: return "Error_In_Step_Computation";
    case Ipopt::Maximum_CpuTime_Exceeded: return "Maximum_CpuTime_Exceeded";
    case Ipopt::Not_Enough_Degrees_Of_Freedom: return "Not_Enough_Degrees_Of_Freedom";
    case Ipopt::Invalid_Problem_Definition: return "Invalid_Problem_Definition";
    case Ipopt::Invalid_Option: return "Invalid_Option";
    case Ipopt::Invalid_Number_Detected: return "Invalid_Number_Detected";
    default: return "Ipopt_Internal_Error";
  }
}

// The finite node state bounds that soft_state_penalty > 0 softens, in the order of
// OcpSolution::slack within a node: (state, upper?) pairs.
struct SoftBound {
  int state;
  bool upper;
};
std::vector<SoftBound> soft_bounds(const OcpSpec& spec) {
  std::vector<SoftBound> b;
  if (!(spec.soft_state_penalty > 0.0)) return b;
  for (int i = 0; i < spec.nx; ++i) {
    if (std::isfinite(spec.x_lower[sz(i)])) b.push_back({i, false});
    if (std::isfinite(spec.x_upper[sz(i)])) b.push_back({i, true});
  }
  return b;
}

// Variables w = [s_0 .. s_N, u_0 .. u_{N-1}, sigma_1 .. sigma_N]; constraints [s_0 - x0;
// F_k(s_k,u_k) - s_{k+1}; per node k = 1..N and soft bound: s_k,i + sigma >= lo or
// s_k,i - sigma <= hi]. The slacks sigma (nb per node) exist only for soft state bounds.
class ShootingNlp : public Ipopt::TNLP {
 public:
  ShootingNlp(const OcpSpec& spec, double t0, ConstVector x0, const OcpSolution& start,
              const EvaluateIntervals& evaluate, OcpSolution& out)
      : spec_(spec), t0_(t0), x0_(x0.begin(), x0.end()), start_(start), evaluate_(evaluate),
        out_(out), in_(spec.intervals, spec.nx, spec.nz, spec.nu) {
    N_ = spec.intervals;
    nx_ = spec.nx;
    nu_ = spec.nu;
    soft_ = soft_bounds(spec);
    nb_ = static_cast<int>(soft_.size());
    n_ = (N_ + 1) * nx_ + N_ * nu_ + N_ * nb_;
    m_ = (N_ + 1) * nx_ + N_ * nb_;
    z_guess_ = start.z_guess;
    terminal_gradient_.assign(sz(nx_), 0.0);
  }

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac, Index& nnz_h,
                    IndexStyleEnum& style) override {
    n = n_;
    m = m_;
    nnz_jac = nx_ + N_ * (nx_ * nx_ + nx_ + nx_ * nu_) + 2 * N_ * nb_;
    nnz_h = 0;
    if (spec_.quadratic_cost) {
      const int b = nx_ + nu_;
      nnz_h = N_ * b * (b + 1) / 2 + nx_ * (nx_ + 1) / 2;
    }
    style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Index, Number* lo, Number* hi, Index, Number* g_lo, Number* g_hi) override {
    const double inf = 1e20;  // Ipopt's nlp_upper_bound_inf
    for (int k = 0; k <= N_; ++k)
      for (int i = 0; i < nx_; ++i) {
        const double l = spec_.x_lower[sz(i)], h = spec_.x_upper[sz(i)];
        const bool hard = k > 0 && nb_ == 0;  // soft bounds are constraints with slacks
        lo[s_at(k) + i] = !hard || !std::isfinite(l) ? -inf : l;
        hi[s_at(k) + i] = !hard || !std::isfinite(h) ? inf : h;
      }
    for (int e = sigma_at(1, 0); e < n_; ++e) {
      lo[e] = 0.0;
      hi[e] = inf;
    }
    for (int k = 0; k < N_; ++k)
      for (int i = 0; i < nu_; ++i) {
        lo[u_at(k) + i] = spec_.u_lower[sz(i)];
        hi[u_at(k) + i] = spec_.u_upper[sz(i)];
      }
    std::fill(g_lo, g_lo + m_, 0.0);
    std::fill(g_hi, g_hi + m_, 0.0);
    for (int k = 1; k <= N_; ++k)
      for (int j = 0; j < nb_; ++j) {
        const SoftBound b = soft_[sz(j)];
        const int r = soft_row(k, j);
        g_lo[r] = b.upper ? -inf : spec_.x_lower[sz(b.state)];
        g_hi[r] = b.upper ? spec_.x_upper[sz(b.state)] : inf;
      }
    return true;
  }

  bool get_starting_point(Index, bool init_x, Number* x, bool init_z, Number* z_lo, Number* z_hi,
                          Index, bool init_lambda, Number* lambda) override {
    if (init_x) {
      std::copy(start_.s.begin(), start_.s.end(), x);
      std::copy(start_.u.begin(), start_.u.end(), x + s_at(N_ + 1));
      std::copy(x0_.begin(), x0_.end(), x);  // s_0 = x0 from the start
      if (start_.slack.size() == sz(N_ * nb_)) {
        std::copy(start_.slack.begin(), start_.slack.end(), x + sigma_at(1, 0));
      } else {  // the start's violation of each soft bound
        for (int k = 1; k <= N_; ++k)
          for (int j = 0; j < nb_; ++j) {
            const SoftBound b = soft_[sz(j)];
            const double v = x[s_at(k) + b.state];
            x[sigma_at(k, j)] = std::max(0.0, b.upper ? v - spec_.x_upper[sz(b.state)]
                                                      : spec_.x_lower[sz(b.state)] - v);
          }
      }
    }
    if (init_z) {
      std::copy(start_.bound_lower_multipliers.begin(), start_.bound_lower_multipliers.end(), z_lo);
      std::copy(start_.bound_upper_multipliers.begin(), start_.bound_upper_multipliers.end(), z_hi);
    }
    if (init_lambda)
      std::copy(start_.constraint_multipliers.begin(), start_.constraint_multipliers.end(), lambda);
    return true;
  }

  bool eval_f(Index, const Number* w, bool new_x, Number& f) override {
    if (!update(w, new_x)) return false;
    const auto start = Clock::now();
    f = 0.0;
    for (int k = 0; k < N_; ++k) f += outputs_.H(k);
    if (spec_.terminal) f += spec_.terminal(ConstVector(w + s_at(N_), sz(nx_)), terminal_gradient_);
    for (int e = sigma_at(1, 0); e < n_; ++e) f += spec_.soft_state_penalty * w[e];
    out_.assembly_seconds += since(start);
    return std::isfinite(f);
  }

  bool eval_grad_f(Index, const Number* w, bool new_x, Number* grad) override {
    if (!update(w, new_x)) return false;
    const auto start = Clock::now();
    std::fill(grad, grad + n_, 0.0);
    for (int k = 0; k < N_; ++k) {
      for (int i = 0; i < nx_; ++i) grad[s_at(k) + i] = outputs_.q(k)[sz(i)];
      for (int i = 0; i < nu_; ++i) grad[u_at(k) + i] = outputs_.r(k)[sz(i)];
    }
    for (int e = sigma_at(1, 0); e < n_; ++e) grad[e] = spec_.soft_state_penalty;
    grad_terminal_.assign(sz(nx_), 0.0);
    if (spec_.terminal) {
      spec_.terminal(ConstVector(w + s_at(N_), sz(nx_)), grad_terminal_);
      for (int i = 0; i < nx_; ++i) grad[s_at(N_) + i] += grad_terminal_[sz(i)];
    }
    out_.assembly_seconds += since(start);
    return true;
  }

  bool eval_g(Index, const Number* w, bool new_x, Index, Number* g) override {
    if (!update(w, new_x)) return false;
    for (int i = 0; i < nx_; ++i) g[i] = w[i] - x0_[sz(i)];
    for (int k = 0; k < N_; ++k)
      for (int i = 0; i < nx_; ++i)
        g[nx_ * (k + 1) + i] = outputs_.x_end(k)[sz(i)] - w[s_at(k + 1) + i];
    for (int k = 1; k <= N_; ++k)
      for (int j = 0; j < nb_; ++j) {
        const SoftBound b = soft_[sz(j)];
        g[soft_row(k, j)] = w[s_at(k) + b.state] + (b.upper ? -1.0 : 1.0) * w[sigma_at(k, j)];
      }
    return true;
  }

  bool eval_jac_g(Index, const Number* w, bool new_x, Index, Index, Index* row, Index* col,
                  Number* values) override {
    if (values == nullptr) {  // the structure: I; per interval A_k, -I, B_k
      int e = 0;
      for (int i = 0; i < nx_; ++i, ++e) {
        row[e] = i;
        col[e] = i;
      }
      for (int k = 0; k < N_; ++k) {
        const int r0 = nx_ * (k + 1);
        for (int j = 0; j < nx_; ++j)
          for (int i = 0; i < nx_; ++i, ++e) {
            row[e] = r0 + i;
            col[e] = s_at(k) + j;
          }
        for (int i = 0; i < nx_; ++i, ++e) {
          row[e] = r0 + i;
          col[e] = s_at(k + 1) + i;
        }
        for (int j = 0; j < nu_; ++j)
          for (int i = 0; i < nx_; ++i, ++e) {
            row[e] = r0 + i;
            col[e] = u_at(k) + j;
          }
      }
      for (int k = 1; k <= N_; ++k)
        for (int j = 0; j < nb_; ++j) {
          row[e] = soft_row(k, j);
          col[e++] = s_at(k) + soft_[sz(j)].state;
          row[e] = soft_row(k, j);
          col[e++] = sigma_at(k, j);
        }
      return true;
    }
    if (!update(w, new_x)) return false;
    const auto start = Clock::now();
    int e = 0;
    for (int i = 0; i < nx_; ++i) values[e++] = 1.0;
    for (int k = 0; k < N_; ++k) {
      const ConstMatrixRef A = outputs_.A(k), B = outputs_.B(k);
      for (int j = 0; j < nx_; ++j)
        for (int i = 0; i < nx_; ++i) values[e++] = A(i, j);
      for (int i = 0; i < nx_; ++i) values[e++] = -1.0;
      for (int j = 0; j < nu_; ++j)
        for (int i = 0; i < nx_; ++i) values[e++] = B(i, j);
    }
    for (int k = 1; k <= N_; ++k)
      for (int j = 0; j < nb_; ++j) {
        values[e++] = 1.0;
        values[e++] = soft_[sz(j)].upper ? -1.0 : 1.0;
      }
    out_.assembly_seconds += since(start);
    return true;
  }

  bool eval_h(Index, const Number* w, bool new_x, Number obj_factor, Index, const Number*, bool,
              Index, Index* row, Index* col, Number* values) override {
    if (!spec_.quadratic_cost) return false;  // limited-memory Hessian
    const QuadraticCost& c = *spec_.quadratic_cost;
    // Lower triangle of the block of (s_k, u_k) per interval, then of s_N; the variables of
    // the block in the order s_k[0..nx), u_k[0..nu) (global indices increase along it).
    const int b = nx_ + nu_;
    auto var = [&](int k, int i) { return i < nx_ ? s_at(k) + i : u_at(k) + i - nx_; };
    if (values == nullptr) {
      int e = 0;
      for (int k = 0; k < N_; ++k)
        for (int j = 0; j < b; ++j)
          for (int i = j; i < b; ++i, ++e) {
            row[e] = var(k, i);
            col[e] = var(k, j);
          }
      for (int j = 0; j < nx_; ++j)
        for (int i = j; i < nx_; ++i, ++e) {
          row[e] = s_at(N_) + i;
          col[e] = s_at(N_) + j;
        }
      return true;
    }
    if (!update(w, new_x)) return false;
    const auto start = Clock::now();
    int e = 0;
    const double dt = spec_.dt;
    for (int k = 0; k < N_; ++k) {
      const ConstMatrixRef A = outputs_.A(k), B = outputs_.B(k);
      auto S = [&](int r, int i) { return i < nx_ ? A(r, i) : B(r, i - nx_); };  // [A_k B_k]
      for (int j = 0; j < b; ++j)
        for (int i = j; i < b; ++i, ++e) {
          double h = 0.0;
          for (int r = 0; r < nx_; ++r) h += 2.0 * c.Q[sz(r)] * S(r, i) * S(r, j);
          h *= 0.5 * dt;
          if (i == j && i < nx_) h += 0.5 * dt * 2.0 * c.Q[sz(i)];
          if (i == j && i >= nx_) h += dt * 2.0 * c.R[sz(i - nx_)];
          values[e] = obj_factor * h;
        }
    }
    for (int j = 0; j < nx_; ++j)
      for (int i = j; i < nx_; ++i, ++e) values[e] = i == j ? obj_factor * 2.0 * c.P[sz(i)] : 0.0;
    out_.assembly_seconds += since(start);
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn, Index, const Number* w, const Number* z_lo,
                         const Number* z_hi, Index, const Number* g, const Number* lambda,
                         Number objective, const Ipopt::IpoptData*,
                         Ipopt::IpoptCalculatedQuantities*) override {
    out_.s.assign(w, w + s_at(N_ + 1));
    out_.u.assign(w + s_at(N_ + 1), w + sigma_at(1, 0));
    out_.slack.assign(w + sigma_at(1, 0), w + n_);
    out_.max_slack = 0.0;
    for (double v : out_.slack) out_.max_slack = std::max(out_.max_slack, v);
    out_.max_state_bound_multiplier = 0.0;
    for (int k = 1; k <= N_; ++k) {
      for (int i = 0; i < nx_ && nb_ == 0; ++i)
        out_.max_state_bound_multiplier = std::max(
            {out_.max_state_bound_multiplier, z_lo[s_at(k) + i], z_hi[s_at(k) + i]});
      for (int j = 0; j < nb_; ++j)
        out_.max_state_bound_multiplier =
            std::max(out_.max_state_bound_multiplier, std::abs(lambda[soft_row(k, j)]));
    }
    out_.bound_lower_multipliers.assign(z_lo, z_lo + n_);
    out_.bound_upper_multipliers.assign(z_hi, z_hi + n_);
    out_.constraint_multipliers.assign(lambda, lambda + m_);
    out_.objective = objective;
    double viol = 0.0;
    for (int i = 0; i < (N_ + 1) * nx_; ++i) viol = std::max(viol, std::abs(g[i]));
    for (int k = 1; k <= N_; ++k)
      for (int j = 0; j < nb_; ++j) {
        const SoftBound b = soft_[sz(j)];
        const double g_kj = g[soft_row(k, j)];
        viol = std::max(viol, b.upper ? g_kj - spec_.x_upper[sz(b.state)] : spec_.x_lower[sz(b.state)] - g_kj);
      }
    for (int k = 1; k <= N_ && nb_ == 0; ++k)
      for (int i = 0; i < nx_; ++i) {
        viol = std::max(viol, spec_.x_lower[sz(i)] - w[s_at(k) + i]);
        viol = std::max(viol, w[s_at(k) + i] - spec_.x_upper[sz(i)]);
      }
    for (int k = 0; k < N_; ++k)
      for (int i = 0; i < nu_; ++i) {
        viol = std::max(viol, spec_.u_lower[sz(i)] - w[u_at(k) + i]);
        viol = std::max(viol, w[u_at(k) + i] - spec_.u_upper[sz(i)]);
      }
    out_.constraint_violation = viol;
    out_.z_guess = z_guess_;
  }

 private:
  int s_at(int k) const { return k * nx_; }
  int u_at(int k) const { return (N_ + 1) * nx_ + k * nu_; }
  int sigma_at(int k, int j) const { return (N_ + 1) * nx_ + N_ * nu_ + (k - 1) * nb_ + j; }  // k >= 1
  int soft_row(int k, int j) const { return (N_ + 1) * nx_ + (k - 1) * nb_ + j; }          // k >= 1

  // Evaluates the intervals at a new point w (once per point: Ipopt asks for f, g, their
  // derivatives separately). A failing interval makes every callback at this point return
  // false: Ipopt then shortens its step.
  bool update(const Number* w, bool new_x) {
    if (!new_x && evaluated_) return valid_;
    for (int k = 0; k < N_; ++k) {
      in_.t_begin[sz(k)] = t0_ + k * spec_.dt;
      in_.t_end[sz(k)] = t0_ + (k + 1) * spec_.dt;
      std::copy(w + s_at(k), w + s_at(k) + nx_, in_.x.begin() + k * nx_);
      std::copy(w + u_at(k), w + u_at(k) + nu_, in_.u.begin() + k * nu_);
      std::copy_n(z_guess_.begin() + k * spec_.nz, spec_.nz, in_.z_guess.begin() + k * spec_.nz);
    }
    const auto start = Clock::now();
    valid_ = evaluate_(in_, outputs_);
    out_.integration_seconds += since(start);
    ++out_.evaluations;
    evaluated_ = true;
    if (!valid_) {
      ++out_.failed_evaluations;
      out_.message = outputs_.message(std::max(outputs_.first_failure(), 0));
      return false;
    }
    // The z at the end of interval k guesses the z of interval k + 1 at the next point.
    for (int k = 0; k + 1 < N_; ++k)
      std::copy_n(outputs_.z_end(k).begin(), spec_.nz, z_guess_.begin() + (k + 1) * spec_.nz);
    return true;
  }

  const OcpSpec& spec_;
  double t0_;
  std::vector<double> x0_;
  const OcpSolution& start_;
  const EvaluateIntervals& evaluate_;
  OcpSolution& out_;
  IntervalInputs in_;
  IntervalOutputs outputs_;
  std::vector<double> z_guess_, terminal_gradient_, grad_terminal_;
  std::vector<SoftBound> soft_;
  int N_ = 0, nx_ = 0, nu_ = 0, nb_ = 0, n_ = 0, m_ = 0;
  bool evaluated_ = false, valid_ = false;
};

}  // namespace

void OcpSpec::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("OcpSpec: " + what); };
  if (nx < 1 || nz < 0 || nu < 1) fail("needs nx >= 1, nz >= 0, nu >= 1");
  if (intervals < 1) fail("needs at least one interval");
  if (!(dt > 0.0) || !std::isfinite(dt)) fail("dt must be positive and finite");
  if (u_lower.size() != sz(nu) || u_upper.size() != sz(nu)) fail("u bounds need nu entries each");
  if (x_lower.size() != sz(nx) || x_upper.size() != sz(nx)) fail("x bounds need nx entries each");
  for (int i = 0; i < nu; ++i)
    if (!(u_lower[sz(i)] <= u_upper[sz(i)])) fail("u_lower > u_upper for control " + std::to_string(i));
  for (int i = 0; i < nx; ++i)
    if (!(x_lower[sz(i)] <= x_upper[sz(i)])) fail("x_lower > x_upper for state " + std::to_string(i));
  if (!(soft_state_penalty >= 0.0) || !std::isfinite(soft_state_penalty))
    fail("soft_state_penalty must be >= 0 and finite (0: hard state bounds)");
  if (!(tolerance > 0.0) || !(optimality_tolerance > 0.0) || max_iterations < 1)
    fail("tolerances > 0 and max_iterations >= 1 needed");
  if (quadratic_cost) {
    const QuadraticCost& c = *quadratic_cost;
    if (c.x_ref.size() != sz(nx) || c.u_ref.size() != sz(nu) || c.Q.size() != sz(nx) ||
        c.R.size() != sz(nu) || c.P.size() != sz(nx))
      fail("quadratic_cost needs x_ref, Q, P of size nx and u_ref, R of size nu");
  }
}

RunningCost QuadraticCost::running_cost() const {
  const QuadraticCost c = *this;
  return [c](double, ConstVector x, ConstVector, ConstVector u, double& value, Vector hx, Vector hz,
             Vector hu) {
    value = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - c.x_ref[i];
      value += c.Q[i] * d * d;
      hx[i] = 2.0 * c.Q[i] * d;
    }
    for (double& v : hz) v = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) {
      const double d = u[i] - c.u_ref[i];
      value += c.R[i] * d * d;
      hu[i] = 2.0 * c.R[i] * d;
    }
    return 0;
  };
}

TerminalCost QuadraticCost::terminal_cost() const {
  const QuadraticCost c = *this;
  return [c](ConstVector s, Vector g) {
    double value = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double d = s[i] - c.x_ref[i];
      value += c.P[i] * d * d;
      g[i] = 2.0 * c.P[i] * d;
    }
    return value;
  };
}

OcpSolution solve_ocp(const OcpSpec& spec, double t0, ConstVector x0, const OcpSolution& start,
                      const EvaluateIntervals& evaluate) {
  spec.validate();
  const int N = spec.intervals;
  if (x0.size() != sz(spec.nx)) throw std::invalid_argument("solve_ocp: x0 needs nx entries");
  if (start.s.size() != sz((N + 1) * spec.nx) || start.u.size() != sz(N * spec.nu) ||
      start.z_guess.size() != sz(N * spec.nz))
    throw std::invalid_argument(
        "solve_ocp: the start needs (N + 1) nx node states, N nu controls and N nz z guesses");
  OcpSolution out;
  const auto begin = Clock::now();
  Ipopt::SmartPtr<ShootingNlp> nlp = new ShootingNlp(spec, t0, x0, start, evaluate, out);
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  app->Options()->SetIntegerValue("print_level", 0);
  app->Options()->SetStringValue("sb", "yes");
  app->Options()->SetStringValue("hessian_approximation",
                                 spec.quadratic_cost ? "exact" : "limited-memory");
  app->Options()->SetNumericValue("tol", spec.optimality_tolerance);
  app->Options()->SetNumericValue("constr_viol_tol", spec.tolerance);
  app->Options()->SetIntegerValue("max_iter", spec.max_iterations);
  app->Options()->SetStringValue("mu_strategy", "adaptive");
  // Bounds exactly as given (Ipopt relaxes them by 1e-8 relative by default): the state
  // constraint is then met at the nodes to the integration tolerance.
  app->Options()->SetNumericValue("bound_relax_factor", 0.0);
  const std::size_t nb = soft_bounds(spec).size();
  const bool warm = spec.warm_start_multipliers &&
                    start.constraint_multipliers.size() == sz((N + 1) * spec.nx) + sz(N) * nb &&
                    start.bound_lower_multipliers.size() == sz((N + 1) * spec.nx + N * spec.nu) + sz(N) * nb;
  if (warm) {
    app->Options()->SetStringValue("warm_start_init_point", "yes");
    app->Options()->SetNumericValue("warm_start_bound_push", 1e-9);
    app->Options()->SetNumericValue("warm_start_mult_bound_push", 1e-9);
  }
  if (spec.print_level > 0) {
    // Diagnostics: Ipopt's iteration log and its finite-difference check of the derivatives.
    app->Options()->SetIntegerValue("print_level", spec.print_level);
    app->Options()->SetStringValue("derivative_test", "first-order");
  }
  if (app->Initialize() != Ipopt::Solve_Succeeded)
    throw std::runtime_error("solve_ocp: Ipopt could not be initialized");
  const Ipopt::ApplicationReturnStatus status = app->OptimizeTNLP(nlp);
  out.status = status_name(status);
  out.success = status == Ipopt::Solve_Succeeded || status == Ipopt::Solved_To_Acceptable_Level;
  if (Ipopt::SmartPtr<Ipopt::SolveStatistics> stats = app->Statistics(); Ipopt::IsValid(stats))
    out.iterations = stats->IterationCount();
  out.solver_seconds = std::max(0.0, since(begin) - out.integration_seconds - out.assembly_seconds);
  if (!out.success && out.message.empty()) out.message = "Ipopt stopped with " + out.status;
  if (out.s.empty()) {  // finalize_solution not called
    out.s = start.s;
    out.u = start.u;
    out.z_guess = start.z_guess;
  }
  return out;
}

OcpSolution shift_for_warm_start(const OcpSpec& spec, const OcpSolution& prev) {
  OcpSolution next = prev;
  const int N = spec.intervals, nx = spec.nx, nu = spec.nu, nz = spec.nz;
  auto shift = [](std::vector<double>& v, std::size_t offset, int blocks, int size) {
    // blocks of `size` at v[offset ..]: block i <- block i + 1, the last kept
    if (v.empty()) return;
    for (int i = 0; i + 1 < blocks; ++i)
      std::copy_n(v.begin() + static_cast<long>(offset + sz((i + 1) * size)), size,
                  v.begin() + static_cast<long>(offset + sz(i * size)));
  };
  shift(next.s, 0, N + 1, nx);
  shift(next.u, 0, N, nu);
  shift(next.z_guess, 0, N, nz);
  const int nb = static_cast<int>(soft_bounds(spec).size());
  if (next.slack.size() == sz(N * nb)) shift(next.slack, 0, N, nb);
  const std::size_t n = sz((N + 1) * nx + N * nu + N * nb);
  if (next.bound_lower_multipliers.size() == n && next.bound_upper_multipliers.size() == n &&
      next.constraint_multipliers.size() == sz((N + 1) * nx + N * nb)) {
    for (std::vector<double>* z : {&next.bound_lower_multipliers, &next.bound_upper_multipliers}) {
      shift(*z, 0, N + 1, nx);
      shift(*z, sz((N + 1) * nx), N, nu);
      shift(*z, sz((N + 1) * nx + N * nu), N, nb);
    }
    shift(next.constraint_multipliers, 0, N + 1, nx);
    shift(next.constraint_multipliers, sz((N + 1) * nx), N, nb);
  }
  return next;
}

}  // namespace esdirk::multishoot
