// One shooting interval, the operation an NMPC or moving-horizon code calls thousands of times
// per second: work against the achieved error of x_{k+1}, A = dx_{k+1}/dx_k and
// B = dx_{k+1}/du_k, in one process, for
//
//   esdirk         ShootingInterval with default options (error-controlled exact sensitivities)
//                  over rtol 1e-3 .. 1e-11
//   Gauss 2, 3     the same integrator with the 2- and 3-stage Gauss methods (Newton 1e-10)
//   Radau IIA      the fixed-step 3-stage Radau IIA of radau_iia.hpp with the exact derivative
//                  of its discrete map (simplified Newton, one LU per step), over the number of
//                  steps and the Newton tolerance
//   IDAS           forward sensitivities (simultaneous corrector, analytic residual of the
//                  sensitivities), when SUNDIALS is found
//
// on the CSTR of examples/nmpc (2 states, 1 control, 0.05 min) and Dow (15 directions) over
// [2, 3] h and over its start-up layer [0, 0.5] h. The error of x is the largest relative error
// of a component; the errors of A and B are row-scaled: each entry relative to the largest
// reference entry of its row of [A, B diag(u)] (B's columns scaled by the control, as the
// scaled parameter directions of the SUNDIALS benchmark). The reference of each interval is a
// Radau IIA run with many steps, confirmed by esdirk at rtol 1e-12 (their difference is
// printed). Time: the best of three batches of repeated calls, each at least ~20 ms.
//
//     OPENBLAS_NUM_THREADS=1 bench_shooting [--quick | --tolerances | --profile esdirk|fixed|frozen|radau|dow-main
//                                            [--rtol R] [--method M] [--steps N] [--newton T]]
//                                           [--csv FILE] [--case cstr|dow23|dow05]
//
// --quick (the CTest run): one batch, a few tolerances, and checks that the two references
// agree and that every method converges towards them; never a timing assertion.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "nmpc/cstr.hpp"
#include "radau_iia.hpp"

#ifdef BENCH_WITH_IDAS
#include "runners.hpp"
#endif

namespace {

struct Interval {
  std::string id, title;
  std::function<std::unique_ptr<esdirk::Problem>()> make;
  double t0 = 0.0, t1 = 0.0;
  std::vector<double> x0, z0, u;
  std::function<esdirk::Options(double rtol)> options;
  std::vector<double> newton_floors;  // Radau's Newton scale floors (x, then z)
  std::vector<double> idas_atol_per_rtol;  // IDAS: atol_i = rtol * this (x, then z)
  int reference_steps = 0;
  std::vector<double> reference_mesh;  // if not empty: the reference's mesh instead
  int max_radau_steps = 0;
  int nx = 0, nu = 0;
};

// The map's value and derivatives: x (nx), M = [A, B diag(u)] (nx x (nx + nu), column-major).
struct MapValue {
  std::vector<double> x, M;
};

struct Errors {
  double x = 0.0, A = 0.0, B = 0.0;
  double worst() const { return std::max({x, A, B}); }
};

Errors errors_of(const Interval& c, const MapValue& v, const MapValue& ref) {
  Errors e;
  const int nx = c.nx, ns = c.nx + c.nu;
  for (int i = 0; i < nx; ++i) {
    const auto at = static_cast<std::size_t>(i);
    e.x = std::max(e.x, std::abs(v.x[at] - ref.x[at]) / std::max(std::abs(ref.x[at]), 1e-12));
    double scale = 0.0;
    for (int j = 0; j < ns; ++j) scale = std::max(scale, std::abs(ref.M[static_cast<std::size_t>(i + j * nx)]));
    for (int j = 0; j < ns; ++j) {
      const auto k = static_cast<std::size_t>(i + j * nx);
      double& target = j < nx ? e.A : e.B;
      target = std::max(target, std::abs(v.M[k] - ref.M[k]) / scale);
    }
  }
  return e;
}

// --- the three contenders behind one call -------------------------------------------------------

class EsdirkRunner {
 public:
  /// fixed_steps > 0: that many equal steps (MeshPolicy::fixed); < 0: a frozen mesh (the first
  /// run adapts, the later ones reuse its steps).
  EsdirkRunner(const Interval& c, esdirk::Options options, int fixed_steps = 0)
      : problem_(c.make()), interval_(*problem_, std::move(options)), c_(c) {
    if (fixed_steps > 0) interval_.set_fixed_steps(fixed_steps);
    if (fixed_steps < 0) interval_.freeze_mesh();
  }
  bool run() {
    const auto& r = interval_.integrate(c_.t0, c_.t1, c_.x0, c_.u, c_.z0);
    ok_ = esdirk::ok(r.status);
    message_ = r.message;
    return ok_;
  }
  MapValue value() const {
    const auto& r = interval_.result();
    MapValue v{r.x, std::vector<double>(static_cast<std::size_t>(c_.nx * (c_.nx + c_.nu)))};
    for (int j = 0; j < c_.nx; ++j)
      for (int i = 0; i < c_.nx; ++i) v.M[static_cast<std::size_t>(i + j * c_.nx)] = r.A(i, j);
    for (int j = 0; j < c_.nu; ++j)
      for (int i = 0; i < c_.nx; ++i)
        v.M[static_cast<std::size_t>(i + (c_.nx + j) * c_.nx)] = r.B(i, j) * c_.u[static_cast<std::size_t>(j)];
    return v;
  }
  long steps() const { return interval_.result().statistics.accepted_steps; }
  const std::string& message() const { return message_; }

