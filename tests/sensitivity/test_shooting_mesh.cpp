// Fixed and frozen meshes of the shooting interval (MeshPolicy): the derivative of the discrete
// map on a fixed mesh against central differences of the same map, the order of convergence on
// fixed meshes, a frozen mesh reused, the error estimate, and bad input.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "esdirk/sensitivity/shooting_interval.hpp"
#include "nmpc/cstr.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

const std::vector<double> cstr_x0 = {0.7, 340.0}, cstr_u = {305.0};
constexpr double cstr_dt = 0.05;

esdirk::Options tight(const char* method) {
  esdirk::Options o;
  o.method = esdirk::MethodChoice::named(method);
  o.rtol = 1e-12;  // a tight Newton test: the differences see the discrete map, not its noise
  o.atol = 1e-14;
  return o;
}

// The row-scaled difference of [A B] against [A' B'] (each entry relative to the largest
// reference entry of its row), and the largest relative difference of x.
struct Difference {
  double x = 0.0, AB = 0.0;
};
Difference difference(const esdirk::ShootingResult& r, const std::vector<double>& x_ref, const DenseMatrix& A_ref,
                      const DenseMatrix& B_ref) {
  Difference d;
  const int nx = A_ref.rows(), nu = B_ref.cols();
  for (int i = 0; i < nx; ++i) {
    d.x = std::max(d.x, std::abs(r.x[i] - x_ref[i]) / std::abs(x_ref[i]));
    double scale = 0.0;
    for (int j = 0; j < nx; ++j) scale = std::max(scale, std::abs(A_ref(i, j)));
    for (int j = 0; j < nu; ++j) scale = std::max(scale, std::abs(B_ref(i, j)));
    for (int j = 0; j < nx; ++j) d.AB = std::max(d.AB, std::abs(r.A(i, j) - A_ref(i, j)) / scale);
    for (int j = 0; j < nu; ++j) d.AB = std::max(d.AB, std::abs(r.B(i, j) - B_ref(i, j)) / scale);
  }
  return d;
}

// Central differences of x_{k+1}(x_k, u_k) on the interval's current (fixed) mesh, relative
// steps delta.
void central_differences(esdirk::ShootingInterval& interval, double t0, double t1, const std::vector<double>& x0,
                         const std::vector<double>& u, const std::vector<double>& z0, double delta, DenseMatrix& A,
                         DenseMatrix& B) {
  const int nx = static_cast<int>(x0.size()), nu = static_cast<int>(u.size());
  A.resize(nx, nx);
  B.resize(nx, nu);
  for (int j = 0; j < nx + nu; ++j) {
    std::vector<double> xp = x0, xm = x0, up = u, um = u;
    double& vp = j < nx ? xp[j] : up[j - nx];
    double& vm = j < nx ? xm[j] : um[j - nx];
    const double h = delta * (vp != 0.0 ? std::abs(vp) : 1e-3);
    vp += h;
    vm -= h;
    const std::vector<double> plus = interval.integrate(t0, t1, xp, up, z0).x;
    BOOST_REQUIRE(esdirk::ok(interval.result().status));
    const std::vector<double> minus = interval.integrate(t0, t1, xm, um, z0).x;
    BOOST_REQUIRE(esdirk::ok(interval.result().status));
    for (int i = 0; i < nx; ++i) (j < nx ? A(i, j) : B(i, j - nx)) = (plus[i] - minus[i]) / (2.0 * h);
  }
}

bool mentions(const std::exception& e, const char* text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shooting_mesh)

