// The automatic-differentiation engine measured (doc/ad-guide.md, "The engine, measured"): the
// time of one Jacobian J = [f_x f_z; g_x g_z] and of one vector-Jacobian product v^T [J, J_p]
// on Dow, Akzo Nobel, the CSTR and the 1-D Brusselator (n = 1e3, 1e4, coloured), by
//
//   hand      the model's hand-written jacobian()/sparse_jacobian() (v^T J: J, then the product)
//   FD        the library's forward differences (coloured with a pattern; the same for v^T J)
//   esdirk    ad::ModelProblem: Dual<8> chunks (coloured with a pattern), v^T J by its tape; Dow's
//             twin takes its parameters as plain doubles in J's passes (plain_parameters), the
//             case "Dow, parameters as duals" is the same model without it
//   Eigen     Eigen's AutoDiffScalar<Matrix<double, 8, 1>> in the same chunks (no reverse mode:
//             v^T J by J and the product)
//   Ceres     ceres::Jet<double, 8> in the same chunks (likewise)
//   ADOL-C    a trace at the point (retaped every call, as a model with branches needs), then
//             fov_forward with the seed matrix (identity or colours), fos_reverse for v^T J
//
// The peers are compiled in when CMake finds them (ESDIRK_BENCH_HAVE_EIGEN, _CERES, _ADOLC).
// Median of R repeats of K calls each; run with OPENBLAS_NUM_THREADS=1.
//
//     bench_ad [--repeats 15]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "akzo_nobel.hpp"
#include "brusselator_1d.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/jacobian.hpp"
#include "nmpc/cstr.hpp"
#include "templated_models.hpp"
#include "without_jacobians.hpp"

#ifdef ESDIRK_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>
#endif
#ifdef ESDIRK_BENCH_HAVE_CERES
#include <ceres/jet.h>
#endif
#ifdef ESDIRK_BENCH_HAVE_ADOLC
#include <adolc/adolc.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
int repeats = 15;

// Median seconds per call of fn over `repeats` batches sized to ~2 ms each.
double seconds_per_call(const std::function<void()>& fn) {
  int batch = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int k = 0; k < batch; ++k) fn();
    if (std::chrono::duration<double>(Clock::now() - start).count() > 2e-3 || batch > (1 << 20)) break;
    batch *= 2;
  }
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    for (int k = 0; k < batch; ++k) fn();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count() / batch);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// One case: a templated model, its sizes and point, the column colouring (identity when dense)
// and the pattern the Jacobian is stored on (all entries when dense).
template <class Model>
struct Case {
  std::string name;
  Model model;
  int nx, nz, np;
  std::vector<double> x, z, p;
  std::shared_ptr<esdirk::SparsityPattern> pattern;  // null: dense
  std::vector<int> colour;
  int colours = 0;
  int n() const { return nx + nz; }
};

// Used by the peers' ForwardPeer only: unused when no peer (Eigen, Ceres, ADOL-C) is found.
[[maybe_unused]] esdirk::SparsityPattern dense_pattern(int n) {
  std::vector<int> pointers(static_cast<std::size_t>(n) + 1), rows;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) rows.push_back(i);
    pointers[static_cast<std::size_t>(j) + 1] = static_cast<int>(rows.size());
  }
  return esdirk::SparsityPattern(n, pointers, rows);
}

template <class Model>
void set_colours(Case<Model>& c) {
  if (c.pattern) {
    c.colour = esdirk::colour_columns(*c.pattern);
  } else {
    c.colour.resize(static_cast<std::size_t>(c.n()));
    for (int j = 0; j < c.n(); ++j) c.colour[static_cast<std::size_t>(j)] = j;
  }
  c.colours = 1 + *std::max_element(c.colour.begin(), c.colour.end());
}