 private:
  std::unique_ptr<esdirk::Problem> problem_;
  esdirk::ShootingInterval interval_;
  const Interval& c_;
  bool ok_ = false;
  std::string message_;
};

class RadauRunner {
 public:
  RadauRunner(const Interval& c, int steps, double newton_tol,
              bench::Collocation method = bench::Collocation::radau_iia3)
      : problem_(c.make()), radau_(*problem_, method), c_(c), steps_(steps), newton_tol_(newton_tol) {
    radau_.set_scale_floors(c.newton_floors);
  }
  bool run() {
    if (steps_ == 0) return radau_.integrate(c_.reference_mesh, c_.x0, c_.z0, c_.u, newton_tol_);
    return radau_.integrate(c_.t0, c_.t1, steps_, c_.x0, c_.z0, c_.u, newton_tol_);
  }
  MapValue value() const { return {radau_.x(), radau_.S()}; }
  long steps() const { return steps_; }
  const std::string& message() const { return radau_.message(); }
  const bench::RadauIIA& integrator() const { return radau_; }

 private:
  std::unique_ptr<esdirk::Problem> problem_;
  bench::RadauIIA radau_;
  const Interval& c_;
  int steps_;
  double newton_tol_;
};

#ifdef BENCH_WITH_IDAS
class IdasRunner {
 public:
  IdasRunner(const Interval& c, double rtol) : problem_(c.make()), c_(c) {
    std::vector<bench::Direction> directions;
    for (int i = 0; i < c.nx; ++i) directions.push_back({false, i});
    for (int k = 0; k < c.nu; ++k) directions.push_back({true, k});
    std::vector<double> atol = c.idas_atol_per_rtol;
    for (double& a : atol) a *= rtol;
    bench::IdasSettings settings;
    settings.max_steps = 200000;
    solver_ = std::make_unique<bench::IdasSolver>(*problem_, c.u, rtol, atol, directions, settings);
  }
  bool run() {
    out_ = solver_->integrate(c_.t0, c_.t1, c_.x0, c_.z0);
    return out_.ok;
  }
  MapValue value() const {
    const int n = problem_->nx() + problem_->nz(), ns = c_.nx + c_.nu;
    MapValue v{std::vector<double>(out_.y.begin(), out_.y.begin() + c_.nx),
               std::vector<double>(static_cast<std::size_t>(c_.nx * ns))};
    for (int j = 0; j < ns; ++j)
      for (int i = 0; i < c_.nx; ++i)
        v.M[static_cast<std::size_t>(i + j * c_.nx)] = out_.S[static_cast<std::size_t>(i + j * n)];
    return v;
  }
  long steps() const { return out_.counters.steps; }
  const std::string& message() const { return out_.message; }

