// The C++ API's results on the problems test_same_as_cpp.py solves from Python, printed
// exactly (hexadecimal floating point), one line per quantity:
//
//     <run> <name> <value> <value> ...
//
// Each run here is what the Python call does inside the library: the same options, the same
// initialization, stop time and output loop. The models are the examples' (Dow, the bouncing
// ball) or written here in the same arithmetic as esdirk.models (or as the Python tests write
// them).

#include <cstdio>
#include <string>
#include <vector>

#include "bouncing_ball_model.hpp"
#include "dow_model.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"

namespace {

void print(const std::string& run, const std::string& name, const std::vector<double>& values) {
  std::printf("%s %s", run.c_str(), name.c_str());
  for (double v : values) std::printf(" %a", v);
  std::printf("\n");
}

void print(const std::string& run, const std::string& name, esdirk::ConstMatrixRef m) {
  std::vector<double> row_major;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) row_major.push_back(m(i, j));
  print(run, name, row_major);
}

void print_counts(const std::string& run, const esdirk::Statistics& s) {
  std::printf("%s counts %ld %ld %ld %ld\n", run.c_str(), s.steps, s.function_evaluations,
              s.jacobian_evaluations, s.lu_factorizations);
}

class Robertson : public esdirk::Problem {
 public:
  Robertson() : Problem(3, 0, 0) {}
  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector) override {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
    f[2] = 3e7 * y[1] * y[1];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J(0, 0) = -0.04, J(0, 1) = 1e4 * y[2], J(0, 2) = 1e4 * y[1];
    J(1, 0) = 0.04, J(1, 1) = -1e4 * y[2] - 6e7 * y[1], J(1, 2) = -1e4 * y[1];
    J(2, 0) = 0.0, J(2, 1) = 6e7 * y[1], J(2, 2) = 0.0;
    return 0;
  }
};

// solve_ivp(robertson, (0, 1e5), [1, 0, 0], t_eval=[1e-3, 1, 1e3, 1e5], rtol=1e-8,
// atol=1e-14, jac=robertson_jac)
void robertson() {
  Robertson problem;
  esdirk::Options options;
  options.rtol = 1e-8;
  options.atol = 1e-14;
  esdirk::Integrator solver(problem, options);
  solver.initialize(0.0, std::vector<double>{1.0, 0.0, 0.0}, {}, {});
  solver.set_stop_time(1e5);
  std::vector<double> y(3);
  for (double t : {1e-3, 1.0, 1e3, 1e5}) {
    solver.integrate_to(t, y);
    print("robertson", "y", y);
  }
  print_counts("robertson", solver.statistics());
}

// solve_ivp(dow_f, (0, 10), x0, g=dow_g, z0=dow_z0(), p=parameters, jac=dow_jac,
// jac_p=dow_jac_p, t_eval=[1e-3, 0.1, 1, 10], rtol=1e-6, atol=1e-12,
// algebraic_atol=..., seed=dow_scaled_seed())
void dow_sensitivities() {
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(1e-6));
  const auto z_start = dow::consistent_algebraic_start();
  solver.initialize(
      0.0, std::vector<double>(dow::initial_states.begin(), dow::initial_states.end()),
      std::vector<double>(z_start.begin(), z_start.end()),
      std::vector<double>(dow::nominal_parameters.begin(), dow::nominal_parameters.end()));
  esdirk::ForwardSensitivity sens(solver);
  esdirk::DenseMatrix seed(15, 9);
  for (int j = 0; j < 9; ++j) seed(6 + j, j) = dow::nominal_parameters[static_cast<std::size_t>(j)];
  sens.initialize(seed.cref());
  solver.set_stop_time(10.0);
  std::vector<double> x(6), z(4);
  esdirk::DenseMatrix Sx(6, 9), Sz(4, 9);
  for (double t : {1e-3, 0.1, 1.0, 10.0}) {
    sens.integrate_to(t, x, z, Sx.ref(), Sz.ref());
    print("dow", "x", x);
    print("dow", "z", z);
    print("dow", "Sx", Sx.cref());
    print("dow", "Sz", Sz.cref());
  }
  print_counts("dow", solver.statistics());
}

// HybridSolver(HybridProblem(ball...), Options(rtol=1e-8, atol=1e-10)); initialize(0, 0,
// [5, -0.1], p=[10, 0.8]); initialize_sensitivities(); integrate_to(t) for t in 0.5 .. 1.9.
// The Python model has no event or reset Jacobians: differences here too.
void ball(bool analytic_event_jacobians) {
  const std::string run = analytic_event_jacobians ? "ball_analytic" : "ball";
  bouncing_ball::Model model;
  model.use_analytic_event_jacobians(analytic_event_jacobians);
  esdirk::HybridOptions options;
  options.integrator.rtol = 1e-8;
  options.integrator.atol = 1e-10;
  esdirk::HybridSolver solver(model, options);
  solver.initialize(0.0, 0, std::vector<double>{5.0, -0.1}, {}, std::vector<double>{10.0, 0.8});
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  solver.initialize_sensitivities(seed.cref());
  std::vector<double> x(2);
  esdirk::DenseMatrix Sx(2, 4);
  for (double t : {0.5, 1.0, 1.5, 1.9}) {
    solver.integrate_to(t, x, {}, Sx.ref());
    print(run, "x", x);
    print(run, "Sx", Sx.cref());
  }
  std::vector<double> times;
  for (int i = 0; i < solver.logged_events(); ++i) times.push_back(solver.event(i).t);
  print(run, "events", times);
  print_counts(run, solver.statistics());
}