// The chunked (coloured) forward-mode Jacobian of a peer's scalar type E (a traits class: T,
// constant, seed, derivative), 8 colours per evaluation: the same algorithm as ModelProblem.
template <class E, class Model>
struct ForwardPeer {
  using T = typename E::T;
  Case<Model>& c;
  esdirk::SparsityPattern pattern;
  std::vector<T> x, z, p, f, g;
  std::vector<double> values;
  explicit ForwardPeer(Case<Model>& cs)
      : c(cs), pattern(cs.pattern ? *cs.pattern : dense_pattern(cs.n())),
        values(static_cast<std::size_t>(pattern.nonzeros())) {
    x.assign(static_cast<std::size_t>(c.nx), E::constant(0.0));
    z.assign(static_cast<std::size_t>(c.nz), E::constant(0.0));
    p.assign(static_cast<std::size_t>(c.np), E::constant(0.0));
    f = x;
    g = z;
  }
  T& state(int j) { return j < c.nx ? x[static_cast<std::size_t>(j)] : z[static_cast<std::size_t>(j - c.nx)]; }
  const T& out(int i) const { return i < c.nx ? f[static_cast<std::size_t>(i)] : g[static_cast<std::size_t>(i - c.nx)]; }
  void jacobian() {
    for (int i = 0; i < c.nx; ++i) x[static_cast<std::size_t>(i)] = E::constant(c.x[static_cast<std::size_t>(i)]);
    for (int i = 0; i < c.nz; ++i) z[static_cast<std::size_t>(i)] = E::constant(c.z[static_cast<std::size_t>(i)]);
    for (int i = 0; i < c.np; ++i) p[static_cast<std::size_t>(i)] = E::constant(c.p[static_cast<std::size_t>(i)]);
    const int* ptr = pattern.column_pointers().data();
    const int* rows = pattern.row_indices().data();
    for (int c0 = 0; c0 < c.colours; c0 += 8) {
      for (int j = 0; j < c.n(); ++j) {
        const int lane = c.colour[static_cast<std::size_t>(j)] - c0;
        if (lane >= 0 && lane < 8) E::seed(state(j), lane, 1.0);
      }
      c.model.f(0.0, std::span<const T>(x), std::span<const T>(z), std::span<const T>(p), std::span<T>(f));
      if constexpr (esdirk::ad::HasConstraints<Model>)
        if (c.nz > 0)
          c.model.g(0.0, std::span<const T>(x), std::span<const T>(z), std::span<const T>(p), std::span<T>(g));
      for (int j = 0; j < c.n(); ++j) {
        const int lane = c.colour[static_cast<std::size_t>(j)] - c0;
        if (lane < 0 || lane >= 8) continue;
        E::seed(state(j), lane, 0.0);
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) values[static_cast<std::size_t>(k)] = E::derivative(out(rows[k]), lane);
      }
    }
  }
};

#ifdef ESDIRK_BENCH_HAVE_EIGEN
struct EigenTraits {
  using T = Eigen::AutoDiffScalar<Eigen::Matrix<double, 8, 1>>;
  static T constant(double v) { return T(v); }
  static void seed(T& a, int lane, double s) { a.derivatives()[lane] = s; }
  static double derivative(const T& a, int lane) { return a.derivatives()[lane]; }
};
#endif
#ifdef ESDIRK_BENCH_HAVE_CERES
struct CeresTraits {
  using T = ceres::Jet<double, 8>;
  static T constant(double v) { return T(v); }
  static void seed(T& a, int lane, double s) { a.v[lane] = s; }
  static double derivative(const T& a, int lane) { return a.v[lane]; }
};
#endif

#ifdef ESDIRK_BENCH_HAVE_ADOLC
// ADOL-C: retape at the point, then the coloured seed matrix through fov_forward, or one
// fos_reverse for v^T [J, J_p].
template <class Model>
struct AdolcPeer {
  Case<Model>& c;
  short tag;
  int inputs, outputs, directions;
  std::vector<double> point, y, weights, gradient;
  double** seed;
  double** Y;
  explicit AdolcPeer(Case<Model>& cs, short t) : c(cs), tag(t) {
    inputs = c.n() + c.np;
    outputs = c.n();
    directions = c.colours;
    point.assign(c.x.begin(), c.x.end());
    point.insert(point.end(), c.z.begin(), c.z.end());
    point.insert(point.end(), c.p.begin(), c.p.end());
    y.assign(static_cast<std::size_t>(outputs), 0.0);
    weights.assign(static_cast<std::size_t>(outputs), 1.0);
    gradient.assign(static_cast<std::size_t>(inputs), 0.0);
    seed = myalloc2(inputs, directions);
    Y = myalloc2(outputs, directions);
    for (int i = 0; i < inputs; ++i)
      for (int d = 0; d < directions; ++d) seed[i][d] = (i < c.n() && c.colour[static_cast<std::size_t>(i)] == d) ? 1.0 : 0.0;
  }
  ~AdolcPeer() {
    myfree2(seed);
    myfree2(Y);
  }
  AdolcPeer(const AdolcPeer&) = delete;
  AdolcPeer& operator=(const AdolcPeer&) = delete;
  void tape(int keep) {
    trace_on(tag, keep);
    std::vector<adouble> ax(static_cast<std::size_t>(c.nx)), az(static_cast<std::size_t>(c.nz)),
        ap(static_cast<std::size_t>(c.np)), af(static_cast<std::size_t>(c.nx)), ag(static_cast<std::size_t>(c.nz));
    std::size_t k = 0;
    for (auto& v : ax) v <<= point[k++];
    for (auto& v : az) v <<= point[k++];
    for (auto& v : ap) v <<= point[k++];
    c.model.f(0.0, std::span<const adouble>(ax), std::span<const adouble>(az), std::span<const adouble>(ap),
              std::span<adouble>(af));
    if constexpr (esdirk::ad::HasConstraints<Model>)
      if (c.nz > 0)
        c.model.g(0.0, std::span<const adouble>(ax), std::span<const adouble>(az), std::span<const adouble>(ap),
                  std::span<adouble>(ag));
    k = 0;
    for (auto& v : af) v >>= y[k++];
    for (auto& v : ag) v >>= y[k++];
    trace_off();
  }
  void jacobian() {
    tape(0);
    fov_forward(tag, outputs, inputs, directions, point.data(), seed, y.data(), Y);
  }
  void vjp() {
    tape(1);
    fos_reverse(tag, outputs, inputs, weights.data(), gradient.data());
  }
};
#endif