 private:
  std::unique_ptr<esdirk::Problem> problem_;
  const Interval& c_;
  std::unique_ptr<bench::IdasSolver> solver_;
  bench::Outcome out_;
};
#endif

// Seconds per call: the best of `batches` batches of repeated calls, each at least ~20 ms.
template <class Runner>
double seconds_per_call(Runner& runner, int batches) {
  using clock = std::chrono::steady_clock;
  long reps = 1;
  for (;;) {
    const auto start = clock::now();
    for (long r = 0; r < reps; ++r) runner.run();
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    if (elapsed > 0.02 || reps > (1L << 24)) break;
    reps *= 4;
  }
  double best = 1e300;
  for (int b = 0; b < batches; ++b) {
    const auto start = clock::now();
    for (long r = 0; r < reps; ++r) runner.run();
    best = std::min(best, std::chrono::duration<double>(clock::now() - start).count() / static_cast<double>(reps));
  }
  return best;
}

struct Point {
  std::string method, setting;
  bool ok = false;
  Errors errors;
  double seconds = 0.0;
  long steps = 0;
  std::string message;  // why it failed
};

// --- the intervals ---------------------------------------------------------------------------------

// The nominal trajectory at t (x, then z).
std::vector<double> dow_node_at(double t) {
  const auto z0 = dow::consistent_algebraic_start();
  std::vector<double> x(dow::initial_states.begin(), dow::initial_states.end()), z(z0.begin(), z0.end());
  if (t > 0.0) {
    dow::Model model;
    esdirk::Integrator solver(model, dow::benchmark_options(1e-12));
    solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters);
    solver.set_stop_time(t);
    solver.integrate_to(t, x, z);
  }
  x.insert(x.end(), z.begin(), z.end());
  return x;
}

