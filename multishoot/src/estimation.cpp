#include "esdirk/multishoot/estimation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "esdirk/multishoot/measurements.hpp"
#include "internal/format_number.hpp"
#include "svd.hpp"

namespace esdirk::multishoot {
namespace {

std::size_t sz(int n) { return static_cast<std::size_t>(n); }
using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// Index bookkeeping of the experiments: where each one's intervals, nodes and free initial
// state sit in the flat vectors.
struct Layout {
  int nx = 0, nz = 0, np = 0, ny = 0;
  int intervals = 0, nodes = 0, unknowns = 0, residuals = 0;
  std::vector<int> first_interval, first_node, s0_column;  // s0_column = -1: s_0 fixed

  explicit Layout(const EstimationProblem& p)
      : nx(p.nx), nz(p.nz), np(p.np), ny(static_cast<int>(p.measured.size())) {
    unknowns = np;
    for (const Experiment& e : p.experiments) {
      const int m = static_cast<int>(e.times.size()) - 1;
      first_interval.push_back(intervals);
      first_node.push_back(nodes);
      s0_column.push_back(e.initial_state_known ? -1 : unknowns);
      if (!e.initial_state_known) unknowns += nx;
      residuals += (e.initial_state_known ? m : m + 1) * ny;
      intervals += m;
      nodes += m + 1;
    }
  }
};

}  // namespace

int EstimationProblem::intervals() const {
  int n = 0;
  for (const Experiment& e : experiments) n += static_cast<int>(e.times.size()) - 1;
  return n;
}

void EstimationProblem::validate() const {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("EstimationProblem: " + what);
  };
  if (nx < 1 || nz < 0 || np < 1) fail("needs nx >= 1, nz >= 0, np >= 1");
  if (measured.empty()) fail("no measured states");
  for (int i : measured)
    if (i < 0 || i >= nx) fail("measured state index " + std::to_string(i) + " is not in [0, nx)");
  if (experiments.empty()) fail("no experiments");
  const std::size_t ny = measured.size();
  for (std::size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& x = experiments[e];
    const std::string name = "experiment " + std::to_string(e) + ": ";
    const std::size_t n = x.times.size();
    if (n < 2) fail(name + "needs at least two measurement times, has " + std::to_string(n));
    for (std::size_t k = 0; k + 1 < n; ++k)
      if (!(x.times[k + 1] > x.times[k]) || !std::isfinite(x.times[k + 1]))
        fail(name + "times must be finite and increasing; times[" + std::to_string(k + 1) +
             "] = " + internal::format_number(x.times[k + 1]) + " follows " +
             internal::format_number(x.times[k]));
    if (x.data.size() != n * ny)
      fail(name + "has " + std::to_string(x.data.size()) + " data values, expected " +
           std::to_string(n) + " times x " + std::to_string(ny) + " measured states");
    if (x.sigma.size() != n * ny)
      fail(name + "has " + std::to_string(x.sigma.size()) + " standard deviations, expected " +
           std::to_string(n * ny));
    if (x.nodes.size() != n * sz(nx))
      fail(name + "has " + std::to_string(x.nodes.size()) + " node-state guesses, expected " +
           std::to_string(n * sz(nx)));
    if (x.z_guess.size() != (n - 1) * sz(nz))
      fail(name + "has " + std::to_string(x.z_guess.size()) +
           " algebraic guesses, expected " + std::to_string((n - 1) * sz(nz)));
    if (!all_finite(x.data) || !all_finite(x.nodes) || !all_finite(x.z_guess))
      fail(name + "data, node guesses or algebraic guesses contain non-finite values");
    for (std::size_t i = 0; i < x.sigma.size(); ++i)
      if (!(x.sigma[i] >= min_sigma) || !std::isfinite(x.sigma[i]))
        fail(name + "sigma[" + std::to_string(i) + "] = " + internal::format_number(x.sigma[i]) +
             " is not a finite number >= " + internal::format_number(min_sigma) +
             " (1/sigma^2 must be a finite double)");
  }
}

namespace {

class Solver {
 public:
  Solver(const EstimationProblem& p, const EvaluateIntervals& evaluate,
         const GaussNewtonOptions& options)
      : p_(p), L_(p), evaluate_(evaluate), opt_(options), in_(L_.intervals, p.nx, p.nz, p.np) {}