// The rows of the table: J time and v^T [J, J_p] time of each engine, in microseconds, and
// the ratios to hand and to FD.
struct Row {
  std::string engine;
  double jacobian = 0.0, vjp = 0.0;
};

void print(const std::string& name, const std::vector<Row>& rows) {
  double hand = 0.0, fd = 0.0;
  for (const Row& r : rows) {
    if (r.engine == "hand") hand = r.jacobian;
    if (r.engine == "FD") fd = r.jacobian;
  }
  std::printf("\n%s\n%-8s %12s %9s %9s %14s\n", name.c_str(), "engine", "J [us]", "/ hand", "/ FD", "v^T[J Jp] [us]");
  for (const Row& r : rows) {
    std::printf("%-8s %12.3f", r.engine.c_str(), 1e6 * r.jacobian);
    if (hand > 0.0) std::printf(" %9.2f", r.jacobian / hand); else std::printf(" %9s", "-");
    std::printf(" %9.2f %14.3f\n", r.jacobian / fd, 1e6 * r.vjp);
  }
}

// Every engine on one case. `hand` is a Problem with analytic J (or null), `plain` one without
// (finite differences), both with the case's pattern declared if it has one.
template <class Model>
void run(Case<Model>& c, esdirk::Problem* hand, esdirk::Problem& plain) {
  set_colours(c);
  std::vector<Row> rows;
  const int n = c.n();
  std::vector<double> f0(static_cast<std::size_t>(c.nx)), g0(static_cast<std::size_t>(c.nz)),
      v(static_cast<std::size_t>(n), 1.0), vJ(static_cast<std::size_t>(n)), vJp(static_cast<std::size_t>(c.np));
  plain.evaluate(0.0, c.x, c.z, c.p, f0, g0);
  const esdirk::JacobianStructure structure = plain.jacobian_structure();
  // J and v^T J from an evaluator's matrix (dense or the pattern's values) for hand and FD.
  auto matrix_rows = [&](esdirk::Problem& problem, const char* engine) {
    esdirk::Statistics stats;
    esdirk::JacobianEvaluator evaluator(problem, stats);
    auto J = std::make_shared<esdirk::JacobianMatrix>(n, structure);
    esdirk::DenseMatrix Jp(n, std::max(c.np, 1));
    Row row{engine};
    row.jacobian = seconds_per_call([&] { evaluator.state_jacobian(0.0, c.x, c.z, c.p, f0, g0, *J); });
    row.vjp = seconds_per_call([&] {
      evaluator.state_jacobian(0.0, c.x, c.z, c.p, f0, g0, *J);
      if (c.np > 0) evaluator.parameter_jacobian(0.0, c.x, c.z, c.p, f0, g0, Jp.ref());
      std::fill(vJ.begin(), vJ.end(), 0.0);
      J->add_transposed_product(0, n, esdirk::ConstMatrixRef(v.data(), n, 1, n), esdirk::MatrixRef{vJ.data(), n, 1, n}, 1.0);
      for (int k = 0; k < c.np; ++k) {
        double s = 0.0;
        for (int i = 0; i < n; ++i) s += v[static_cast<std::size_t>(i)] * Jp(i, k);
        vJp[static_cast<std::size_t>(k)] = s;
      }
    });
    rows.push_back(row);
  };
  if (hand) matrix_rows(*hand, "hand");
  matrix_rows(plain, "FD");
  {
    esdirk::ad::ModelProblem<Model> own(c.nx, c.nz, c.np, c.model);
    if (c.pattern) own.set_jacobian_pattern(*c.pattern, structure.solver);
    std::vector<double> values(c.pattern ? static_cast<std::size_t>(c.pattern->nonzeros()) : 0);
    esdirk::DenseMatrix J(c.pattern ? 1 : n, c.pattern ? 1 : n);
    Row row{"esdirk"};
    if (c.pattern) {
      const esdirk::SparsityPattern& pattern = *own.jacobian_structure().pattern;
      row.jacobian = seconds_per_call([&] { own.sparse_jacobian(0.0, c.x, c.z, c.p, {&pattern, values.data()}); });
    } else {
      row.jacobian = seconds_per_call([&] { own.jacobian(0.0, c.x, c.z, c.p, J.ref()); });
    }
    // A new point every call (as in the adjoint: one tape per stage): retape, then sweep.
    double shift = 0.0;
    std::vector<double> x = c.x;
    row.vjp = seconds_per_call([&] {
      x[0] = c.x[0] * (1.0 + (shift += 1e-12));
      own.vector_jacobian_product(0.0, x, c.z, c.p, v, vJ, vJp);
    });
    rows.push_back(row);
  }
  auto peer_row = [&](auto& peer, const char* engine) {
    Row row{engine};
    row.jacobian = seconds_per_call([&] { peer.jacobian(); });
    row.vjp = seconds_per_call([&] {
      peer.jacobian();  // no reverse mode: v^T J from J (the parameter columns are not even formed)
      std::fill(vJ.begin(), vJ.end(), 0.0);
      const int* ptr = peer.pattern.column_pointers().data();
      const int* ri = peer.pattern.row_indices().data();
      for (int j = 0; j < n; ++j)
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) vJ[static_cast<std::size_t>(j)] += v[static_cast<std::size_t>(ri[k])] * peer.values[static_cast<std::size_t>(k)];
    });
    rows.push_back(row);
  };