std::vector<Interval> intervals(const std::string& only = {}) {
  std::vector<Interval> all;
  if (only.empty() || only == "cstr") {
    Interval c;
    c.id = "cstr";
    c.title = "CSTR, 2 states, 1 control, [0, 0.05] min from (0.7 mol/L, 340 K), T_c = 305 K";
    c.make = [] { return std::make_unique<cstr::Model>(); };
    c.t1 = 0.05;
    c.x0 = {0.7, 340.0};
    c.u = {305.0};
    c.options = [](double rtol) {
      esdirk::Options o;
      o.rtol = rtol;
      o.atol = 1e-2 * rtol;  // as the NMPC example: C_A ~ 0.5 mol/L
      return o;
    };
    c.newton_floors = {1e-6, 1e-6};
    c.idas_atol_per_rtol = {1e-2, 1e-2};
    c.reference_steps = 1024;
    c.max_radau_steps = 64;
    c.nx = 2;
    c.nu = 1;
    all.push_back(c);
  }
  for (int layer = 0; layer < 2; ++layer) {
    if (!only.empty() && only != (layer ? "dow05" : "dow23")) continue;
    Interval c;
    c.id = layer ? "dow05" : "dow23";
    c.title = layer ? "Dow, 6 + 4 states, 9 controls, [0, 0.5] h (start-up layer)" : "Dow, 6 + 4 states, 9 controls, [2, 3] h";
    c.make = [] { return std::make_unique<dow::Model>(); };
    c.t0 = layer ? 0.0 : 2.0;
    c.t1 = layer ? 0.5 : 3.0;
    const std::vector<double> node = dow_node_at(c.t0);
    c.x0.assign(node.begin(), node.begin() + 6);
    c.z0.assign(node.begin() + 6, node.end());
    c.u.assign(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
    c.options = [](double rtol) { return dow::benchmark_options(rtol); };
    c.newton_floors = {1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-14, 1e-14, 1e-16, 1e-16};
    c.idas_atol_per_rtol = {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-8, 1e-8, 1e-10, 1e-10};
    c.reference_steps = 4096;
    if (layer) c.reference_mesh = bench::graded_mesh(c.t0, c.t1, 1e-9, 1.02, (c.t1 - c.t0) / 4096);
    c.max_radau_steps = layer ? 1024 : 256;
    c.nx = 6;
    c.nu = 9;
    all.push_back(c);
  }
  return all;
}

void print_point(const Interval& c, const Point& p, std::FILE* csv) {
  if (p.ok)
    std::printf("  %-10s %-26s steps %6ld  err x %8.1e  A %8.1e  B %8.1e  %10.2f us\n", p.method.c_str(),
                p.setting.c_str(), p.steps, p.errors.x, p.errors.A, p.errors.B, 1e6 * p.seconds);
  else
    std::printf("  %-10s %-26s failed: %s\n", p.method.c_str(), p.setting.c_str(), p.message.c_str());
  if (csv)
    std::fprintf(csv, "%s,%s,\"%s\",%d,%ld,%.3e,%.3e,%.3e,%.4e\n", c.id.c_str(), p.method.c_str(), p.setting.c_str(),
                 p.ok ? 1 : 0, p.steps, p.errors.x, p.errors.A, p.errors.B, p.seconds);
}

// The cheapest point of `method` whose worst error is <= target (nullptr: none reaches it).
const Point* cheapest(const std::vector<Point>& points, const std::string& method, double target) {
  const Point* best = nullptr;
  for (const auto& p : points)
    if (p.method == method && p.ok && p.errors.worst() <= target && (!best || p.seconds < best->seconds)) best = &p;
  return best;
}

}  // namespace

// --tolerances: what the default options achieve on each interval over rtol 1e-4 .. 1e-10
// (doc/sensitivity-guide.md, "Error control"): the achieved errors of x, A, B in units of rtol
// and the accepted steps, with the sensitivities in the error test (the default) and out of it,
// and the steps of the states alone.
int tolerance_study(const std::string& only) {
  for (const Interval& c : intervals(only)) {
    RadauRunner reference_radau(c, c.reference_mesh.empty() ? c.reference_steps : 0, 1e-14);
    if (!reference_radau.run()) return 1;
    const MapValue reference = reference_radau.value();
    std::printf("\n%s\n  %-7s | %-34s | %-34s | %s\n", c.title.c_str(), "rtol",
                "defaults: err x, A, B / rtol, steps", "sens. out of the error test", "states only: steps");
    for (double rtol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      std::printf("  %7.0e", rtol);
      for (int controlled = 1; controlled >= 0; --controlled) {
        auto problem = c.make();
        esdirk::SensitivityOptions so;
        so.error_control = controlled == 1;
        esdirk::ShootingInterval interval(*problem, c.options(rtol), so);
        const auto& r = interval.integrate(c.t0, c.t1, c.x0, c.u, c.z0);
        if (!esdirk::ok(r.status)) {
          std::printf(" | %-34s", "failed");
          continue;
        }
        MapValue v{r.x, std::vector<double>(static_cast<std::size_t>(c.nx * (c.nx + c.nu)))};
        for (int j = 0; j < c.nx; ++j)
          for (int i = 0; i < c.nx; ++i) v.M[static_cast<std::size_t>(i + j * c.nx)] = r.A(i, j);
        for (int j = 0; j < c.nu; ++j)
          for (int i = 0; i < c.nx; ++i)
            v.M[static_cast<std::size_t>(i + (c.nx + j) * c.nx)] = r.B(i, j) * c.u[static_cast<std::size_t>(j)];
        const Errors e = errors_of(c, v, reference);
        std::printf(" | %8.1e %8.1e %8.1e %5ld", e.x / rtol, e.A / rtol, e.B / rtol, r.statistics.accepted_steps);
      }
      auto problem = c.make();
      esdirk::Integrator solver(*problem, c.options(rtol));
      std::vector<double> x(c.x0.size()), z(c.z0.size());
      solver.initialize(c.t0, c.x0, c.z0, c.u);
      solver.set_stop_time(c.t1);
      solver.integrate_to(c.t1, x, z);
      std::printf(" | %5ld\n", solver.statistics().accepted_steps);
    }
  }
  return 0;
}