  EstimationResult run(const std::vector<double>& theta0);

 private:
  // The current point of the iteration and what is known there.
  struct Point {
    std::vector<double> theta, nodes, r;  // parameters, node states, weighted residuals
    IntervalOutputs out;                  // the intervals integrated from it
    double cost = 0.0, defect_l1 = 0.0, max_defect = 0.0;
  };
  // The trial point of the line search (kept from iteration to iteration).
  struct Trial {
    std::vector<double> theta, nodes, r, c;
    IntervalOutputs out;
  };
  // How the line search of one iteration ended.
  struct Search {
    bool converged = false, accepted = false;
    double alpha = 1.0;      // the accepted step length
    double full_step = 0.0;  // the largest scaled component of the undamped first step
    std::string last_failure;
  };

  void start(const std::vector<double>& theta0);
  void update_z_guesses(const IntervalOutputs& o, const std::vector<double>& nodes);
  void merit_slope(double& gTd, double& quad) const;
  Search line_search(SvdSolver& svd, double smax2, IterationRecord& rec, Clock::time_point& start);
  bool finish_iteration(const Search& search, IterationRecord& rec, EstimationResult& res);
  void statistics_at_solution(EstimationResult& res, SvdSolver& svd, bool converged);
  void fill_inputs(const std::vector<double>& theta, const std::vector<double>& nodes);
  double residuals(const std::vector<double>& nodes, std::vector<double>& r) const;
  double defects(const std::vector<double>& nodes, const IntervalOutputs& out,
                 std::vector<double>& c, double& max_scaled) const;
  void assemble(const std::vector<double>& nodes, const IntervalOutputs& out);
  void expand(const std::vector<double>& v, const IntervalOutputs& out);
  bool evaluate_at(const std::vector<double>& theta, const std::vector<double>& nodes,
                   IntervalOutputs& out, IterationRecord& rec);

  const EstimationProblem& p_;
  Layout L_;
  const EvaluateIntervals& evaluate_;
  GaussNewtonOptions opt_;
  IntervalInputs in_;
  std::vector<double> scale_;    // typical size of each state (defect and step scaling)
  std::vector<double> z_guess_;  // per interval
  std::vector<double> J_, rhs_;  // reduced Jacobian (m x nv) and right-hand side
  std::vector<double> T_, T_next_, d_, d_next_;  // condensing recursion
  std::vector<double> ds_;       // node steps, all nodes
  std::vector<double> c_;        // defects
  Point x_;
  Trial trial_;
  std::vector<double> v_;        // the condensed step (dtheta, ds_0 of free experiments)
  double mu_ = 0.0, nu_ = 0.0;   // merit penalty, Levenberg-Marquardt damping
  int tiny_steps_ = 0;
  double last_alpha_ = 1.0;
};

void Solver::fill_inputs(const std::vector<double>& theta, const std::vector<double>& nodes) {
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const Experiment& x = p_.experiments[e];
    const int m = static_cast<int>(x.times.size()) - 1;
    for (int k = 0; k < m; ++k) {
      const int i = L_.first_interval[e] + k, node = L_.first_node[e] + k;
      in_.t_begin[sz(i)] = x.times[sz(k)];
      in_.t_end[sz(i)] = x.times[sz(k + 1)];
      std::copy_n(nodes.begin() + node * L_.nx, L_.nx, in_.x.begin() + i * L_.nx);
      std::copy(theta.begin(), theta.end(), in_.u.begin() + i * L_.np);
      std::copy_n(z_guess_.begin() + i * L_.nz, L_.nz, in_.z_guess.begin() + i * L_.nz);
    }
  }
}

// r = (s_k[m_i] - y_ki) / sigma_ki over the nodes that carry unknowns; returns 1/2 |r|^2.
double Solver::residuals(const std::vector<double>& nodes, std::vector<double>& r) const {
  r.resize(sz(L_.residuals));
  std::size_t row = 0;
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const Experiment& x = p_.experiments[e];
    const int m = static_cast<int>(x.times.size()) - 1;
    for (int k = x.initial_state_known ? 1 : 0; k <= m; ++k)
      for (int i = 0; i < L_.ny; ++i) {
        const double s = nodes[sz((L_.first_node[e] + k) * L_.nx + p_.measured[sz(i)])];
        r[row++] = (s - x.data[sz(k * L_.ny + i)]) / x.sigma[sz(k * L_.ny + i)];
      }
  }
  double sum = 0.0;
  for (double v : r) sum += v * v;
  return 0.5 * sum;
}