#ifdef ESDIRK_BENCH_HAVE_EIGEN
  {
    ForwardPeer<EigenTraits, Model> peer(c);
    peer_row(peer, "Eigen");
  }
#endif
#ifdef ESDIRK_BENCH_HAVE_CERES
  {
    ForwardPeer<CeresTraits, Model> peer(c);
    peer_row(peer, "Ceres");
  }
#endif
#ifdef ESDIRK_BENCH_HAVE_ADOLC
  {
    AdolcPeer<Model> peer(c, 1);
    Row row{"ADOL-C"};
    row.jacobian = seconds_per_call([&] { peer.jacobian(); });
    row.vjp = seconds_per_call([&] { peer.vjp(); });
    rows.push_back(row);
  }
#endif
  (void)peer_row;
  print(c.name + " (n = " + std::to_string(n) + ", np = " + std::to_string(c.np) + ", " +
            (c.pattern ? std::to_string(c.colours) + " colours" : std::string("dense")) + ")",
        rows);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[i + 1]);
  std::printf("AD engines: time of one J and one v^T [J, J_p] (median of %d), microseconds\n", repeats);
  {
    Case<templated::Dow> c{"Dow", {}, 6, 4, 9, {0.3, 6.5, 0.6, 0.7, 0.7, 0.013}, {2e-8, 1e-6, 3e-10, 8e-10},
                           std::vector<double>(dow::nominal_parameters.begin(), dow::nominal_parameters.end()), nullptr, {}};
    dow::Model hand;
    test_helpers::WithoutJacobiansOf<dow::Model> plain;
    run(c, &hand, plain);
  }
  {
    Case<templated::DowDualParameters> c{"Dow, parameters as duals", {}, 6, 4, 9, {0.3, 6.5, 0.6, 0.7, 0.7, 0.013}, {2e-8, 1e-6, 3e-10, 8e-10},
                           std::vector<double>(dow::nominal_parameters.begin(), dow::nominal_parameters.end()), nullptr, {}};
    dow::Model hand;
    test_helpers::WithoutJacobiansOf<dow::Model> plain;
    run(c, &hand, plain);
  }
  {
    Case<templated::Akzo> c{"Akzo Nobel", {}, 5, 1, 0, {0.43, 0.0011, 0.012, 0.006, 0.0013}, {0.3}, {}, nullptr, {}};
    akzo_nobel::Model plain;
    run(c, nullptr, plain);
  }
  {
    Case<templated::Cstr> c{"CSTR", {}, 2, 0, 1, {0.5, 350.0}, {}, {300.0}, nullptr, {}};
    cstr::Model hand;
    test_helpers::WithoutJacobiansOf<cstr::Model> plain;
    run(c, &hand, plain);
  }
  for (int points : {500, 5000}) {
    test_problems::Brusselator1d hand(points), plain(points, false, false);
    Case<templated::Brusselator> c{"Brusselator 1-D", {points}, 2 * points, 0, 0, hand.initial_state(), {}, {},
                                   std::make_shared<esdirk::SparsityPattern>(hand.pattern()), {}};
    hand.set_jacobian_pattern(hand.pattern(), esdirk::LinearSolverKind::banded);
    plain.set_jacobian_pattern(hand.pattern(), esdirk::LinearSolverKind::banded);
    run(c, &hand, plain);
  }
  return 0;
}