// --profile dow-main: the two integrations of the Dow main job (examples/dow, scripts/dow.sh with
// its defaults: rtol 1e-6, to 10 h), the states alone and then with the nine scaled parameter
// sensitivities under ForwardSensitivity's default options, each in its own function so that
// callgrind's inclusive counts of dow_main_states_only and dow_main_with_sensitivities give the
// issue's "sensitivities / states only" ratio (doc/benchmarks.md, "Shooting intervals").
esdirk::Statistics dow_main(bool sensitivities) {
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(1e-6));
  const auto z0 = dow::consistent_algebraic_start();
  std::vector<double> x(6), z(z0.begin(), z0.end());
  if (!esdirk::ok(solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters))) return {};
  solver.set_stop_time(10.0);
  if (!sensitivities) return esdirk::ok(solver.integrate_to(10.0, x, z)) ? solver.statistics() : esdirk::Statistics{};
  esdirk::ForwardSensitivity sens(solver);
  esdirk::DenseMatrix seed(6 + 9, 9), Sx(6, 9), Sz(4, 9);
  for (int j = 0; j < 9; ++j) seed(6 + j, j) = dow::nominal_parameters[static_cast<std::size_t>(j)];
  if (!esdirk::ok(sens.initialize(seed.cref()))) return {};
  if (!esdirk::ok(sens.integrate_to(10.0, x, z, Sx.ref(), Sz.ref()))) return {};
  return solver.statistics();
}

[[gnu::noinline]] esdirk::Statistics dow_main_states_only() { return dow_main(false); }
[[gnu::noinline]] esdirk::Statistics dow_main_with_sensitivities() { return dow_main(true); }

int profile_dow_main() {
  const esdirk::Statistics states = dow_main_states_only();
  const esdirk::Statistics sens = dow_main_with_sensitivities();
  std::printf("Dow main job, rtol 1e-6, to 10 h\n  states only:        %ld steps, %ld attempts\n"
              "  with sensitivities: %ld steps, %ld attempts\n",
              states.accepted_steps, states.steps, sens.accepted_steps, sens.steps);
  return states.accepted_steps > 0 && sens.accepted_steps > 0 ? 0 : 1;
}

// --profile esdirk|fixed|frozen|radau: 1000 calls of one contender on one interval (--case,
// default cstr) and nothing else, for callgrind: esdirk defaults at rtol 1e-8, ESDIRK436 on 2
// fixed steps at rtol 1e-8, a frozen mesh adapted at rtol 1e-8 by the first call, or Radau IIA
// with 1 step (Newton 1e-8). --rtol, --method, --steps and --newton change these settings.
struct ProfileSettings {
  double rtol = 1e-8, newton = 1e-8;
  int steps = 0;  // 0: the contender's default
  std::string method;
};