// c_k = F_k(s_k) - s_{k+1} per interval; returns sum |c| / scale and the largest scaled |c|.
double Solver::defects(const std::vector<double>& nodes, const IntervalOutputs& out,
                       std::vector<double>& c, double& max_scaled) const {
  c.resize(sz(L_.intervals * L_.nx));
  double l1 = 0.0;
  max_scaled = 0.0;
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const int m = static_cast<int>(p_.experiments[e].times.size()) - 1;
    for (int k = 0; k < m; ++k) {
      const int i = L_.first_interval[e] + k, next = L_.first_node[e] + k + 1;
      for (int j = 0; j < L_.nx; ++j) {
        const double d = out.x_end(i)[sz(j)] - nodes[sz(next * L_.nx + j)];
        c[sz(i * L_.nx + j)] = d;
        l1 += std::abs(d) / scale_[sz(j)];
        max_scaled = std::max(max_scaled, std::abs(d) / scale_[sz(j)]);
      }
    }
  }
  return l1;
}

// The condensed linear least-squares problem: ds_k = T_k v + d_k along each experiment, and
// the residual rows W (s_k + ds_k)[m] - y, i.e. J = W T_k[m, :], rhs = -(r + W d_k[m]).
void Solver::assemble(const std::vector<double>& nodes, const IntervalOutputs& out) {
  const int nx = L_.nx, nv = L_.unknowns, m = L_.residuals;
  J_.assign(sz(m) * sz(nv), 0.0);
  std::vector<double> r;
  residuals(nodes, r);
  rhs_.resize(sz(m));
  T_.resize(sz(nx * nv));
  T_next_.resize(sz(nx * nv));
  d_.resize(sz(nx));
  d_next_.resize(sz(nx));
  int row = 0;
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const Experiment& x = p_.experiments[e];
    const int M = static_cast<int>(x.times.size()) - 1;
    std::fill(T_.begin(), T_.end(), 0.0);
    std::fill(d_.begin(), d_.end(), 0.0);
    if (L_.s0_column[e] >= 0)
      for (int j = 0; j < nx; ++j) T_[sz(j + (L_.s0_column[e] + j) * nx)] = 1.0;
    for (int k = 0; k <= M; ++k) {
      if (k > 0 || !x.initial_state_known) {
        for (int i = 0; i < L_.ny; ++i, ++row) {
          const double w = 1.0 / x.sigma[sz(k * L_.ny + i)];
          const int mi = p_.measured[sz(i)];
          for (int col = 0; col < nv; ++col) J_[sz(row + col * m)] = w * T_[sz(mi + col * nx)];
          rhs_[sz(row)] = -(r[sz(row)] + w * d_[sz(mi)]);
        }
      }
      if (k == M) break;
      const int iv = L_.first_interval[e] + k;
      const ConstMatrixRef A = out.A(iv), B = out.B(iv);
      // T_{k+1} = A_k T_k + [B_k 0], d_{k+1} = A_k d_k + c_k
      for (int col = 0; col < nv; ++col)
        for (int i = 0; i < nx; ++i) {
          double sum = col < L_.np ? B(i, col) : 0.0;
          for (int l = 0; l < nx; ++l) sum += A(i, l) * T_[sz(l + col * nx)];
          T_next_[sz(i + col * nx)] = sum;
        }
      for (int i = 0; i < nx; ++i) {
        double sum = c_[sz(iv * nx + i)];
        for (int l = 0; l < nx; ++l) sum += A(i, l) * d_[sz(l)];
        d_next_[sz(i)] = sum;
      }
      std::swap(T_, T_next_);
      std::swap(d_, d_next_);
    }
  }
}

