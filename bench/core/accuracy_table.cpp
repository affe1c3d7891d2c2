// Achieved error against rtol for every reference problem, as a markdown table
// (doc/integrator-guide.md). "error" is the largest relative error at the end time over the
// components above their absolute tolerance.
//
//     bench_accuracy_table [--filtered] [--set option=value ...] [--rtols r,r,...] [--summary]
//                          [--problem TEXT]
//
// --problem runs only the problems whose name contains TEXT (instruction counts of one problem).
//
// --set changes one integrator option of every run (for the measurements behind the defaults):
// max_jacobian_refreshes, max_newton_dampings, max_newton_iterations (integers), method=NAME,
// raw=1 (Options::seed002()'s tolerances), kappa=K (calibration factor), reuse_jacobian=1,
// keep_step_ratio_low=R, keep_step_ratio_high=R, jacobian_reuse_contraction=A,
// dense_predictor=1, stage_predictor=N (0 previous_stage, 1 dense_output, 2
// stage_extrapolation), factorization_policy=N (0 every_step, 1 automatic), reuse_cost_ratio=R,
// lu_reuse_h_change=C, newton_tolerance=K, newton_rate_floor=F, newton_fresh_rate_floor=F,
// newton_carry_observed_rate=B (0: the floored rate, as the rate test before it; 1: the
// default; with newton_fresh_rate_floor=0.03 and 0 the previous test), newton_test=N (0
// preconditioned_residual, 1 residual, 2 contraction_rate), difference_increment=N (0
// error_weighted, 1 relative), differences=1 (the problems' Jacobians hidden: forward
// differences).
// --summary prints one line per problem with the totals over the rtols. "Newton/stage" is the
// Newton iterations per implicit stage solve: newton_iterations / (steps x implicit stages).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "reference_problems.hpp"
#include "without_jacobians.hpp"

