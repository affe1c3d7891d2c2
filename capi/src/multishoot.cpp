// The C shim of the multiple-shooting evaluator and estimator (esdirk_multishoot.h).
#include "handle_options.hpp"
#include "esdirk/esdirk_multishoot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "esdirk/multishoot/estimation.hpp"
#include "internal/format_number.hpp"
#include "multishoot_shim.hpp"

namespace ms = esdirk::multishoot;

namespace {
std::size_t sz(esdirk_int n) { return static_cast<std::size_t>(n); }

// The inputs of esdirk_multishoot_evaluate checked as esdirk_shooting_integrate checks one
// interval's: finite ends with t_end > t_begin, finite node states, controls and guesses.
// Empty if they are fine, else what is wrong with the first bad one.
std::string bad_interval_input(esdirk_int n, esdirk_int nx, esdirk_int nz, esdirk_int nu,
                               const double* t_begin, const double* t_end, const double* x,
                               const double* u, const double* z_guess) {
  using esdirk::internal::format_number;
  const auto bad_value = [](const double* v, esdirk_int count) -> esdirk_int {
    for (esdirk_int i = 0; i < count; ++i)
      if (!std::isfinite(v[i])) return i;
    return -1;
  };
  for (esdirk_int k = 0; k < n; ++k) {
    const std::string at = "evaluate: interval " + std::to_string(k) + ": ";
    if (!std::isfinite(t_begin[k]) || !std::isfinite(t_end[k]))
      return at + "the ends t_begin = " + format_number(t_begin[k]) + " and t_end = " +
             format_number(t_end[k]) + " must be finite";
    if (!(t_end[k] > t_begin[k]))
      return at + "[" + format_number(t_begin[k]) + ", " + format_number(t_end[k]) +
             "] has zero or negative length (t_end must be > t_begin)";
    const struct {
      const double* v;
      esdirk_int count;
      const char* name;
    } vectors[] = {{x + k * nx, nx, "x"}, {u ? u + k * nu : nullptr, nu, "u"},
                   {z_guess ? z_guess + k * nz : nullptr, nz, "z_guess"}};
    for (const auto& vec : vectors) {
      if (!vec.v) continue;
      const esdirk_int i = bad_value(vec.v, vec.count);
      if (i >= 0)
        return at + vec.name + "[" + std::to_string(i) + "] = " + format_number(vec.v[i]) +
               " is not finite";
    }
  }
  return {};
}
}  // namespace

int esdirk_multishoot_create(esdirk_problem* problem, esdirk_int intervals, esdirk_int threads,
                             esdirk_multishoot** handle) {
  if (!handle) return ESDIRK_NULL_ARGUMENT;
  *handle = nullptr;
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  if (intervals < 1 || threads < 1) return ESDIRK_INVALID_ARGUMENT;
  const int status = esdirk_capi::create_handle(problem, handle);
  if (status == ESDIRK_SUCCESS) {
    (*handle)->intervals = intervals;
    (*handle)->threads = threads;
  }
  return status;
}

void esdirk_multishoot_free(esdirk_multishoot** handle) { esdirk_capi::free_handle(handle); }

const char* esdirk_multishoot_last_error(const esdirk_multishoot* h) {
  return h ? h->text() : "null multishoot handle";
}

int esdirk_multishoot_set_tolerances(esdirk_multishoot* h, double rtol, double atol) {
  return esdirk_capi::through_options(h, esdirk_options_set_tolerances, rtol, atol);
}

int esdirk_multishoot_set_algebraic_atol(esdirk_multishoot* h, const double* atol, esdirk_int nz) {
  return esdirk_capi::algebraic_atol_through_options(h, atol, nz);
}

int esdirk_multishoot_set_initial_step(esdirk_multishoot* h, double h0) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!(h0 >= 0.0) || !std::isfinite(h0))
    return h->fail(ESDIRK_INVALID_ARGUMENT, "set_initial_step: h0 must be finite and >= 0");
  const esdirk::Options& o = h->options;
  return esdirk_capi::through_options(h, esdirk_options_set_step_limits, h0, o.min_step, o.max_step, o.max_steps);
}