// The node steps of the full Gauss-Newton step v = (dtheta, ds_0 of free experiments).
void Solver::expand(const std::vector<double>& v, const IntervalOutputs& out) {
  const int nx = L_.nx;
  ds_.assign(sz(L_.nodes * nx), 0.0);
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const int M = static_cast<int>(p_.experiments[e].times.size()) - 1;
    const int n0 = L_.first_node[e];
    if (L_.s0_column[e] >= 0)
      for (int j = 0; j < nx; ++j) ds_[sz(n0 * nx + j)] = v[sz(L_.s0_column[e] + j)];
    for (int k = 0; k < M; ++k) {
      const int iv = L_.first_interval[e] + k;
      const ConstMatrixRef A = out.A(iv), B = out.B(iv);
      for (int i = 0; i < nx; ++i) {
        double sum = c_[sz(iv * nx + i)];
        for (int l = 0; l < nx; ++l) sum += A(i, l) * ds_[sz((n0 + k) * nx + l)];
        for (int l = 0; l < L_.np; ++l) sum += B(i, l) * v[sz(l)];
        ds_[sz((n0 + k + 1) * nx + i)] = sum;
      }
    }
  }
}

bool Solver::evaluate_at(const std::vector<double>& theta, const std::vector<double>& nodes,
                         IntervalOutputs& out, IterationRecord& rec) {
  fill_inputs(theta, nodes);
  const auto start = Clock::now();
  const bool ok = evaluate_(in_, out);
  rec.integration_seconds += since(start);
  rec.steps += out.total_steps();
  return ok;
}

// The starting point: node states and algebraic guesses of all experiments, the state scales,
// and the intervals integrated there (an infeasible start throws: nothing to iterate from).
void Solver::start(const std::vector<double>& theta0) {
  const int nx = L_.nx;
  x_.theta = theta0;
  for (const Experiment& x : p_.experiments) x_.nodes.insert(x_.nodes.end(), x.nodes.begin(), x.nodes.end());
  for (const Experiment& x : p_.experiments)
    z_guess_.insert(z_guess_.end(), x.z_guess.begin(), x.z_guess.end());
  scale_.assign(sz(nx), 0.0);
  for (int n = 0; n < L_.nodes; ++n)
    for (int j = 0; j < nx; ++j) scale_[sz(j)] = std::max(scale_[sz(j)], std::abs(x_.nodes[sz(n * nx + j)]));
  double largest = *std::max_element(scale_.begin(), scale_.end());
  for (double& s : scale_) s = std::max(s, 1e-8 * std::max(largest, 1.0));

  IterationRecord rec0;
  if (!evaluate_at(x_.theta, x_.nodes, x_.out, rec0)) {
    const int k = x_.out.first_failure();
    throw std::runtime_error("estimate: infeasible initial guess: the intervals cannot be "
                             "integrated at the starting parameters and node states (" +
                             x_.out.message(k) + "); start closer, or with node states from a "
                             "simulation at the initial parameters");
  }
  update_z_guesses(x_.out, x_.nodes);
  x_.cost = residuals(x_.nodes, x_.r);
  x_.defect_l1 = defects(x_.nodes, x_.out, c_, x_.max_defect);
  v_.assign(sz(L_.unknowns), 0.0);
  trial_.theta.assign(sz(L_.np), 0.0);
  nu_ = opt_.initial_damping;
}

// Interval k + 1 of an experiment starts where interval k ended: its consistent z there is the
// best guess. The first interval of each experiment keeps its given guess.
void Solver::update_z_guesses(const IntervalOutputs& o, const std::vector<double>& nodes) {
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const int M = static_cast<int>(p_.experiments[e].times.size()) - 1;
    for (int k = 0; k + 1 < M; ++k) {
      const int iv = L_.first_interval[e] + k;
      // Only where the chain is nearly continuous: with a large defect, z at the end of
      // interval k is consistent with a state far from node k + 1.
      double defect = 0.0;
      for (int j = 0; j < L_.nx; ++j)
        defect = std::max(defect, std::abs(o.x_end(iv)[sz(j)] - nodes[sz((L_.first_node[e] + k + 1) * L_.nx + j)]) / scale_[sz(j)]);
      if (defect < 1e-3) std::copy_n(o.z_end(iv).begin(), L_.nz, z_guess_.begin() + (iv + 1) * L_.nz);
    }
  }
}

