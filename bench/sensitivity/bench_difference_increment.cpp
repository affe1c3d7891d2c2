// The increment of difference Jacobians on Dow (doc/sensitivity-guide.md, "Difference
// Jacobians of tiny states"): how wrong the difference columns are, and what that does to
// exact-mode forward sensitivities, under three increment rules.
//
//     bench_difference_increment [--rtols 1e-6,1e-8,1e-10] [--t-end 2] [--floor j=F ...]
//
// --floor j=F sets the increment floor of state j (0-based, x then z) to F under the
// error-weighted rule (as Integrator::set_increment_floors would): e.g. 3=1 gives u4
// its real scale.
//
// For each rtol: the accepted steps of a states-only run with the analytic Jacobian (the
// benchmark's tolerances) are replayed with step_exactly and fifteen directions (the six initial
// states, the nine parameters scaled by their values), once with the analytic Jacobians and once
// with differences under each rule; the error of column j is max_i |S_ij - S_ij(analytic)| /
// max_i |S_ij(analytic)| over the differential rows at t_end. On the same steps the two runs
// solve the same discrete scheme, so what differs is the Jacobian alone. The Jacobian columns
// themselves are compared with the analytic ones at the start of every accepted step
// (|J_fd(:,j) - J(:,j)|_max / |J(:,j)|_max; the largest over the steps).
//
// Rules: relative = MINPACK's sqrt(eps)|v_j|; error_weighted = the default
// (DifferenceIncrement::error_weighted: sqrt(eps) max(|v_j|, atol_j/rtol_j), the algebraic
// states' increment at most atol_j); atol_floor = max(sqrt(eps)|v_j|, atol_j) for every state,
// IDA's floor 1/ewt_j = atol_j + rtol_j|v_j| for the states well below atol_j/rtol_j (IDA's
// floor in full would also move every larger state by rtol_j|v_j|).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dow/dow_model.hpp"
#include "without_jacobians.hpp"
#include "esdirk/error_weights.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::DenseMatrix;

using DowWithoutJacobians = test_helpers::WithoutJacobiansOf<dow::Model>;

enum class Rule { analytic, relative, error_weighted, atol_floor };
const char* rule_name(Rule r) {
  switch (r) {
    case Rule::analytic:
      return "analytic";
    case Rule::relative:
      return "relative";
    case Rule::error_weighted:
      return "error_weighted";
    case Rule::atol_floor:
      return "atol_floor";
  }
  return "?";
}

std::vector<std::pair<int, double>> floor_overrides;  // --floor j=F

// The increment floors of a rule for the options `o`.
std::vector<double> floors_of(Rule rule, esdirk::Options o) {
  o.method = o.resolved_method();  // the tolerance rule depends on the method
  const esdirk::ErrorWeights w(o, 6, 4);
  std::vector<double> floors(10, 0.0);
  if (rule == Rule::error_weighted) {
    std::vector<double> f = w.increment_floors();
    for (const auto& [j, value] : floor_overrides) f[static_cast<std::size_t>(j)] = value;
    return f;
  }
  if (rule == Rule::atol_floor) {
    const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());
    for (int i = 0; i < 6; ++i) floors[i] = w.atol(i) / sqrt_eps;
    for (int i = 0; i < 4; ++i) floors[6 + i] = w.algebraic_atol(i) / sqrt_eps;
  }
  return floors;
}

struct Start {
  std::vector<double> x0, z0, p;
};