int profile(const std::string& what, const std::string& only, const ProfileSettings& s) {
  const std::vector<Interval> all = intervals(only.empty() ? "cstr" : only);
  const Interval& c = all.front();
  bool ok = true;
  if (what == "radau") {
    RadauRunner runner(c, s.steps > 0 ? s.steps : 1, s.newton);
    for (int r = 0; r < 1000; ++r) ok = runner.run() && ok;
  } else {
    esdirk::Options o = c.options(s.rtol);
    if (what == "fixed") o.method = esdirk::MethodChoice::named("ESDIRK436");
    if (!s.method.empty()) o.method = esdirk::MethodChoice::named(s.method);
    EsdirkRunner runner(c, o, what == "fixed" ? (s.steps > 0 ? s.steps : 2) : what == "frozen" ? -1 : 0);
    for (int r = 0; r < 1000; ++r) ok = runner.run() && ok;
    std::printf("steps per interval %ld\n", runner.steps());
  }
  std::printf("%s\n", ok ? "1000 intervals" : "failed");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  bool quick = false, tolerances = false;
  std::string profiled;
  std::string csv_path, only;
  ProfileSettings settings;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--tolerances")) tolerances = true;
    else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc) profiled = argv[++i];
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!std::strcmp(argv[i], "--case") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) settings.rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--newton") && i + 1 < argc) settings.newton = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) settings.steps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--method") && i + 1 < argc) settings.method = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_shooting [--quick | --tolerances | --profile esdirk|fixed|frozen|radau|dow-main [--rtol R] [--method M] [--steps N] [--newton T]] [--csv FILE] [--case cstr|dow23|dow05]\n");
      return 2;
    }
  }
  if (tolerances) return tolerance_study(only);
  if (profiled == "dow-main") return profile_dow_main();
  if (!profiled.empty()) {
    if (profiled != "esdirk" && profiled != "fixed" && profiled != "frozen" && profiled != "radau") {
      std::fprintf(stderr, "bench_shooting: unknown --profile %s (esdirk, fixed, frozen, radau, dow-main)\n",
                   profiled.c_str());
      return 2;
    }
    try {
      return profile(profiled, only, settings);
    } catch (const std::invalid_argument& e) {  // a bad --method or --rtol
      std::fprintf(stderr, "bench_shooting: %s\n", e.what());
      return 2;
    }
  }
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv) std::fprintf(csv, "case,method,setting,ok,steps,error_x,error_A,error_B,seconds\n");
  const int batches = quick ? 1 : 3;
  int failures = 0;
  auto check = [&](bool condition, const std::string& what) {
    if (!condition) {
      ++failures;
      std::printf("  CHECK FAILED: %s\n", what.c_str());
    }
  };
  std::printf("%-28s %s\n", "target error of x, A, B", "cheapest run reaching it (us per interval)");

  std::vector<std::string> summary;
  for (const Interval& c : intervals(only)) {
    std::printf("\n%s\n", c.title.c_str());
    // The references: Radau IIA with many steps, confirmed by esdirk at rtol 1e-12.
    // steps 0: the reference mesh.
    RadauRunner reference_radau(c, c.reference_mesh.empty() ? c.reference_steps : 0, 1e-14);
    if (!reference_radau.run()) {
      std::printf("  reference Radau IIA failed: %s\n", reference_radau.message().c_str());
      ++failures;
      continue;
    }
    const MapValue reference = reference_radau.value();
    EsdirkRunner reference_esdirk(c, c.options(1e-12));
    if (reference_esdirk.run()) {
      const Errors agree = errors_of(c, reference_esdirk.value(), reference);
      std::printf("  reference: Radau IIA, %ld steps%s; esdirk at rtol 1e-12 differs by x %.1e, A %.1e, B %.1e\n",
                  reference_radau.integrator().counters().steps, c.reference_mesh.empty() ? "" : " (graded mesh)",
                  agree.x, agree.A, agree.B);
      check(agree.worst() < 1e-9, c.id + ": the two references agree to 1e-9");
    } else {
      std::printf("  esdirk at rtol 1e-12 failed: %s\n", reference_esdirk.message().c_str());
      ++failures;
    }

    std::vector<Point> points;
    // One point: `ok` is the result of the untimed first call(s); then the errors against the
    // reference, the step count (`steps`, read after the first call) and the timed calls.
    // Repeated calls of the adaptive runs warm-start the step size, so their results differ a
    // little from call to call: the error is the worst of the first `error_calls` calls (read
    // after the timed loop, whose length varies, it was not reproducible).
    constexpr int error_calls = 16;
    auto measure = [&](auto& runner, const char* method, const char* setting, bool ok, long steps) {
      Point p;
      p.method = method;
      p.setting = setting;
      p.ok = ok;
      for (int k = 0; p.ok && k < error_calls; ++k) {
        if (k > 0) p.ok = runner.run();
        const Errors e = errors_of(c, runner.value(), reference);
        p.errors = {std::max(p.errors.x, e.x), std::max(p.errors.A, e.A), std::max(p.errors.B, e.B)};
      }
      if (p.ok) {
        p.seconds = seconds_per_call(runner, batches);
        p.steps = steps;
      } else {
        p.message = runner.message();
      }
      print_point(c, p, csv);
      points.push_back(p);
    };
    char setting[64];
    const std::vector<double> rtols = quick ? std::vector<double>{1e-4, 1e-8}
                                            : std::vector<double>{1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11};
    for (double rtol : rtols) {
      EsdirkRunner runner(c, c.options(rtol));
      std::snprintf(setting, sizeof setting, "defaults, rtol %.0e", rtol);
      const bool ok = runner.run();
      measure(runner, "esdirk", setting, ok, runner.steps());
    }
    // esdirk on a frozen mesh: adapted by the first call (at rtol), reused by the timed ones;
    // with the default method and with the order-4 and order-5 members.
    std::vector<double> frozen_rtols = rtols;
    if (!quick) frozen_rtols.insert(frozen_rtols.begin(), 1e-2);  // a mesh adapted once may be coarse
    for (const char* method : {"default", "ESDIRK436", "ESDIRK547"})
      for (double rtol : frozen_rtols) {
        if (quick && std::strcmp(method, "default") != 0) continue;
        esdirk::Options o = c.options(rtol);
        if (std::strcmp(method, "default") != 0) o.method = esdirk::MethodChoice::named(method);
        EsdirkRunner runner(c, o, -1);
        std::snprintf(setting, sizeof setting, "frozen %s, rtol %.0e", method, rtol);
        const bool ok = runner.run() && runner.run();
        measure(runner, "esdirk frozen", setting, ok, runner.steps());
      }
    // esdirk on fixed meshes (the NMPC setting): equal steps of the order-3, order-4 and order-5
    // members, rtol setting the Newton test only (no error test on a fixed mesh).
    for (const char* method : {"ESDIRK34", "ESDIRK436", "ESDIRK547"})
      for (double rtol : quick ? std::vector<double>{1e-8} : std::vector<double>{1e-6, 1e-8, 1e-10})
        for (int steps = 1; steps <= (quick ? 4 : c.max_radau_steps); steps *= 2) {
          esdirk::Options o = c.options(rtol);
          o.method = esdirk::MethodChoice::named(method);
          EsdirkRunner runner(c, o, steps);
          std::snprintf(setting, sizeof setting, "%s %d steps, rtol %.0e", method, steps, rtol);
          const bool ok = runner.run();
          measure(runner, "esdirk fixed", setting, ok, steps);
        }
    const std::vector<double> newton_tols = quick ? std::vector<double>{1e-10} : std::vector<double>{1e-6, 1e-8, 1e-10};
    for (double newton_tol : newton_tols)
      for (int steps = 1; steps <= (quick ? std::min(16, c.max_radau_steps) : c.max_radau_steps); steps *= 2) {
        RadauRunner runner(c, steps, newton_tol);
        std::snprintf(setting, sizeof setting, "%d steps, Newton %.0e", steps, newton_tol);
        const bool ok = runner.run();
        measure(runner, "Radau IIA", setting, ok, steps);
      }
    // Gauss (2 and 3 stages) the same way, Newton 1e-10 only (the quick mode: the CSTR, checked
    // for the 3-stage method's order 6 below).
    for (const auto& [method, name] : {std::pair{bench::Collocation::gauss2, "Gauss 2"},
                                       std::pair{bench::Collocation::gauss3, "Gauss 3"}})
      for (int steps = 1; steps <= (quick ? (c.id == "cstr" ? 4 : 0) : c.max_radau_steps); steps *= 2) {
        RadauRunner runner(c, steps, 1e-10, method);
        std::snprintf(setting, sizeof setting, "%d steps, Newton 1e-10", steps);
        const bool ok = runner.run();
        measure(runner, name, setting, ok, steps);
      }
    if (c.id == "cstr")
      for (const auto& p : points)
        if (p.method == "Gauss 3" && p.steps == 4)
          check(p.ok && p.errors.worst() < 1e-11, "cstr: Gauss 3 on 4 steps within 1e-11 of the reference");
#ifdef BENCH_WITH_IDAS
    for (double rtol : quick ? std::vector<double>{1e-6} : std::vector<double>{1e-4, 1e-6, 1e-8, 1e-10}) {
      IdasRunner runner(c, rtol);
      std::snprintf(setting, sizeof setting, "rtol %.0e", rtol);
      const bool ok = runner.run();
      measure(runner, "IDAS", setting, ok, runner.steps());
    }
#endif
    // Convergence: the tightest esdirk run and the finest Radau run of the sweep are close.
    const Point* tight = nullptr;
    for (const auto& p : points)
      if (p.method == "esdirk" && p.ok) tight = &p;
    check(tight && tight->errors.worst() < 1e-5, c.id + ": esdirk's tightest run within 1e-5 of the reference");

    for (double target : {1e-4, 1e-6, 1e-8, 1e-10}) {
      char line[800];
      int at = std::snprintf(line, sizeof line, "%-6s %7.0e", c.id.c_str(), target);
      const Point* e = cheapest(points, "esdirk", target);
      for (const char* method : {"esdirk", "esdirk frozen", "esdirk fixed", "Radau IIA", "Gauss 2", "Gauss 3", "IDAS"}) {
        const Point* p = cheapest(points, method, target);
        if (p)
          at += std::snprintf(line + at, sizeof line - static_cast<std::size_t>(at), " | %s %9.2f us (%s)", method,
                              1e6 * p->seconds, p->setting.c_str());
        else if (std::string(method) != "IDAS" || cheapest(points, "IDAS", 1.0))
          at += std::snprintf(line + at, sizeof line - static_cast<std::size_t>(at), " | %s -", method);
      }
      const Point* r = cheapest(points, "Radau IIA", target);
      const Point* f = cheapest(points, "esdirk fixed", target);
      const Point* z = cheapest(points, "esdirk frozen", target);
      if (z && r)
        at += std::snprintf(line + at, sizeof line - static_cast<std::size_t>(at), " | frozen/Radau %.1f",
                            z->seconds / r->seconds);
      if (e && r)
        at += std::snprintf(line + at, sizeof line - static_cast<std::size_t>(at), " | esdirk/Radau %.1f",
                            e->seconds / r->seconds);
      if (f && r)
        std::snprintf(line + at, sizeof line - static_cast<std::size_t>(at), " | fixed/Radau %.1f",
                      f->seconds / r->seconds);
      summary.push_back(line);
    }
  }
  std::printf("\nsummary: case, target error of x, A, B; cheapest run reaching it\n");
  for (const auto& line : summary) std::printf("%s\n", line.c_str());
  if (csv) std::fclose(csv);
  std::printf("%s\n", failures ? "some checks failed" : "all checks passed");
  return failures ? 1 : 0;
}