// Directional derivative of the merit along the step: g' ds = r . W ds[m], and the
// Gauss-Newton curvature |W ds[m]|^2.
void Solver::merit_slope(double& gTd, double& quad) const {
  gTd = 0.0;
  quad = 0.0;
  std::size_t row = 0;
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const Experiment& x = p_.experiments[e];
    const int M = static_cast<int>(x.times.size()) - 1;
    for (int k = x.initial_state_known ? 1 : 0; k <= M; ++k)
      for (int i = 0; i < L_.ny; ++i, ++row) {
        const double dr = ds_[sz((L_.first_node[e] + k) * L_.nx + p_.measured[sz(i)])] /
                          x.sigma[sz(k * L_.ny + i)];
        gTd += x_.r[row] * dr;
        quad += dr * dr;
      }
  }
}

// The line search of one iteration on the merit 1/2 |r|^2 + mu |c|_1, over Levenberg-Marquardt
// steps of growing damping and then shorter steps; converged when the full step at the current
// point is below the tolerances. An accepted trial becomes the current point.
Solver::Search Solver::line_search(SvdSolver& svd, double smax2, IterationRecord& rec,
                                   Clock::time_point& start) {
  const int nx = L_.nx, np = L_.np;
  Search search;
  // Start from twice the last accepted step length (at most 1): where the linearization is
  // poor for many iterations in a row, this saves the repeated halvings from 1.
  double alpha = std::min(1.0, 2.0 * last_alpha_), alpha0 = alpha;
  for (int b = 0; b <= opt_.max_backtracks; ++b) {
    // The Levenberg-Marquardt step for damping nu (relative to the largest singular value
    // squared), then the node steps that go with it.
    svd.solve(rhs_.data(), opt_.rcond, nu_ * smax2, v_.data());
    expand(v_, x_.out);
    // The penalty mu makes the step a descent direction of 1/2 |r|^2 + mu |c|_1 (Nocedal &
    // Wright eq. 18.36), as the step removes c linearly.
    double gTd = 0.0, quad = 0.0;
    merit_slope(gTd, quad);
    // The smallest penalty that makes the step a descent direction, recomputed at every
    // point: a penalty that only grows makes the merit reject the full steps near the
    // solution, whose defects are of second order (the Maratos effect), and the iteration
    // crawls.
    mu_ = x_.defect_l1 > 0.0 ? std::max((gTd + 0.5 * quad) / (0.5 * x_.defect_l1), 0.0) + 1.0 : mu_;
    const double merit0 = x_.cost + mu_ * x_.defect_l1;
    const double slope = gTd - mu_ * x_.defect_l1;
    double vmax = 0.0, dsmax = 0.0;
    for (int j = 0; j < np; ++j) vmax = std::max(vmax, std::abs(v_[sz(j)]));
    for (int n = 0; n < L_.nodes; ++n)
      for (int j = 0; j < nx; ++j) dsmax = std::max(dsmax, std::abs(ds_[sz(n * nx + j)]) / scale_[sz(j)]);
    if (b == 0) search.full_step = std::max(vmax, dsmax);
    // Converged: the full step at the current point is below the tolerance and the
    // continuity holds; the current point is the solution.
    if (b == 0 && nu_ <= 1e-6 && vmax < opt_.step_tolerance && dsmax < opt_.step_tolerance &&
        x_.max_defect < opt_.defect_tolerance) {
      search.converged = true;
      break;
    }
    alpha0 = alpha;
    while (alpha0 * vmax > opt_.max_parameter_step) alpha0 *= 0.5;
    for (int j = 0; j < np; ++j) trial_.theta[sz(j)] = x_.theta[sz(j)] + alpha0 * v_[sz(j)];
    trial_.nodes = x_.nodes;
    for (std::size_t j = 0; j < x_.nodes.size(); ++j) trial_.nodes[j] += alpha0 * ds_[j];
    rec.solver_seconds += since(start);
    const bool ok = evaluate_at(trial_.theta, trial_.nodes, trial_.out, rec);
    start = Clock::now();
    if (ok) {
      double trial_max = 0.0;
      const double trial_cost = residuals(trial_.nodes, trial_.r);
      const double trial_l1 = defects(trial_.nodes, trial_.out, trial_.c, trial_max);
      if (trial_cost + mu_ * trial_l1 <= merit0 + 1e-4 * alpha0 * std::min(slope, 0.0)) {
        x_.theta = trial_.theta;
        x_.nodes.swap(trial_.nodes);
        std::swap(x_.out, trial_.out);
        x_.r.swap(trial_.r);
        c_.swap(trial_.c);
        x_.cost = trial_cost;
        x_.defect_l1 = trial_l1;
        x_.max_defect = trial_max;
        search.accepted = true;
        alpha = alpha0;
        break;
      }
    } else {
      ++rec.failed_trials;  // an interval failed at the trial point: shorter step
      search.last_failure = trial_.out.message(std::max(trial_.out.first_failure(), 0));
    }
    ++rec.backtracks;
    // Rejected: more damping of the parameter step, and once the damping dominates, a
    // shorter step overall (the node steps that remove the defects are not damped by nu).
    if (nu_ < opt_.max_damping && opt_.max_damping > 0.0)
      nu_ = std::min(std::max(10.0 * nu_, 1e-8), opt_.max_damping);
    else
      alpha = 0.5 * alpha0;
  }
  search.alpha = alpha;
  return search;
}