// On a fixed mesh A and B are the derivative of that discrete map: central differences of the
// same map (same mesh) agree to below 1e-8 (measured 1.6e-9 and 5.9e-9, the differences' own
// truncation and Newton noise) on an ODE (the CSTR, one step of 0.05 min) and on a DAE (Dow
// over [2, 2.05] h, a mesh of unequal steps), while the derivative of the exact flow differs
// from them by far more.
BOOST_AUTO_TEST_CASE(fixed_mesh_derivatives_are_central_differences_of_the_same_map) {
  {
    cstr::Model model;
    esdirk::ShootingInterval interval(model, tight("ESDIRK436"));
    interval.set_fixed_steps(1);
    const auto r = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
    BOOST_REQUIRE(esdirk::ok(r.status));
    BOOST_TEST(r.statistics.accepted_steps == 1);
    BOOST_TEST(r.statistics.rejected_steps == 0);
    DenseMatrix A, B;
    central_differences(interval, 0.0, cstr_dt, cstr_x0, cstr_u, {}, 1e-5, A, B);
    const Difference d = difference(r, r.x, A, B);
    // The derivative of the exact flow differs by the step's error: the test sees the mesh.
    esdirk::ShootingInterval adaptive(model, tight("ESDIRK436"));
    const auto exact = adaptive.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
    const double flow = difference(r, exact.x, exact.A, exact.B).AB;
    BOOST_TEST_MESSAGE("CSTR, 1 fixed step: [A B] against central differences " << d.AB << ", against the flow's "
                                                                                << flow);
    BOOST_TEST(d.AB < 1e-8);
    BOOST_TEST(flow > 30.0 * d.AB);
  }
  {
    dow::Model model;
    esdirk::Options o = dow_options(1e-12);
    o.method = esdirk::Tableau::named("ESDIRK436");
    o.max_newton_iterations = 20;  // the tight Newton test on steps far above the adaptive ones
    esdirk::ShootingInterval interval(model, o);
    const std::vector<double> mesh = {0.0, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05};
    interval.set_mesh(mesh);
    const auto zs = dow::consistent_algebraic_start();
    const std::vector<double> z0(zs.begin(), zs.end());
    const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
    // A node on the nominal trajectory at t = 2 h.
    std::vector<double> x(6), z(4);
    {
      esdirk::Integrator solver(model, dow_options(1e-10));
      solver.initialize(0.0, dow::initial_states, z0, u);
      solver.set_stop_time(2.0);
      solver.integrate_to(2.0, x, z);
    }
    const auto r = interval.integrate(2.0, 2.05, x, u, z);
    BOOST_REQUIRE(esdirk::ok(r.status));
    BOOST_TEST(r.statistics.accepted_steps == 6);
    DenseMatrix A, B;
    central_differences(interval, 2.0, 2.05, x, u, z, 1e-4, A, B);
    const Difference d = difference(r, r.x, A, B);
    BOOST_TEST_MESSAGE("Dow, 6 fixed steps: [A B] against central differences " << d.AB);
    BOOST_TEST(d.AB < 1e-8);
  }
}

// The order of convergence on fixed meshes of 2, 4, 8, 16 equal steps against a tight adaptive
// run: ESDIRK436 is of order 4 in x, A and B alike (the sensitivities are the derivative of the
// discrete map, whose error is differentiable in the node).
BOOST_AUTO_TEST_CASE(fixed_mesh_order_of_convergence_is_the_methods) {
  cstr::Model model;
  esdirk::ShootingInterval reference(model, tight("ESDIRK436"));
  const esdirk::ShootingResult exact = reference.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(exact.status));
  esdirk::ShootingInterval interval(model, tight("ESDIRK436"));
  std::vector<Difference> errors;
  for (int n : {2, 4, 8, 16}) {
    interval.set_fixed_steps(n);
    const auto& r = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
    BOOST_REQUIRE(esdirk::ok(r.status));
    errors.push_back(difference(r, exact.x, exact.A, exact.B));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order_x = std::log2(errors[k - 1].x / errors[k].x);
    const double order_AB = std::log2(errors[k - 1].AB / errors[k].AB);
    BOOST_TEST_MESSAGE("steps " << (2 << k) << ": error x " << errors[k].x << " (order " << order_x << "), [A B] "
                                << errors[k].AB << " (order " << order_AB << ")");
    BOOST_TEST(std::abs(order_x - 4.0) < 0.35);
    BOOST_TEST(std::abs(order_AB - 4.0) < 0.35);
  }
}

// A frozen mesh: the first call adapts and keeps its steps; a call from a moved node takes
// exactly those steps (no rejection), and gives what set_mesh with that mesh gives, bit for bit.
// refresh_mesh() adapts again.
BOOST_AUTO_TEST_CASE(frozen_mesh_is_adapted_once_and_reused) {
  cstr::Model model;
  esdirk::Options o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  esdirk::ShootingInterval interval(model, o);
  interval.freeze_mesh();
  BOOST_TEST((interval.mesh_policy() == esdirk::MeshPolicy::frozen));
  const auto& first = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(first.status));
  const std::vector<double> mesh(interval.mesh().begin(), interval.mesh().end());
  BOOST_REQUIRE(mesh.size() == static_cast<std::size_t>(first.statistics.accepted_steps) + 1);
  BOOST_TEST(mesh.front() == 0.0);
  BOOST_TEST(mesh.back() == cstr_dt);
  BOOST_TEST(first.error_estimate <= 1.0);

  // The node moves a little (an SQP iteration), and the interval moves in time (the next sample).
  const std::vector<double> x1 = {0.71, 339.5}, u1 = {306.0};
  const esdirk::ShootingResult again = interval.integrate(1.0, 1.0 + cstr_dt, x1, u1);
  BOOST_REQUIRE(esdirk::ok(again.status));
  BOOST_TEST(again.statistics.accepted_steps == static_cast<long>(mesh.size()) - 1);
  BOOST_TEST(again.statistics.rejected_steps == 0);
  BOOST_TEST(again.error_estimate < 3.0);  // the node moved: near, not necessarily below, 1

  esdirk::ShootingInterval fixed(model, o);
  fixed.set_mesh(mesh);
  const auto& same = fixed.integrate(1.0, 1.0 + cstr_dt, x1, u1);
  BOOST_REQUIRE(esdirk::ok(same.status));
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(same.x[i] == again.x[i]);
    for (int j = 0; j < 2; ++j) BOOST_TEST(same.A(i, j) == again.A(i, j));
    BOOST_TEST(same.B(i, 0) == again.B(i, 0));
  }

  // Adapt again from a node far away: a different mesh is frozen.
  interval.refresh_mesh();
  const std::vector<double> far = {0.3, 360.0};
  BOOST_REQUIRE(esdirk::ok(interval.integrate(0.0, cstr_dt, far, cstr_u).status));
  BOOST_TEST(interval.result().statistics.accepted_steps + interval.result().statistics.rejected_steps >= 1);
  BOOST_TEST(interval.mesh().back() == cstr_dt);

  interval.use_adaptive_steps();
  BOOST_REQUIRE(esdirk::ok(interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u).status));
  BOOST_TEST(interval.mesh().empty());
}

