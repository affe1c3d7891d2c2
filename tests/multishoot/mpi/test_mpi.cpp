// The MPI driver against the threaded evaluator, run under mpirun with 2 (or more) ranks:
//
//     test_multishoot_mpi            intervals and a whole estimation, bit for bit
//     test_multishoot_mpi --refuse   more ranks than intervals: refused on every rank
//
// Rank 0 prints CHECK PASSED or CHECK FAILED.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "dow/dow_model.hpp"
#include "esdirk/multishoot/estimation.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "esdirk/multishoot/mpi_evaluator.hpp"

namespace ms = esdirk::multishoot;

namespace {

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A -> B -> C with log-scaled rates (as in test_estimation.cpp).
class Consecutive : public esdirk::Problem {
 public:
  Consecutive() : Problem(2, 0, 2) {}
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector th,
               esdirk::Vector f, esdirk::Vector) override {
    const double k1 = std::exp(th[0]), k2 = std::exp(th[1]);
    f[0] = -k1 * x[0];
    f[1] = k1 * x[0] - k2 * x[1];
    return 0;
  }
};

ms::EstimationProblem consecutive_problem() {
  ms::EstimationProblem p;
  p.nx = 2;
  p.nz = 0;
  p.np = 2;
  p.measured = {0, 1};
  const double k1 = 1.3, k2 = 0.4;
  for (int e = 0; e < 3; ++e) {
    ms::Experiment x;
    for (int k = 0; k <= 5 + e; ++k) {  // experiments of 5, 6, 7 intervals
      const double t = 0.5 * k;
      const double y1 = std::exp(-k1 * t);
      const double y2 = k1 / (k2 - k1) * (std::exp(-k1 * t) - std::exp(-k2 * t)) + 0.01 * (k % 3 - 1);
      x.times.push_back(t);
      x.data.insert(x.data.end(), {y1, y2});
      x.sigma.insert(x.sigma.end(), {0.01, 0.01});
      x.nodes.insert(x.nodes.end(), {y1, y2});
    }
    p.experiments.push_back(x);
  }
  return p;
}

ms::IntervalInputs dow_inputs(int n) {
  ms::IntervalInputs in(n, 6, 4, 9);
  const auto z0 = dow::consistent_algebraic_start();
  for (int k = 0; k < n; ++k) {
    in.t_begin[static_cast<std::size_t>(k)] = 0.2 * k;
    in.t_end[static_cast<std::size_t>(k)] = 0.2 * (k + 1);
    for (int i = 0; i < 6; ++i) in.x_of(k)[static_cast<std::size_t>(i)] = dow::initial_states[static_cast<std::size_t>(i)] * (1.0 + 0.01 * k * (i == 0));
    for (int i = 0; i < 9; ++i) in.u_of(k)[static_cast<std::size_t>(i)] = dow::nominal_parameters[static_cast<std::size_t>(i)];
    for (int i = 0; i < 4; ++i) in.z_guess_of(k)[static_cast<std::size_t>(i)] = z0[static_cast<std::size_t>(i)];
  }
  return in;
}

bool same_outputs(const ms::IntervalOutputs& a, const ms::IntervalOutputs& b) {
  for (int k = 0; k < a.intervals(); ++k) {
    if (a.status(k) != b.status(k) || a.steps(k) != b.steps(k) || !same(a.H(k), b.H(k))) return false;
    for (int i = 0; i < a.nx(); ++i) {
      if (!same(a.x_end(k)[static_cast<std::size_t>(i)], b.x_end(k)[static_cast<std::size_t>(i)])) return false;
      for (int j = 0; j < a.nx(); ++j)
        if (!same(a.A(k)(i, j), b.A(k)(i, j))) return false;
      for (int j = 0; j < a.nu(); ++j)
        if (!same(a.B(k)(i, j), b.B(k)(i, j))) return false;
    }
  }
  return true;
}