// After the line search of a (not converged) iteration: the damping, the record, and the stops
// that are not convergence of the step (stall at the integration accuracy, a failed line
// search, steps cut to nothing). True when the iteration ends.
bool Solver::finish_iteration(const Search& search, IterationRecord& rec, EstimationResult& res) {
  const int nx = L_.nx, np = L_.np;
  if (search.accepted) {
    nu_ = nu_ < 1e-12 ? 0.0 : 0.1 * nu_;
    last_alpha_ = search.alpha;
  }
  rec.damping = nu_;
  if (!search.accepted && search.full_step < opt_.stall_tolerance && x_.max_defect < opt_.stall_tolerance) {
    // The merit cannot decrease any more although the step is small: the remaining step is
    // at the level of the integration error (the residuals and defects are computed to the
    // integrator's tolerance, not exactly).
    res.converged = true;
    res.message = "converged to the integration accuracy: Gauss-Newton step " +
                  std::to_string(search.full_step) + ", no further decrease of the merit";
    rec.cost = x_.cost;
    rec.max_defect = x_.max_defect;
    rec.alpha = 0.0;
    res.history.push_back(rec);
    return true;
  }
  if (!search.accepted) {
    res.message = "the line search failed after " + std::to_string(opt_.max_backtracks) +
                  " halvings" +
                  (rec.failed_trials ? " (" + std::to_string(rec.failed_trials) +
                                           " trial points with failing intervals, the last: " +
                                           search.last_failure + ")"
                                     : std::string());
    res.history.push_back(rec);
    return true;
  }
  update_z_guesses(x_.out, x_.nodes);
  const double alpha = search.alpha;
  double step_theta = 0.0, step_nodes = 0.0;
  for (int j = 0; j < np; ++j) step_theta = std::max(step_theta, std::abs(alpha * v_[sz(j)]));
  for (int n = 0; n < L_.nodes; ++n)
    for (int j = 0; j < nx; ++j)
      step_nodes = std::max(step_nodes, std::abs(alpha * ds_[sz(n * nx + j)]) / scale_[sz(j)]);
  rec.cost = x_.cost;
  rec.max_defect = x_.max_defect;
  rec.step = step_theta;
  rec.alpha = alpha;
  res.history.push_back(rec);
  // Steps that the line search cuts to nothing, three times in a row, with continuity
  // holding: the merit cannot be decreased at the accuracy the intervals are integrated to.
  tiny_steps_ = std::max(step_theta, step_nodes) < opt_.step_tolerance ? tiny_steps_ + 1 : 0;
  if (tiny_steps_ >= 3 && x_.max_defect < opt_.stall_tolerance) {
    res.converged = true;
    res.message = "converged to the integration accuracy: the line search cuts every step "
                  "below the step tolerance";
    return true;
  }
  return false;
}

