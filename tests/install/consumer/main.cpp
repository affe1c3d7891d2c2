// The smallest program against an installed esdirk: x' = -x to t = 1.
#include <cstdio>
#include <esdirk/integrator.hpp>
#include <vector>

int main() {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto x, auto, auto, auto f) {
    f[0] = -x[0];
    return 0;
  });
  esdirk::Options options;
  options.rtol = options.atol = 1e-10;
  esdirk::Integrator solver(problem, options);
  std::vector<double> x{1.0};
  if (!esdirk::ok(solver.initialize(0.0, x, {}, {})) || !esdirk::ok(solver.integrate_to(1.0, x)))
    return 1;
  std::printf("consumer: x(1) = %.10f\n", x[0]);
  return 0;
}
