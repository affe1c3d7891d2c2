// Newton-Krylov against the size of a 3-D grid: esdirk with LinearSolverKind::krylov on the
// Brusselator of examples/reaction_diffusion_3d (n = 2 N^3), states only, the settings of
// bench/sundials/bench_krylov_cvodes (GMRES(30), 4 restarts, forcing term 0.05, J analytic on its
// pattern) with the built-in preconditioner of --preconditioner (ilu0, the default, or
// block_jacobi on the two species of each point), over a list of sides N and a fixed time span.
// Per run: accepted and rejected steps, Newton and GMRES iterations (and GMRES per Newton
// iteration: on the unit cube the Laplacian's stiffness c = alpha (N+1)^2 grows with N, so the
// stage matrix's condition grows like h gamma c and no one-level preconditioner keeps them
// bounded), user CPU seconds per step and unknown, and two memory measures per unknown:
//  - heap: glibc mallinfo2, small and mmapped blocks in use at the end of the run minus before
//    the integrator was made (the solver's own data; the problem and its pattern not counted),
//    as the other memory tables of doc/benchmarks.md;
//  - peak RSS: the process's high-water resident set (getrusage ru_maxrss) at the end of the run
//    minus the resident set before the integrator was made; shown only when the run raised the
//    high-water mark (each side's first run, the sides in increasing order), "-" otherwise.
// --fixed-spacing-of-side M (weak scaling; also spelled --diffusion-of-side M): alpha scaled by
// ((M + 1)/(N + 1))^2, so that c = alpha (N+1)^2, the Laplacian's stiffness, stays at its value
// on the M^3 grid while n grows. By x -> L x this is exactly the problem on the cube of side
// L = (N + 1)/(M + 1) with the grid spacing 1/(M + 1) of the M^3 grid and the original alpha
// (the initial profile stretched with it): the domain grows with n at a fixed spacing, the
// stage matrices keep their spectrum, and the cost per unknown measures the implementation.
// doc/benchmarks.md, "3-D grid: Newton-Krylov".
//
//     bench_krylov_scaling [--sides N,N,...] [--t-end T] [--rtol R] [--repeat K] [--csv FILE]
//                          [--fixed-spacing-of-side M] [--preconditioner ilu0|block_jacobi]
//                          [--quick]
//
// Defaults: sides 8,13,20,30,47,63,80 (n = 1024 ... 1 024 000), t = 0 .. 10 (the span of the
// work-precision runs), rtol = atol = 1e-5,
// one run per side. --quick (CTest): sides 6 and 10, t = 0 .. 0.1; checks that every run
// succeeds without a GMRES failure and that the heap per unknown differs by less than 25 % between
// the two sides (memory linear in n); no timing is checked. Prints "all checks passed".

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "reaction_diffusion_3d/brusselator_3d_model.hpp"

namespace {

struct Run {
  int side = 0;
  long n = 0;
  bool ok = false;
  long steps = 0, rejected = 0, newton = 0, gmres = 0, setups = 0, gmres_failures = 0;
  double user_seconds = 0.0, system_seconds = 0.0;
  double heap_bytes = 0.0;     // mallinfo2: held at the end minus before the integrator
  double rss_bytes = -1.0;     // peak RSS minus RSS before the integrator; < 0: not measured
};

double heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

struct Usage {
  double user = 0.0, system = 0.0, max_rss_bytes = 0.0;
};

Usage usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {seconds(u.ru_utime), seconds(u.ru_stime), 1024.0 * static_cast<double>(u.ru_maxrss)};
}

// The resident set now (VmRSS of /proc/self/status), in bytes; 0 if unreadable.
double resident_bytes() {
  FILE* file = std::fopen("/proc/self/status", "r");
  if (file == nullptr) return 0.0;
  char line[256];
  double kb = 0.0;
  while (std::fgets(line, sizeof line, file) != nullptr)
    if (std::strncmp(line, "VmRSS:", 6) == 0) kb = std::atof(line + 6);
  std::fclose(file);
  return 1024.0 * kb;
}

int diffusion_side = 0;  // --fixed-spacing-of-side: > 0 holds c = alpha (N+1)^2 at this side's value
esdirk::KrylovPreconditioner preconditioner = esdirk::KrylovSettings{}.preconditioner;  // --preconditioner

Run run_esdirk(int side, double t_end, double rtol) {
  reaction_diffusion_3d::Brusselator3d model(side);
  model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::krylov);
  esdirk::KrylovSettings krylov;
  krylov.block_size = 2;  // u and v of one grid point (block_jacobi)
  krylov.preconditioner = preconditioner;
  model.set_krylov_settings(krylov);
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  std::vector<double> y = model.initial_state();
  std::vector<double> p = model.nominal_parameters();
  if (diffusion_side > 0) p[2] *= (diffusion_side + 1.0) * (diffusion_side + 1.0) / ((side + 1.0) * (side + 1.0));

  Run run;
  run.side = side;
  run.n = model.size();
  const double heap_before = heap_in_use();
  const double rss_before = resident_bytes();
  const Usage before = usage();
  {
    esdirk::Integrator integrator(model, options);
    run.ok = esdirk::ok(integrator.initialize(0.0, y, {}, p)) &&
             esdirk::ok(integrator.integrate_to(t_end, y).status);
    const Usage after = usage();
    run.heap_bytes = heap_in_use() - heap_before;
    run.user_seconds = after.user - before.user;
    run.system_seconds = after.system - before.system;
    if (after.max_rss_bytes > before.max_rss_bytes) run.rss_bytes = after.max_rss_bytes - rss_before;
    const esdirk::Statistics& s = integrator.statistics();
    run.steps = s.accepted_steps;
    run.rejected = s.steps - s.accepted_steps;
    run.newton = s.newton_iterations;
    run.gmres = s.linear_iterations;
    run.setups = s.preconditioner_setups;
    run.gmres_failures = s.linear_solver_failures;
  }
  return run;
}