int esdirk_multishoot_set_running_cost(esdirk_multishoot* h, esdirk_running_cost_fn cost,
                                       void* user_data) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(h, [&]() -> int {
    if (!cost) {
      h->cost = nullptr;
    } else {
      h->cost = [cost, user_data](double t, esdirk::ConstVector x, esdirk::ConstVector z,
                                  esdirk::ConstVector u, double& value, esdirk::Vector hx,
                                  esdirk::Vector hz, esdirk::Vector hu) {
        return cost(static_cast<esdirk_int>(x.size()), static_cast<esdirk_int>(z.size()),
                    static_cast<esdirk_int>(u.size()), t, x.data(), z.empty() ? nullptr : z.data(),
                    u.empty() ? nullptr : u.data(), &value, hx.data(),
                    hz.empty() ? nullptr : hz.data(), hu.empty() ? nullptr : hu.data(), user_data);
      };
    }
    h->evaluator.reset();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_multishoot_evaluate(esdirk_multishoot* h, const double* t_begin, const double* t_end,
                               const double* x, const double* u, const double* z_guess,
                               double* x_end, double* z_end, double* A, double* B, double* H,
                               double* q, double* r, esdirk_int* status) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  const esdirk_capi::CProblem& p = *h->problem->problem;
  const esdirk_int n = h->intervals, nx = p.nx(), nz = p.nz(), nu = p.np();
  if (!t_begin || !t_end || !x || (nu > 0 && !u) || (nz > 0 && !z_guess))
    return h->fail(ESDIRK_NULL_ARGUMENT, "evaluate: t_begin, t_end, x, u and (nz > 0) z_guess are required");
  return esdirk_capi::guarded(h, [&]() -> int {
    // Bad inputs are the caller's error (as for esdirk_shooting_integrate), not failures of
    // the intervals: refused before anything runs, outputs untouched.
    const std::string bad = bad_interval_input(n, nx, nz, nu, t_begin, t_end, x, nu > 0 ? u : nullptr,
                                               nz > 0 ? z_guess : nullptr);
    if (!bad.empty()) return h->fail(ESDIRK_INVALID_ARGUMENT, bad);
    ms::IntervalEvaluator& ev = h->get();
    h->inputs = ms::IntervalInputs(n, nx, nz, nu);
    std::copy_n(t_begin, n, h->inputs.t_begin.begin());
    std::copy_n(t_end, n, h->inputs.t_end.begin());
    std::copy_n(x, n * nx, h->inputs.x.begin());
    if (nu > 0) std::copy_n(u, n * nu, h->inputs.u.begin());
    if (nz > 0) std::copy_n(z_guess, n * nz, h->inputs.z_guess.begin());
    ev.evaluate(h->inputs, h->outputs);
    const ms::IntervalOutputs& o = h->outputs;
    for (esdirk_int k = 0; k < n; ++k) {
      const int kk = static_cast<int>(k);
      if (status) status[k] = esdirk_capi::to_c_status(o.status(kk));
      if (!o.ok(kk)) continue;
      if (x_end) std::copy(o.x_end(kk).begin(), o.x_end(kk).end(), x_end + k * nx);
      if (z_end) std::copy(o.z_end(kk).begin(), o.z_end(kk).end(), z_end + k * nz);
      for (esdirk_int j = 0; j < nx; ++j)
        for (esdirk_int i = 0; i < nx; ++i)
          if (A) A[k * nx * nx + i + j * nx] = o.A(kk)(static_cast<int>(i), static_cast<int>(j));
      for (esdirk_int j = 0; j < nu; ++j)
        for (esdirk_int i = 0; i < nx; ++i)
          if (B) B[k * nx * nu + i + j * nx] = o.B(kk)(static_cast<int>(i), static_cast<int>(j));
      if (H) H[k] = o.H(kk);
      if (q) std::copy(o.q(kk).begin(), o.q(kk).end(), q + k * nx);
      if (r) std::copy(o.r(kk).begin(), o.r(kk).end(), r + k * nu);
    }
    const int first = o.first_failure();
    if (first < 0) {
      h->message.clear();
      return ESDIRK_SUCCESS;
    }
    return h->fail(esdirk_capi::to_c_status(o.status(first)), o.message(first));
  });
}

int esdirk_multishoot_estimate(esdirk_multishoot* h, const esdirk_estimation_data* d,
                               const double* theta0, esdirk_int np, double rcond,
                               esdirk_int max_iterations, esdirk_estimation_result* result) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!d || !theta0 || !result || !d->points || !d->times || !d->measured || !d->data ||
      !d->sigma || !d->nodes)
    return h->fail(ESDIRK_NULL_ARGUMENT, "estimate: data (points, times, measured, data, sigma, "
                                         "nodes), theta0 and result are required");
  return esdirk_capi::guarded(h, [&]() -> int {
    const esdirk_capi::CProblem& p = *h->problem->problem;
    if (np != p.np())
      return h->fail(ESDIRK_INVALID_ARGUMENT,
                     "estimate: np = " + std::to_string(np) + ", the problem has " + std::to_string(p.np()));
    if (d->experiments < 1 || d->ny < 1)
      return h->fail(ESDIRK_INVALID_ARGUMENT, "estimate: needs experiments >= 1 and ny >= 1");
    ms::EstimationProblem problem;
    problem.nx = p.nx();
    problem.nz = p.nz();
    problem.np = p.np();
    problem.measured.assign(d->measured, d->measured + d->ny);
    std::size_t point = 0, interval = 0;
    for (esdirk_int e = 0; e < d->experiments; ++e) {
      const std::size_t n = d->points[e] > 0 ? sz(d->points[e]) : 0;
      ms::Experiment x;
      x.times.assign(d->times + point, d->times + point + n);
      x.data.assign(d->data + point * sz(d->ny), d->data + (point + n) * sz(d->ny));
      x.sigma.assign(d->sigma + point * sz(d->ny), d->sigma + (point + n) * sz(d->ny));
      x.nodes.assign(d->nodes + point * sz(problem.nx), d->nodes + (point + n) * sz(problem.nx));
      if (problem.nz > 0 && n > 0) {
        if (!d->z_guess) return h->fail(ESDIRK_NULL_ARGUMENT, "estimate: z_guess is required when nz > 0");
        x.z_guess.assign(d->z_guess + interval * sz(problem.nz), d->z_guess + (interval + n - 1) * sz(problem.nz));
      }
      x.initial_state_known = d->initial_state_known ? d->initial_state_known[e] != 0 : true;
      problem.experiments.push_back(std::move(x));
      point += n;
      interval += n > 0 ? n - 1 : 0;
    }
    if (static_cast<esdirk_int>(interval) != h->intervals)
      return h->fail(ESDIRK_INVALID_ARGUMENT, "estimate: the experiments have " + std::to_string(interval) +
                                                  " intervals, the handle was made for " +
                                                  std::to_string(h->intervals));
    ms::GaussNewtonOptions options;
    if (rcond > 0.0) options.rcond = rcond;
    if (max_iterations > 0) options.max_iterations = static_cast<int>(max_iterations);
    ms::IntervalEvaluator& ev = h->get();
    ms::EstimationResult r;
    try {
      r = ms::estimate(problem, std::vector<double>(theta0, theta0 + np),
                       [&ev](const ms::IntervalInputs& in, ms::IntervalOutputs& out) { return ev.evaluate(in, out); },
                       options);
    } catch (const std::runtime_error& e) {  // an infeasible start
      return h->fail(ESDIRK_INVALID_ARGUMENT, e.what());
    }
    for (esdirk_int j = 0; j < np; ++j) {
      if (result->theta) result->theta[j] = r.theta[sz(j)];
      if (result->theta_lower) result->theta_lower[j] = r.theta_lower[sz(j)];
      if (result->theta_upper) result->theta_upper[j] = r.theta_upper[sz(j)];
      if (result->identifiable) result->identifiable[j] = r.identifiable[sz(j)] ? 1 : 0;
    }
    result->iterations = static_cast<esdirk_int>(r.history.size());
    result->rank = r.rank;
    result->cost = r.cost;
    result->converged = r.converged ? 1 : 0;
    if (!r.converged) return h->fail(ESDIRK_INVALID_ARGUMENT, "estimate: " + r.message);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}