// Dow intervals over the ranks against 2 threads on rank 0; two rounds.
bool intervals_match(int rank) {
  const int n = 7;
  auto factory = [] { return std::make_unique<dow::Model>(); };
  ms::MpiIntervalEvaluator mpi(MPI_COMM_WORLD, factory, n, dow::benchmark_options(1e-6));
  if (!mpi.is_root()) {
    mpi.serve();
    return true;
  }
  ms::IntervalEvaluator threaded(factory, n, dow::benchmark_options(1e-6), {}, 2);
  ms::IntervalInputs in = dow_inputs(n);
  in.x_of(4)[0] = std::nan("");  // one failing interval: status and message travel too
  bool ok = true;
  for (int round = 0; round < 2; ++round) {
    ms::IntervalOutputs a, b;
    const bool ra = mpi.evaluate(in, a), rb = threaded.evaluate(in, b);
    ok = ok && ra == rb && same_outputs(a, b) && a.message(4) == b.message(4) &&
         a.message(4).empty() == (round == 1);
    std::printf("rank %d: round %d over %d ranks (blocks at", rank, round, mpi.ranks());
    for (int s : mpi.block_starts()) std::printf(" %d", s);
    std::printf("): %s; interval 4: %s\n", same_outputs(a, b) ? "bit-identical" : "DIFFERENT",
                a.message(4).c_str());
    in = dow_inputs(n);
  }
  std::printf("doubles per evaluation (N = %d, Dow): %ld\n", n, mpi.doubles_per_evaluation());
  mpi.stop();
  return ok;
}

// A whole estimation with the experiments distributed over the ranks, against the threaded run.
bool estimation_matches() {
  const ms::EstimationProblem p = consecutive_problem();
  esdirk::Options o;
  o.rtol = 1e-9;
  o.atol = 1e-11;
  auto factory = [] { return std::make_unique<Consecutive>(); };
  ms::MpiIntervalEvaluator mpi(MPI_COMM_WORLD, factory, p.intervals(), o, {}, 1, {0, 5, 11});
  if (!mpi.is_root()) {
    mpi.serve();
    return true;
  }
  ms::IntervalEvaluator threaded(factory, p.intervals(), o, {}, 2);
  const std::vector<double> theta0 = {std::log(1.95), std::log(0.2)};
  const ms::EstimationResult a = ms::estimate(p, theta0, [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) {
    return mpi.evaluate(in, out);
  });
  mpi.stop();
  const ms::EstimationResult b = ms::estimate(p, theta0, [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) {
    return threaded.evaluate(in, out);
  });
  bool ok = a.converged && b.converged && a.history.size() == b.history.size();
  for (int j = 0; j < 2; ++j)
    ok = ok && same(a.theta[j], b.theta[j]) && same(a.theta_upper[j], b.theta_upper[j]);
  std::printf("estimation over %d ranks (experiments at intervals", mpi.ranks());
  for (int s : mpi.block_starts()) std::printf(" %d", s);
  std::printf("): %zu iterations, theta = %.17g %.17g; threaded: %zu iterations, %.17g %.17g: %s\n",
              a.history.size(), a.theta[0], a.theta[1], b.history.size(), b.theta[0], b.theta[1],
              ok ? "bit-identical" : "DIFFERENT");
  return ok;
}

bool refused(int size) {
  auto factory = [] { return std::make_unique<Consecutive>(); };
  try {
    ms::MpiIntervalEvaluator mpi(MPI_COMM_WORLD, factory, size - 1);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    std::printf("refused: %s\n", what.c_str());
    return what.find("more ranks than intervals") != std::string::npos;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool ok = true;
  try {
    if (argc > 1 && !std::strcmp(argv[1], "--refuse")) {
      ok = refused(size);
    } else {
      ok = intervals_match(rank);
      ok = estimation_matches() && ok;
    }
  } catch (const std::exception& e) {
    std::printf("rank %d: %s\n", rank, e.what());
    ok = false;
  }
  int local = ok ? 1 : 0, all = 0;
  MPI_Reduce(&local, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s\n", all == 1 ? "CHECK PASSED" : "CHECK FAILED");
  MPI_Finalize();
  return rank == 0 && all != 1 ? 1 : 0;
}