// A gain switched by an event (doc/events-guide.md, "Parameter resets"): x' = -k x, when
// x - 1/2 falls through zero k := 2 k; with an initial event, a second component x - 2 > 0
// fires at t0 if flagged and sets x := 3/2 there, k := k + 1. Python:
// HybridProblem(1, 0, 1, 2, f, events, transition, parameter_reset[, parameter_reset_jac]);
// HybridSolver(problem, Options(rtol=1e-9, atol=1e-12), directions=[-1, 1],
// initial_events=[False, True]); initialize(0, 0, [2.5], p=[1]); initialize_sensitivities();
// integrate_to(t) for t in 0.5, 1, 2.
class GainSwitch : public esdirk::HybridProblem {
 public:
  explicit GainSwitch(bool analytic) : HybridProblem(1, 0, 1, 2), analytic_(analytic) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 0.5;
    h[1] = x[0] - 2.0;
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector x_plus) override {
    next_mode = mode;
    if (cause.fired_component(1)) x_plus[0] = 1.5;
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                       esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                       esdirk::Vector p_plus) override {
    p_plus[0] = cause.fired_component(1) ? p[0] + 1.0 : 2.0 * p[0];
    return 0;
  }
  bool has_parameter_reset_jacobian() const override { return analytic_; }
  int parameter_reset_jacobian(int, const esdirk::TransitionCause& cause, double,
                               esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                               esdirk::ConstVector, esdirk::MatrixRef E) override {
    E.fill(0.0);  // columns [t, x, k]
    E(0, 2) = cause.fired_component(1) ? 1.0 : 2.0;
    return 0;
  }

 private:
  bool analytic_;
};

void gain_switch(bool analytic) {
  const std::string run = analytic ? "gain_analytic" : "gain";
  GainSwitch model(analytic);
  esdirk::HybridOptions options;
  options.integrator.rtol = 1e-9;
  options.integrator.atol = 1e-12;
  options.directions = {esdirk::EventDirection::falling, esdirk::EventDirection::rising};
  options.initial_events = {false, true};
  esdirk::HybridSolver solver(model, options);
  solver.initialize(0.0, 0, std::vector<double>{2.5}, {}, std::vector<double>{1.0});
  esdirk::DenseMatrix seed(2, 2);
  seed(0, 0) = seed(1, 1) = 1.0;
  solver.initialize_sensitivities(seed.cref());
  std::vector<double> x(1);
  esdirk::DenseMatrix Sx(1, 2);
  for (double t : {0.5, 1.0, 2.0}) {
    solver.integrate_to(t, x, {}, Sx.ref());
    print(run, "x", x);
    print(run, "Sx", Sx.cref());
    print(run, "p", std::vector<double>(solver.parameters().begin(), solver.parameters().end()));
    print(run, "Sp", solver.parameter_sensitivity());
  }
  std::vector<double> times, p_plus;
  for (int i = 0; i < solver.logged_events(); ++i) {
    times.push_back(solver.event(i).t);
    p_plus.push_back(solver.event(i).p_plus[0]);
  }
  print(run, "events", times);
  print(run, "p_plus", p_plus);
  print_counts(run, solver.statistics());
}

// The thermostat of test_hybrid_adjoint.py: a temperature x0 heated toward p[1] at rate p[0]
// (mode 0) until it rises to 0.7, then cooled toward 0 (mode 1) until it falls to 0.3; x1 =
// int (x0 - 1/2)^2 dt, a running cost as a state. Python: HybridProblem(2, 0, 2, 1, f, jac=,
// jac_p=, events=, transition=) in the same arithmetic; the event and reset Jacobians by
// differences.
class Thermostat : public esdirk::HybridProblem {
 public:
  Thermostat() : HybridProblem(2, 0, 2, 1) {}
  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    const double u = mode == 0 ? p[1] : 0.0, d = x[0] - 0.5;
    f[0] = -p[0] * (x[0] - u);
    f[1] = d * d;
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::MatrixRef J) override {
    J(0, 0) = -p[0], J(0, 1) = 0.0;
    J(1, 0) = 2.0 * (x[0] - 0.5), J(1, 1) = 0.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int mode, double, esdirk::ConstVector x, esdirk::ConstVector,
                         esdirk::ConstVector p, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    const double u = mode == 0 ? p[1] : 0.0;
    Jp(0, 0) = -(x[0] - u), Jp(0, 1) = mode == 0 ? p[0] : 0.0;
    Jp(1, 0) = 0.0, Jp(1, 1) = 0.0;
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - (mode == 0 ? 0.7 : 0.3);
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector x_plus) override {
    next_mode = 1 - mode;
    x_plus[0] = x[0];
    x_plus[1] = x[1];
    return 0;
  }
};

