// Step listeners: a user listener that logs every accepted step next to the forward
// sensitivities, and a second listener that stops the integration where x crosses a threshold
// (located on the dense output), on the index-1 DAE
//
//     x' = -p z,   0 = z - x^2,   x(0) = 1,
//
// whose solution x = 1/(1 + p t), z = x^2 has dx/dp = -t x^2 and dx/dx0 = x^2 (x0 = 1).
//
//     step_listeners [--rtol 1e-8]
//
// Prints the step log, where the threshold x = 1/2 was crossed (exactly t* = 1/p), the values
// at t = 5 against the exact solution, and CHECK PASSED when every error is within 1e3 * rtol.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "common/example_support.hpp"

namespace {

// Logs each accepted step with the sensitivities at its end. Added after the sensitivities,
// so they have already been advanced over the step when on_accept is called.
class StepLog : public esdirk::StepListener {
 public:
  explicit StepLog(const esdirk::ForwardSensitivity& sens) : sens_(sens) {}
  esdirk::AcceptVerdict on_accept(const esdirk::StepView& step, esdirk::DenseOutput&) override {
    const esdirk::ConstMatrixRef S = sens_.state_sensitivity();  // columns: d/dx0, d/dp
    const double x = step.X(0, step.stages - 1);
    if (step.index < 8 || step.index % 10 == 0)
      std::printf("%5ld %11.4e %11.4e %15.8e %15.8e %15.8e\n", step.index, step.t_end, step.h, x,
                  S(0, 0), S(0, 1));
    ++steps_;
    return esdirk::AcceptVerdict::proceed();
  }
  long steps() const { return steps_; }

 private:
  const esdirk::ForwardSensitivity& sens_;
  long steps_ = 0;
};

// Stops where x falls through `level`: a sign change of x - level over the step is bracketed
// and bisected on the dense output (the events module does this with a faster root finder).
class Threshold : public esdirk::StepListener {
 public:
  explicit Threshold(double level) : level_(level) {}
  esdirk::AcceptVerdict on_accept(const esdirk::StepView& step, esdirk::DenseOutput& dense) override {
    const double before = step.X(0, 0) - level_, after = step.X(0, step.stages - 1) - level_;
    if (fired_ || before * after > 0.0 || before == 0.0) return esdirk::AcceptVerdict::proceed();
    double a = step.t, b = step.t_end;
    std::vector<double> x(1);
    for (int k = 0; k < 200 && a != b; ++k) {
      const double m = 0.5 * (a + b);
      if (m == a || m == b) break;
      dense.evaluate(m, x);
      ((x[0] - level_) * before > 0.0 ? a : b) = m;
    }
    fired_ = true;
    return esdirk::AcceptVerdict::stop_at(b);
  }

 private:
  double level_;
  bool fired_ = false;
};

}  // namespace

const char* const usage =
    "usage: step_listeners [--rtol R]\n"
    "\n"
    "Step listeners: a logger of every accepted step beside the forward sensitivities, and a\n"
    "listener that stops the run where x crosses 1/2, checked against the exact solution.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-8)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-8;
  if (argc == 3 && !std::strcmp(argv[1], "--rtol"))
    rtol = std::atof(argv[2]);
  else if (argc != 1) {
    std::fputs(usage, stderr);
    return 2;
  }
  const double p = 2.0;
  esdirk::FunctionProblem problem(
      1, 1, 1,
      [](double, auto, auto z, auto par, auto f) {
        f[0] = -par[0] * z[0];
        return 0;
      },
      [](double, auto x, auto z, auto, auto g) {
        g[0] = z[0] - x[0] * x[0];
        return 0;
      });
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = 1e-2 * rtol;
  esdirk::Integrator solver(problem, options);
  esdirk::ForwardSensitivity sens(solver);  // listener 1
  StepLog log(sens);                        // listener 2: after the sensitivities
  Threshold half(0.5);                      // listener 3
  solver.add_listener(log);
  solver.add_listener(half);

  std::vector<double> x(1), z(1);
  esdirk::DenseMatrix Sx(1, 2), Sz(1, 2);
  if (!esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0},
                                    std::vector<double>{p})) ||
      !esdirk::ok(sens.initialize_all())) {
    std::fprintf(stderr, "initialization failed: %s %s\n", solver.message().c_str(),
                 sens.message().c_str());
    return 1;
  }
  std::printf("%5s %11s %11s %15s %15s %15s\n", "step", "t", "h", "x", "dx/dx0", "dx/dp");
  bool good = true;
  double t_star = 0.0;
  for (;;) {
    const esdirk::Outcome out = sens.integrate_to(5.0, x, z, Sx.ref(), Sz.ref());
    if (!esdirk::ok(out)) {
      std::fprintf(stderr, "integration failed: %s\n", sens.message().c_str());
      return 1;
    }
    std::printf("-- stopped: %s at t = %.15g\n", esdirk::stop_reason_name(out.reason).data(), out.t);
    if (out.reason == esdirk::StopReason::listener_stop) t_star = out.t;
    if (out.reason == esdirk::StopReason::reached_output_time) break;
  }
  const double t = 5.0, exact = 1.0 / (1.0 + p * t);
  const double errors[] = {std::abs(t_star - 1.0 / p) / (1.0 / p), std::abs(x[0] - exact) / exact,
                           std::abs(z[0] - exact * exact) / (exact * exact),
                           std::abs(Sx(0, 0) - exact * exact) / (exact * exact),
                           std::abs(Sx(0, 1) + t * exact * exact) / (t * exact * exact),
                           std::abs(Sz(0, 1) + 2.0 * t * exact * exact * exact) / (2.0 * t * exact * exact * exact)};
  const char* names[] = {"t* (x = 1/2)", "x(5)", "z(5)", "dx/dx0(5)", "dx/dp(5)", "dz/dp(5)"};
  std::printf("\n%-14s %12s\n", "quantity", "rel. error");
  for (int k = 0; k < 6; ++k) {
    std::printf("%-14s %12.3e\n", names[k], errors[k]);
    good = good && errors[k] <= 1e3 * rtol;
  }
  good = good && log.steps() == solver.statistics().accepted_steps;
  std::printf("steps logged %ld, accepted %ld, sensitivity solves %ld\n", log.steps(),
              solver.statistics().accepted_steps, solver.statistics().sensitivity_solves);
  std::puts(good ? "CHECK PASSED" : "CHECK FAILED");
  solver.remove_listener(log);
  solver.remove_listener(half);
  return good ? 0 : 1;
}