namespace {

using test_helpers::WithoutJacobians;

bool apply(esdirk::Options& o, const std::string& setting) {
  const auto eq = setting.find('=');
  if (eq == std::string::npos) return false;
  const std::string name = setting.substr(0, eq);
  const double value = std::atof(setting.c_str() + eq + 1);
  if (name == "max_jacobian_refreshes") o.max_jacobian_refreshes = static_cast<int>(value);
  else if (name == "max_newton_dampings") o.max_newton_dampings = static_cast<int>(value);
  else if (name == "max_newton_iterations") o.max_newton_iterations = static_cast<int>(value);
  else if (name == "method") o.method = esdirk::MethodChoice::named(setting.substr(eq + 1));
  else if (name == "raw") o.tolerance_rule = value > 0 ? esdirk::ToleranceRule::raw : esdirk::ToleranceRule::calibrated;
  else if (name == "kappa") o.calibration_factor = value;
  else if (name == "reuse_jacobian") o.reuse_jacobian = value > 0;
  else if (name == "dense_predictor") o.stage_predictor = value > 0 ? esdirk::StagePredictor::dense_output : esdirk::StagePredictor::previous_stage;
  else if (name == "factorization_policy") o.factorization_policy = static_cast<esdirk::FactorizationPolicy>(static_cast<int>(value));
  else if (name == "reuse_cost_ratio") o.reuse_cost_ratio = value;
  else if (name == "lu_reuse_h_change") o.lu_reuse_h_change = value;
  else if (name == "stage_predictor") o.stage_predictor = static_cast<esdirk::StagePredictor>(static_cast<int>(value));
  else if (name == "newton_tolerance") o.newton_tolerance = value;
  else if (name == "newton_rate_floor") o.newton_rate_floor = value;
  else if (name == "newton_fresh_rate_floor") o.newton_fresh_rate_floor = value;
  else if (name == "newton_carry_observed_rate") o.newton_carry_observed_rate = value > 0;
  else if (name == "newton_test") o.newton_test = static_cast<esdirk::NewtonTest>(static_cast<int>(value));
  else if (name == "keep_step_ratio_high") o.keep_step_ratio_high = value;
  else if (name == "keep_step_ratio_low") o.keep_step_ratio_low = value;
  else if (name == "jacobian_reuse_contraction") o.jacobian_reuse_contraction = value;
  else if (name == "difference_increment") o.difference_increment = static_cast<esdirk::DifferenceIncrement>(static_cast<int>(value));
  else if (name == "differences") {}  // applied to the problem (main)
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool filtered = false, summary = false;
  std::string only;
  std::vector<std::string> settings;
  std::vector<double> rtols{1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--filtered")) filtered = true;
    else if (!std::strcmp(argv[i], "--summary")) summary = true;
    else if (!std::strcmp(argv[i], "--set") && i + 1 < argc) settings.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--problem") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--rtols") && i + 1 < argc) {
      rtols.clear();
      for (char* p = argv[++i]; *p;) {
        rtols.push_back(std::strtod(p, &p));
        if (*p == ',') ++p;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--filtered] [--set option=value ...] [--rtols r,r] [--summary] [--problem TEXT]\n", argv[0]);
      return 2;
    }
  }
  esdirk::Options probe;
  for (const auto& s : settings)
    if (!apply(probe, s)) {
      std::fprintf(stderr, "unknown setting %s\n", s.c_str());
      return 2;
    }
  std::printf(
      "| problem | rtol | error | error/rtol | steps | rejected | Newton failures | f evals | "
      "Newton iterations | Newton/stage | Jacobians | LUs | refreshes | J reuses | LU reuses | h kept |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool differences = false;
  for (const auto& s : settings) differences = differences || s == "differences=1";
  for (auto& c : reference_problems::all()) {
    if (c.name.find(only) == std::string::npos) continue;
    if (differences) {
      const auto make = c.make;
      c.make = [make] { return std::make_unique<WithoutJacobians>(make()); };
    }
    const auto base = c.options;
    c.options = [&](double rtol) {
      auto o = base(rtol);
      o.filter_error_estimate = filtered;
      for (const auto& s : settings) apply(o, s);
      return o;
    };
    esdirk::Statistics total;
    bool all_ok = true;
    double total_stage_solves = 0.0;
    for (double rtol : rtols) {
      const auto out = reference_problems::solve(c, rtol);
      const auto& s = out.stats;
      total += s;
      // ESDIRK: the first stage is explicit.
      const double stage_solves = static_cast<double>(s.steps) * (c.options(rtol).resolved_method().stages - 1);
      total_stage_solves += stage_solves;
      all_ok = all_ok && esdirk::ok(out.status);
      if (summary) continue;
      std::printf("| %s | %.0e | %.2e | %.2g | %ld | %ld | %ld | %ld | %ld | %.2f | %ld | %ld | %ld | %ld | %ld | %ld |%s\n",
                  c.name.c_str(), rtol, out.error, out.error / rtol, s.steps, s.rejected_steps,
                  s.newton_failures, s.function_evaluations, s.newton_iterations,
                  static_cast<double>(s.newton_iterations) / stage_solves,
                  s.jacobian_evaluations, s.lu_factorizations, s.jacobian_refreshes, s.jacobian_reuses,
                  s.lu_reuses, s.steps_kept, esdirk::ok(out.status) ? "" : " FAILED");
    }
    if (summary)
      std::printf("| %s | all | | | %ld | %ld | %ld | %ld | %ld | %.2f | %ld | %ld | %ld | %ld | %ld | %ld |%s\n",
                  c.name.c_str(), total.steps, total.rejected_steps, total.newton_failures,
                  total.function_evaluations, total.newton_iterations,
                  static_cast<double>(total.newton_iterations) / total_stage_solves, total.jacobian_evaluations,
                  total.lu_factorizations, total.jacobian_refreshes, total.jacobian_reuses,
                  total.lu_reuses, total.steps_kept, all_ok ? "" : " FAILED");
  }
  return 0;
}