// HybridSolver(thermostat, Options(rtol=1e-8, atol=1e-10)); HybridAdjoint(solver);
// initialize(0, 0, [0.2, 0], p=[2, 1]); adjoint.integrate_to(t) for t in 1, 2.5, 4;
// gradient(weights=[[0, 1], [1, 0]], at_output=...): row 0 is q(4) + sum_k t_k p1^2 / 2, row 1
// x0(4) + sum_k x0(t_k).
void thermostat_adjoint() {
  const std::string run = "thermostat_adjoint";
  Thermostat model;
  esdirk::HybridOptions options;
  options.integrator.rtol = 1e-8;
  options.integrator.atol = 1e-10;
  esdirk::HybridSolver solver(model, options);
  esdirk::HybridAdjoint adjoint(solver);
  solver.initialize(0.0, 0, std::vector<double>{0.2, 0.0}, {}, std::vector<double>{2.0, 1.0});
  std::vector<double> x(2);
  for (double t : {1.0, 2.5, 4.0}) {
    adjoint.integrate_to(t, x);
    print(run, "x", x);
  }
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(2, 2);
  w(0, 1) = w(1, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  objective.at_output = [](int, double t, esdirk::ConstVector, esdirk::ConstVector,
                           esdirk::ConstVector p, esdirk::MatrixRef dx, esdirk::MatrixRef,
                           esdirk::MatrixRef dp) {
    dx(0, 1) = 1.0;
    dp(1, 0) = t * p[1];
    return 0;
  };
  esdirk::DenseMatrix dx0(2, 2), dp(2, 2);
  const esdirk::Status status = adjoint.gradient(objective, dx0.ref(), dp.ref());
  if (!esdirk::ok(status)) std::printf("%s failed %s\n", run.c_str(), adjoint.message().c_str());
  print(run, "dx0", dx0.cref());
  print(run, "dp", dp.cref());
  std::vector<double> times;
  for (int i = 0; i < solver.logged_events(); ++i) times.push_back(solver.event(i).t);
  print(run, "events", times);
  const esdirk::HybridAdjointReport& r = adjoint.report();
  std::printf("%s counts %ld %ld %ld %ld %ld %ld\n", run.c_str(), r.sweep.adjoint_steps,
              r.sweep.transposed_solves, r.segments, r.jumps, r.sweep.objective_evaluations,
              static_cast<long>(adjoint.steps()));
}

// ShootingInterval(Problem(2, 0, 1, vdp), Options(rtol=1e-8, atol=1e-10), running_cost=cost):
// integrate(0, 0.5, [1, 0], [0.3]), then integrate(0.5, 1, x_end, [-0.2]) (warm start).
void shooting_interval() {
  const double mu = 1.0;
  esdirk::FunctionProblem problem(2, 0, 1,
                                  [mu](double, esdirk::ConstVector x, esdirk::ConstVector,
                                       esdirk::ConstVector u, esdirk::Vector f) {
                                    f[0] = x[1];
                                    f[1] = mu * (1.0 - x[0] * x[0]) * x[1] - x[0] + u[0];
                                    return 0;
                                  });
  esdirk::Options options;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  esdirk::ShootingInterval interval(problem, options);
  interval.set_running_cost([](double, esdirk::ConstVector x, esdirk::ConstVector,
                               esdirk::ConstVector u, double& value, esdirk::Vector hx,
                               esdirk::Vector, esdirk::Vector hu) {
    value = x[0] * x[0] + u[0] * u[0];
    hx[0] = 2.0 * x[0];
    hx[1] = 0.0;
    hu[0] = 2.0 * u[0];
    return 0;
  });
  std::vector<double> x{1.0, 0.0};
  for (double u : {0.3, -0.2}) {
    const double t0 = u > 0 ? 0.0 : 0.5;
    const esdirk::ShootingResult& r = interval.integrate(t0, t0 + 0.5, x, std::vector<double>{u});
    print("shooting", "x", r.x);
    print("shooting", "A", r.A.cref());
    print("shooting", "B", r.B.cref());
    print("shooting", "H", {r.H});
    print("shooting", "q", r.q);
    print("shooting", "r", r.r);
    x = r.x;
  }
}

}  // namespace

int main() {
  robertson();
  dow_sensitivities();
  ball(false);
  ball(true);
  gain_switch(false);
  gain_switch(true);
  shooting_interval();
  thermostat_adjoint();
  return 0;
}