// The error estimate says whether a fixed mesh suffices for rtol: one step of 0.05 min on the
// CSTR at rtol 1e-8 is far too coarse (estimate > 1), the adaptive steps' estimate is <= 1.
BOOST_AUTO_TEST_CASE(error_estimate_tells_a_coarse_fixed_mesh) {
  cstr::Model model;
  esdirk::Options o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  esdirk::ShootingInterval interval(model, o);
  const auto& adaptive = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(adaptive.status));
  BOOST_TEST(adaptive.error_estimate > 0.0);
  BOOST_TEST(adaptive.error_estimate <= 1.0);
  const long adaptive_steps = adaptive.statistics.accepted_steps;
  interval.set_fixed_steps(1);
  const auto& coarse = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(coarse.status));
  BOOST_TEST(coarse.error_estimate > 10.0);
  interval.set_fixed_steps(static_cast<int>(4 * adaptive_steps));
  const auto& fine = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(fine.status));
  BOOST_TEST(fine.error_estimate < 1.0);
}

// Bad input: a step count <= 0 or above max_steps, a mesh that does not start at 0, is not
// increasing, has a zero step or a NaN, or does not span the interval; a frozen mesh on an
// interval of another length. Each throws std::invalid_argument naming the argument, and the
// previous mesh is kept (the next good call gives the same result as before).
BOOST_AUTO_TEST_CASE(bad_mesh_input_is_refused_and_the_previous_mesh_kept) {
  cstr::Model model;
  esdirk::Options o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.max_steps = 100;
  esdirk::ShootingInterval interval(model, o);
  const std::vector<double> mesh = {0.0, 0.01, 0.025, 0.05};
  interval.set_mesh(mesh);
  const std::vector<double> before = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u).x;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto names = [](const char* text) { return [text](const std::exception& e) { return mentions(e, text); }; };

  BOOST_CHECK_EXCEPTION(interval.set_fixed_steps(0), std::invalid_argument, names("steps = 0"));
  BOOST_CHECK_EXCEPTION(interval.set_fixed_steps(-3), std::invalid_argument, names("steps = -3"));
  BOOST_CHECK_EXCEPTION(interval.set_fixed_steps(101), std::invalid_argument, names("max_steps = 100"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>{0.0}), std::invalid_argument, names("at least 2"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>(102, 0.0)), std::invalid_argument,
                        names("max_steps = 100"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>{0.0, nan, 0.05}), std::invalid_argument,
                        names("point 1 is not finite"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>{0.01, 0.02, 0.05}), std::invalid_argument,
                        names("must start at 0"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>{0.0, 0.02, 0.02, 0.05}), std::invalid_argument,
                        names("is zero"));
  BOOST_CHECK_EXCEPTION(interval.set_mesh(std::vector<double>{0.0, 0.03, 0.02, 0.05}), std::invalid_argument,
                        names("not increasing"));
  BOOST_CHECK_EXCEPTION(interval.integrate(0.0, 0.06, cstr_x0, cstr_u), std::invalid_argument,
                        names("t_end"));
  BOOST_TEST((interval.mesh_policy() == esdirk::MeshPolicy::fixed));
  const auto& after = interval.integrate(0.0, cstr_dt, cstr_x0, cstr_u);
  BOOST_REQUIRE(esdirk::ok(after.status));
  BOOST_TEST(after.statistics.accepted_steps == 3);
  BOOST_TEST(after.x == before);

  // A frozen mesh on an interval of another length.
  esdirk::ShootingInterval frozen(model, o);
  frozen.freeze_mesh();
  BOOST_REQUIRE(esdirk::ok(frozen.integrate(0.0, cstr_dt, cstr_x0, cstr_u).status));
  const std::vector<double> kept(frozen.mesh().begin(), frozen.mesh().end());
  BOOST_CHECK_EXCEPTION(frozen.integrate(0.0, 0.04, cstr_x0, cstr_u), std::invalid_argument,
                        names("refresh_mesh"));
  BOOST_REQUIRE(esdirk::ok(frozen.integrate(2.0, 2.0 + cstr_dt, cstr_x0, cstr_u).status));
  BOOST_TEST(std::vector<double>(frozen.mesh().begin(), frozen.mesh().end()) == kept,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