Start dow_start() {
  Start s;
  s.x0.assign(dow::initial_states.begin(), dow::initial_states.end());
  const auto z = dow::consistent_algebraic_start();
  s.z0.assign(z.begin(), z.end());
  s.p.assign(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  return s;
}

// Replays `steps` with fifteen directions; returns Sx at the end (6 x 15).
DenseMatrix replay(Rule rule, double rtol, const std::vector<double>& steps) {
  dow::Model analytic;
  DowWithoutJacobians differences;
  esdirk::Problem& model =
      rule == Rule::analytic ? static_cast<esdirk::Problem&>(analytic) : differences;
  esdirk::Options o = dow::benchmark_options(rtol);
  o.newton_tolerance = 1e-4;  // the replay is the discrete solution itself
  o.max_newton_iterations = 40;
  o.difference_increment = esdirk::DifferenceIncrement::relative;
  esdirk::Integrator solver(model, o);
  solver.set_increment_floors(floors_of(rule, o));
  esdirk::ForwardSensitivity sens(solver, {});
  const Start s = dow_start();
  DenseMatrix seed(15, 15);
  for (int k = 0; k < 15; ++k) seed(k, k) = k < 6 ? 1.0 : s.p[static_cast<std::size_t>(k - 6)];
  if (!esdirk::ok(solver.initialize(0.0, s.x0, s.z0, s.p)) ||
      !esdirk::ok(sens.initialize(seed.cref()))) {
    std::fprintf(stderr, "initialization failed\n");
    std::exit(1);
  }
  for (double h : steps)
    if (!esdirk::ok(solver.step_exactly(h))) {
      std::fprintf(stderr, "%s replay failed: %s\n", rule_name(rule), solver.message().c_str());
      std::exit(1);
    }
  DenseMatrix Sx(6, 15);
  const auto S = sens.state_sensitivity();
  for (int j = 0; j < 15; ++j)
    for (int i = 0; i < 6; ++i) Sx(i, j) = S(i, j);
  return Sx;
}

const char* direction_name(int j) {
  static const char* names[15] = {"u1(0)", "u2(0)", "u3(0)", "u4(0)", "u5(0)", "u6(0)", "p1", "p2",
                                  "p3",    "p4",    "p5",    "p6",    "p7",    "p8",    "p9"};
  return names[j];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> rtols{1e-6, 1e-8, 1e-10};
  double t_end = 2.0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--t-end") && i + 1 < argc) {
      t_end = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--floor") && i + 1 < argc) {
      char* end = nullptr;
      const long j = std::strtol(argv[++i], &end, 10);
      if (j < 0 || j >= 10 || *end != '=') {
        std::fprintf(stderr, "--floor expects j=F with j in [0, 10)\n");
        return 2;
      }
      floor_overrides.emplace_back(static_cast<int>(j), std::atof(end + 1));
    } else if (!std::strcmp(argv[i], "--rtols") && i + 1 < argc) {
      rtols.clear();
      for (char* p = argv[++i]; *p;) {
        rtols.push_back(std::strtod(p, &p));
        if (*p == ',') ++p;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--rtols r,r,...] [--t-end T] [--floor j=F ...]\n", argv[0]);
      return 2;
    }
  }
  const Rule rules[3] = {Rule::relative, Rule::error_weighted, Rule::atol_floor};
  for (double rtol : rtols) {
    // The steps, and the Jacobian columns at the start of every accepted step.
    dow::Model analytic;
    DowWithoutJacobians differences;
    const esdirk::Options o = dow::benchmark_options(rtol);
    esdirk::Integrator solver(analytic, o);
    std::vector<double> steps;
    double column_error[3][10] = {};
    esdirk::Statistics unused;
    const Start s = dow_start();
    DenseMatrix J(10, 10), Jd(10, 10);
    std::vector<double> f(6), g(4);
    auto compare_columns = [&](double t, ConstVector x, ConstVector z) {
      analytic.jacobian(t, x, z, s.p, J.ref());
      differences.evaluate(t, x, z, s.p, f, g);
      for (int r = 0; r < 3; ++r) {
        esdirk::JacobianEvaluator evaluator(differences, unused);
        evaluator.set_increment_floors(floors_of(rules[r], o));
        evaluator.state_jacobian(t, x, z, s.p, f, g, Jd.ref());
        for (int j = 0; j < 10; ++j) {
          double scale = 0.0, diff = 0.0;
          for (int i = 0; i < 10; ++i) {
            scale = std::max(scale, std::abs(J(i, j)));
            diff = std::max(diff, std::abs(Jd(i, j) - J(i, j)));
          }
          if (scale > 0.0) column_error[r][j] = std::max(column_error[r][j], diff / scale);
        }
      }
    };
    std::vector<double> xn(6), zn(4);
    solver.set_step_observer([&](const esdirk::StepView& step) {
      steps.push_back(step.h);
      for (int i = 0; i < 6; ++i) xn[static_cast<std::size_t>(i)] = step.X(i, 0);
      for (int i = 0; i < 4; ++i) zn[static_cast<std::size_t>(i)] = step.Z(i, 0);
      compare_columns(step.t, xn, zn);  // J at t_n, where the step forms it
    });
    if (!esdirk::ok(solver.initialize(0.0, s.x0, s.z0, s.p))) return 1;
    solver.set_stop_time(t_end);
    std::vector<double> x(6), z(4);
    if (!esdirk::ok(solver.integrate_to(t_end, x, z))) return 1;
    std::printf("## rtol %.0e: %zu steps to %g h\n\n", rtol, steps.size(), t_end);
    std::printf(
        "Largest column error of the difference J over the accepted steps:\n\n"
        "| rule | u1 | u2 | u3 | u4 | u5 | u6 | u7 | u8 | u9 | u10 |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < 3; ++r) {
      std::printf("| %s |", rule_name(rules[r]));
      for (int j = 0; j < 10; ++j) std::printf(" %.1e |", column_error[r][j]);
      std::printf("\n");
    }
    const DenseMatrix reference = replay(Rule::analytic, rtol, steps);
    DenseMatrix differenced[3];
    for (int r = 0; r < 3; ++r) differenced[r] = replay(rules[r], rtol, steps);
    std::printf(
        "\nError of the sensitivity column at %g h against the analytic Jacobian (same steps):\n\n"
        "| direction | relative | error_weighted | atol_floor |\n|---|---|---|---|\n",
        t_end);
    double worst_other[3] = {};
    for (int j = 0; j < 15; ++j) {
      std::printf("| %s |", direction_name(j));
      for (int r = 0; r < 3; ++r) {
        double scale = 0.0, diff = 0.0;
        for (int i = 0; i < 6; ++i) {
          scale = std::max(scale, std::abs(reference(i, j)));
          diff = std::max(diff, std::abs(differenced[r](i, j) - reference(i, j)));
        }
        const double e = scale > 0.0 ? diff / scale : diff;
        if (j != 3) worst_other[r] = std::max(worst_other[r], e);
        std::printf(" %.1e |", e);
      }
      std::printf("\n");
    }
    std::printf("| all but u4(0), largest | %.1e | %.1e | %.1e |\n\n", worst_other[0],
                worst_other[1], worst_other[2]);
  }
  return 0;
}