double per_step_and_unknown(const Run& r) {
  return r.steps > 0 ? r.user_seconds / (static_cast<double>(r.steps) * static_cast<double>(r.n)) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sides = {8, 13, 20, 30, 47, 63, 80};
  double t_end = 10.0, rtol = 1e-5;
  int repeat = 1;
  bool quick = false;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--t-end" && i + 1 < argc) t_end = std::atof(argv[++i]);
    else if (arg == "--rtol" && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--csv" && i + 1 < argc) csv = argv[++i];
    else if ((arg == "--fixed-spacing-of-side" || arg == "--diffusion-of-side") && i + 1 < argc)
      diffusion_side = std::atoi(argv[++i]);
    else if (arg == "--preconditioner" && i + 1 < argc && (std::strcmp(argv[i + 1], "ilu0") == 0 ||
                                                           std::strcmp(argv[i + 1], "block_jacobi") == 0))
      preconditioner = std::strcmp(argv[++i], "ilu0") == 0 ? esdirk::KrylovPreconditioner::ilu0
                                                           : esdirk::KrylovPreconditioner::block_jacobi;
    else if (arg == "--quick") quick = true;
    else if (arg == "--sides" && i + 1 < argc) {
      sides.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) sides.push_back(std::atoi(item.c_str()));
    } else {
      std::printf("usage: bench_krylov_scaling [--sides N,N,...] [--t-end T] [--rtol R] [--repeat K] "
                  "[--csv FILE] [--fixed-spacing-of-side M] [--preconditioner ilu0|block_jacobi] [--quick]\n");
      return arg == "--help" ? 0 : 2;
    }
  }
  if (quick) {
    sides = {6, 10};
    t_end = 0.1;
    repeat = 1;
  }
  FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (!csv.empty() && out == nullptr) {
    std::printf("cannot write %s\n", csv.c_str());
    return 2;
  }
  if (out != nullptr)
    std::fprintf(out, "preconditioner,fixed_spacing_of_side,side,n,t_end,rtol,ok,steps,rejected,newton,gmres,preconditioner_setups,gmres_failures,"
                      "user_s,system_s,us_per_step_unknown,heap_bytes_per_unknown,peak_rss_bytes_per_unknown\n");
  std::printf("3-D Brusselator, esdirk Newton-Krylov (GMRES(30), %s), t = 0 .. %g, rtol = atol = %g\n",
              preconditioner == esdirk::KrylovPreconditioner::ilu0 ? "ILU(0)" : "block-Jacobi 2x2", t_end, rtol);
  if (diffusion_side > 0)
    std::printf("fixed grid spacing (weak scaling): the %d^3 grid's spacing and stiffness, the domain growing with N "
                "(alpha scaled by ((%d+1)/(N+1))^2)\n",
                diffusion_side, diffusion_side);
  std::printf("%4s %8s %6s %4s %7s %8s %10s %8s %8s %10s %10s %10s\n", "N", "n", "steps", "rej", "Newton",
              "GMRES", "GMRES/Nwt", "user s", "sys s", "us/step/n", "heap B/n", "RSS B/n");
  bool all_ok = true;
  std::vector<Run> first;  // each side's first run
  for (int side : sides) {
    for (int k = 0; k < repeat; ++k) {
      const Run r = run_esdirk(side, t_end, rtol);
      if (k == 0) first.push_back(r);
      all_ok = all_ok && r.ok && r.gmres_failures == 0;
      const double n = static_cast<double>(r.n);
      char rss[32];
      if (r.rss_bytes >= 0.0) std::snprintf(rss, sizeof rss, "%.0f", r.rss_bytes / n);
      else std::snprintf(rss, sizeof rss, "-");
      std::printf("%4d %8ld %6ld %4ld %7ld %8ld %10.2f %8.3f %8.3f %10.3f %10.0f %10s%s\n", r.side, r.n, r.steps,
                  r.rejected, r.newton, r.gmres, r.newton > 0 ? static_cast<double>(r.gmres) / r.newton : 0.0,
                  r.user_seconds, r.system_seconds, 1e6 * per_step_and_unknown(r), r.heap_bytes / n, rss,
                  r.ok ? (r.gmres_failures > 0 ? "  GMRES failures" : "") : "  FAILED");
      std::fflush(stdout);
      if (out != nullptr) {
        std::fprintf(out, "%s,%d,%d,%ld,%g,%g,%d,%ld,%ld,%ld,%ld,%ld,%ld,%.4f,%.4f,%.5f,%.1f,%s\n", esdirk::krylov_preconditioner_name(preconditioner),
                     diffusion_side, r.side, r.n, t_end, rtol, r.ok ? 1 : 0, r.steps, r.rejected, r.newton, r.gmres, r.setups, r.gmres_failures,
                     r.user_seconds, r.system_seconds, 1e6 * per_step_and_unknown(r), r.heap_bytes / n,
                     r.rss_bytes >= 0.0 ? rss : "");
        std::fflush(out);
      }
    }
  }
  if (out != nullptr) std::fclose(out);
  if (quick) {
    const double a = first[0].heap_bytes / static_cast<double>(first[0].n);
    const double b = first[1].heap_bytes / static_cast<double>(first[1].n);
    const bool linear = a > 0.0 && b > 0.0 && std::max(a, b) < 1.25 * std::min(a, b);
    if (!linear) std::printf("heap per unknown %.0f and %.0f B: not linear in n\n", a, b);
    all_ok = all_ok && linear;
    std::printf(all_ok ? "all checks passed\n" : "a check FAILED\n");
  }
  return all_ok ? 0 : 1;
}
