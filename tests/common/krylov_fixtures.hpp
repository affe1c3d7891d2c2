#pragma once
// What the Krylov tests share (tests/core/test_krylov*.cpp, test_factorization_policy.cpp,
// tests/sensitivity/test_krylov_*.cpp, tests/events/test_krylov_hybrid_adjoint.cpp): the relative
// difference of two results, the GMRES settings of an interleaved grid (block-Jacobi over the two
// species of a point), a states-only run of a grid problem to t = 2 that keeps what the tests
// look at, and the check that a setter refuses settings naming the cause. Include after
// <boost/test/unit_test.hpp> (run_to and expect_refused use its macros).

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"

namespace krylov_fixtures {

/// max_i |a_i - b_i| / max_i |b_i|.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

/// The same over every entry of two matrices of equal size.
inline double relative_difference(esdirk::ConstMatrixRef a, esdirk::ConstMatrixRef b) {
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) {
      diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
      scale = std::max(scale, std::abs(b(i, j)));
    }
  return diff / scale;
}

/// The default GMRES settings (the ILU(0) preconditioner by default) with block_size 2, the u
/// and v of one grid point, for KrylovPreconditioner::block_jacobi.
inline esdirk::KrylovSettings point_blocks(bool matrix_free = false) {
  esdirk::KrylovSettings settings;
  settings.block_size = 2;
  settings.matrix_free = matrix_free;
  return settings;
}

/// Declares the model's exact pattern with `kind`, and point_blocks(matrix_free) for Krylov.
template <class Model>
void declare(Model& model, esdirk::LinearSolverKind kind, bool matrix_free = false) {
  model.set_jacobian_pattern(model.pattern(), kind);
  if (kind == esdirk::LinearSolverKind::krylov) model.set_krylov_settings(point_blocks(matrix_free));
}

/// Expects `set(settings)` (a problem's set_krylov_settings) to throw std::invalid_argument
/// with `words` in its message.
template <class Setter>
void expect_refused(Setter&& set, const esdirk::KrylovSettings& settings, const std::string& words) {
  try {
    set(settings);
    BOOST_ERROR("accepted: " << words);
  } catch (const std::invalid_argument& e) {
    BOOST_TEST_INFO(e.what());
    BOOST_TEST(std::string(e.what()).find(words) != std::string::npos);
  }
}

struct GridRun {
  esdirk::Status status = esdirk::Status::success;
  std::vector<double> y;
  esdirk::Statistics stats;
  double t = 0.0;
  std::string message;
};

/// States only from y0 at t = 0 to t = 2 at rtol = atol = `rtol`.
inline GridRun run_to_2(esdirk::Problem& model, const std::vector<double>& y0, const std::vector<double>& p,
                        double rtol, double min_step = 0.0) {
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  options.min_step = min_step;
  esdirk::Integrator integrator(model, options);
  GridRun run{esdirk::Status::success, y0, {}, 0.0, {}};
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, run.y, {}, p)));
  const auto out = integrator.integrate_to(2.0, run.y);
  run.status = out.status;
  run.stats = integrator.statistics();
  run.t = integrator.t();
  run.message = integrator.message();
  return run;
}

}  // namespace krylov_fixtures