EstimationResult Solver::run(const std::vector<double>& theta0) {
  EstimationResult res;
  start(theta0);
  SvdSolver svd;
  res.message = "the iteration limit was reached";
  for (int it = 1; it <= opt_.max_iterations; ++it) {
    IterationRecord rec;
    rec.iteration = it;
    auto start = Clock::now();
    assemble(x_.nodes, x_.out);
    rec.assembly_seconds = since(start);
    start = Clock::now();
    svd.factor(J_.data(), L_.residuals, L_.unknowns);
    const double smax2 = svd.singular_values().empty() ? 1.0 : svd.singular_values()[0] * svd.singular_values()[0];
    const Search search = line_search(svd, smax2, rec, start);
    if (search.converged) {
      res.converged = true;
      res.message = "converged: the Gauss-Newton step and the defects are below their tolerances";
      break;
    }
    rec.solver_seconds += since(start);
    if (finish_iteration(search, rec, res)) break;
  }
  statistics_at_solution(res, svd, res.converged);
  return res;
}

// The result at the last point: the reduced Jacobian J = dr/dv through the constraints, the
// covariance of the parameters, their confidence intervals and identifiability.
void Solver::statistics_at_solution(EstimationResult& res, SvdSolver& svd, bool converged) {
  const int np = L_.np, nv = L_.unknowns, m = L_.residuals;
  assemble(x_.nodes, x_.out);
  svd.factor(J_.data(), m, nv);
  res.converged = converged;
  res.theta = x_.theta;
  res.nodes = x_.nodes;
  res.node_z.resize(z_guess_.size());
  for (std::size_t e = 0; e < p_.experiments.size(); ++e) {
    const int M = static_cast<int>(p_.experiments[e].times.size()) - 1;
    for (int k = 0; k < M; ++k) {
      const int iv = L_.first_interval[e] + k;
      const double* z = k == 0 ? z_guess_.data() + iv * L_.nz : x_.out.z_end(iv - 1).data();
      std::copy_n(z, L_.nz, res.node_z.begin() + iv * L_.nz);
    }
  }
  res.cost = x_.cost;
  res.residuals = m;
  res.singular_values = svd.singular_values();
  res.rank = svd.rank(opt_.rcond);
  res.residual_variance = m > res.rank ? 2.0 * x_.cost / (m - res.rank)
                                       : std::numeric_limits<double>::quiet_NaN();
  std::vector<double> cov = svd.pseudo_inverse_gram(opt_.rcond);  // (J^T J)^+, nv x nv
  res.covariance.assign(sz(np * np), 0.0);
  for (int j = 0; j < np; ++j)
    for (int i = 0; i < np; ++i)
      res.covariance[sz(i + j * np)] = res.residual_variance * cov[sz(i + j * nv)];
  const std::vector<double> lost = svd.truncated_weight(opt_.rcond);
  for (int j = 0; j < np; ++j) {
    const double sd = std::sqrt(std::max(res.covariance[sz(j + j * np)], 0.0));
    // A parameter with a sizeable component in the directions the SVD dropped has no finite
    // interval: the data cannot tell it apart from a combination of the others.
    const bool ident = lost[sz(j)] < 1e-2;
    res.identifiable.push_back(ident);
    res.theta_stddev.push_back(ident ? sd : std::numeric_limits<double>::infinity());
    const double half = ident ? opt_.confidence_z * sd : std::numeric_limits<double>::infinity();
    res.theta_lower.push_back(x_.theta[sz(j)] - half);
    res.theta_upper.push_back(x_.theta[sz(j)] + half);
  }
  res.final_outputs = x_.out;
}

}  // namespace

EstimationResult estimate(const EstimationProblem& problem, const std::vector<double>& theta0,
                          const EvaluateIntervals& evaluate, const GaussNewtonOptions& options) {
  problem.validate();
  options.validate();
  if (static_cast<int>(theta0.size()) != problem.np)
    throw std::invalid_argument("estimate: theta0 has " + std::to_string(theta0.size()) +
                                " entries, the problem has " + std::to_string(problem.np) +
                                " parameters");
  if (!all_finite(theta0)) throw std::invalid_argument("estimate: theta0 is not finite");
  if (!evaluate) throw std::invalid_argument("estimate: no interval evaluator");
  Solver solver(problem, evaluate, options);
  return solver.run(theta0);
}

}  // namespace esdirk::multishoot
