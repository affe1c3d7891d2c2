// Achieved error against rtol for every reference problem, as a markdown table
// (doc/integrator-guide.md). "error" is the largest relative error at the end time over the
// components above their absolute tolerance.
//
//     bench_accuracy_table [--filtered]

#include <cstdio>
#include <cstring>

#include "reference_problems.hpp"

int main(int argc, char** argv) {
  const bool filtered = argc > 1 && !std::strcmp(argv[1], "--filtered");
  std::printf(
      "| problem | rtol | error | steps | rejected | f evals | LUs "
      "|\n|---|---|---|---|---|---|---|\n");
  for (auto& c : reference_problems::all()) {
    const auto base = c.options;
    c.options = [&](double rtol) {
      auto o = base(rtol);
      o.filter_error_estimate = filtered;
      return o;
    };
    for (double rtol : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      const auto out = reference_problems::solve(c, rtol);
      std::printf("| %s | %.0e | %.2e | %ld | %ld | %ld | %ld |%s\n", c.name.c_str(), rtol,
                  out.error, out.stats.steps, out.stats.rejected_steps,
                  out.stats.function_evaluations, out.stats.lu_factorizations,
                  esdirk::ok(out.status) ? "" : " FAILED");
    }
  }
  return 0;
}
