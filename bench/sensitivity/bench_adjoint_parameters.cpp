// The adjoint's cost does not grow with the number of parameters: a stiff reaction-diffusion
// chain (chain_model.hpp, nx = 20 states) with np = 1, 9, 50 or 100 distributed parameters, the
// gradient of Phi = sum_i x_i(T) / nx + int h dt (h = |x|^2/nx + |u|^2) with respect to all
// initial states and parameters. Prints, per np, the wall time of (forward run with recording +
// reverse sweep) over a states-only run, and for contrast that of forward sensitivities in the
// np parameter directions (exact mode, kept out of the error test: the same steps). Best of R
// repeats; run with OPENBLAS_NUM_THREADS=1.
//
// Three forms of the same model: "hand" (Chain: hand-written J and the dense f_p, which the
// sweep multiplies by its adjoints at every stage), "AD" (ChainModel in esdirk::ad::ModelProblem:
// J by coloured forward mode on the structure the adapter finds itself (3 colours), dense LU;
// the sweep's parameter terms w^T f_p, Problem::parameter_vjp, from the compressed columns of
// f_p on the structure found (one parameter per equation: one colour), once per stage point
// and carried in the lane J's coloured pass leaves unused, then over f_p's entries only; with np = 1 from f_p by one forward pass: ParameterTerms::
// automatic) and "AD band" (the same with the tridiagonal band declared: J by coloured forward
// mode on the band, and the band LU). "AD band rev": the parameter terms by the tape
// (ParameterTerms::reverse_mode), the cost that stays flat in np.
//
//     bench_adjoint_parameters [--repeats 20] [--nx 20] [--np N (this np only)]
//                              [--form hand|AD|"AD band" (this form only)] [--no-forward]
//                              [--split] [--gradient]
// (--form and --no-forward make a run for callgrind: the states-only runs and the adjoint's).
// --split adds the adjoint's two parts (the forward run with recording, the sweep; best of R
// each, so they need not add up to the adjoint's best); --gradient prints dPhi/dx0 and dPhi/dp
// of the last repeat in hexadecimal (%a), to compare two builds bit for bit.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "chain_model.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr double T_END = 2.0;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One row: the model `model` (nx states, np parameters) under its name `form`.
bool with_forward = true;  // --no-forward: skip the forward sensitivities (printed as 0)
bool split = false;         // --split: the recording run and the sweep apart
bool print_gradient = false;  // --gradient: the gradient in hexadecimal

bool measure(const char* form, esdirk::Problem& model, int nx, int np, int repeats, const esdirk::Options& options) {
  std::vector<double> x0(static_cast<std::size_t>(nx)), p(static_cast<std::size_t>(np));
  for (int i = 0; i < nx; ++i) x0[static_cast<std::size_t>(i)] = 1.0 + 0.5 * i / nx;
  for (int j = 0; j < np; ++j) p[static_cast<std::size_t>(j)] = 0.3 + 0.1 * j / np;
  std::vector<double> x(static_cast<std::size_t>(nx));
  std::vector<double> hx(static_cast<std::size_t>(nx)), hu(static_cast<std::size_t>(np));
  esdirk::AdjointObjective objective;
  objective.terminal = [nx](double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                            esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    for (int i = 0; i < nx; ++i) dx(i, 0) = 1.0 / nx;
    return 0;
  };
  objective.running = [&](double t, esdirk::ConstVector xs, esdirk::ConstVector z, esdirk::ConstVector u,
                          esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef du) {
    double h = 0.0;
    bench::chain_cost(t, xs, z, u, h, hx, {}, hu);
    for (int i = 0; i < nx; ++i) dx(i, 0) = hx[static_cast<std::size_t>(i)];
    for (int j = 0; j < np; ++j) du(j, 0) = hu[static_cast<std::size_t>(j)];
    return 0;
  };
  esdirk::DenseMatrix dx0(nx, 1), dp(np, 1);
  double states = 1e30, adjoint_time = 1e30, forward_time = with_forward ? 1e30 : 0.0;
  double recording_time = 1e30, sweep_time = 1e30;
  long steps = 0;
  for (int r = 0; r < repeats; ++r) {
    {
      esdirk::Integrator solver(model, options);
      const auto start = Clock::now();
      if (!esdirk::ok(solver.initialize(0.0, x0, {}, p))) return false;
      solver.set_stop_time(T_END);
      if (!esdirk::ok(solver.integrate_to(T_END, x).status)) return false;
      states = std::min(states, seconds_since(start));
      steps = solver.statistics().accepted_steps;
    }
    {
      esdirk::Integrator solver(model, options);
      esdirk::Adjoint adjoint(solver);
      const auto start = Clock::now();
      if (!esdirk::ok(solver.initialize(0.0, x0, {}, p))) return false;
      solver.set_stop_time(T_END);
      if (!esdirk::ok(solver.integrate_to(T_END, x).status)) return false;
      const auto sweep_start = Clock::now();
      if (!esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()))) return false;
      adjoint_time = std::min(adjoint_time, seconds_since(start));
      sweep_time = std::min(sweep_time, seconds_since(sweep_start));
      recording_time = std::min(recording_time, std::chrono::duration<double>(sweep_start - start).count());
    }
    if (with_forward) {
      esdirk::Integrator solver(model, options);
      esdirk::SensitivityOptions so;
      so.error_control = false;
      esdirk::ForwardSensitivity sensitivity(solver, so);
      esdirk::DenseMatrix seed(nx + np, np), Sx(nx, np);
      for (int j = 0; j < np; ++j) seed(nx + j, j) = 1.0;
      const auto start = Clock::now();
      if (!esdirk::ok(solver.initialize(0.0, x0, {}, p))) return false;
      if (!esdirk::ok(sensitivity.initialize(seed.cref()))) return false;
      solver.set_stop_time(T_END);
      if (!esdirk::ok(sensitivity.integrate_to(T_END, x, {}, Sx.ref(), {}).status)) return false;
      forward_time = std::min(forward_time, seconds_since(start));
    }
  }
  std::printf("%-11s %5d %7ld %10.3fms %10.3fms %10.2f %12.3fms %10.2f", form, np, steps, 1e3 * states,
              1e3 * adjoint_time, adjoint_time / states, 1e3 * forward_time, forward_time / states);
  if (split)
    std::printf("   recording %.3fms (%.2f) sweep %.3fms (%.2f)", 1e3 * recording_time, recording_time / states,
                1e3 * sweep_time, sweep_time / states);
  std::printf("\n");
  if (print_gradient) {
    for (int i = 0; i < nx; ++i) std::printf("  dx0[%d] = %a\n", i, dx0(i, 0));
    for (int j = 0; j < np; ++j) std::printf("  dp[%d] = %a\n", j, dp(j, 0));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20, nx = 20, only_np = 0;
  const char* only_form = nullptr;
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (std::strcmp(argv[i], "--no-forward") == 0) with_forward = false;
    else if (std::strcmp(argv[i], "--split") == 0) split = true;
    else if (std::strcmp(argv[i], "--gradient") == 0) print_gradient = true;
    else if (value && std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[++i]);
    else if (value && std::strcmp(argv[i], "--nx") == 0) nx = std::atoi(argv[++i]);
    else if (value && std::strcmp(argv[i], "--np") == 0) only_np = std::atoi(argv[++i]);
    else if (value && std::strcmp(argv[i], "--form") == 0) only_form = argv[++i];
  }
  const auto wanted = [&](const char* form) { return only_form == nullptr || std::strcmp(form, only_form) == 0; };
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  std::printf("reaction-diffusion chain, nx = %d, T = %g, rtol 1e-6, best of %d\n", nx, T_END, repeats);
  std::printf("%-11s %5s %7s %12s %12s %10s %14s %10s\n", "model", "np", "steps", "states-only", "adjoint", "ratio",
              "forward sens.", "ratio");
  const std::vector<int> counts = only_np > 0 ? std::vector<int>{only_np} : std::vector<int>{1, 9, 50, 100};
  for (int np : counts) {
    bench::Chain hand(nx, np);
    esdirk::ad::ModelProblem<bench::ChainModel> ad(nx, 0, np, bench::ChainModel(nx, np));
    esdirk::ad::ModelProblem<bench::ChainModel> banded(nx, 0, np, bench::ChainModel(nx, np));
    banded.set_jacobian_bandwidths(1, 1);
    if ((wanted("hand") && !measure("hand", hand, nx, np, repeats, options)) ||
        (wanted("AD") && !measure("AD", ad, nx, np, repeats, options)) ||
        (wanted("AD band") && !measure("AD band", banded, nx, np, repeats, options)))
      return 1;
    if (wanted("AD band rev")) {
      banded.set_parameter_terms(esdirk::ad::ParameterTerms::reverse_mode);
      if (!measure("AD band rev", banded, nx, np, repeats, options)) return 1;
    }
  }
  return 0;
}
