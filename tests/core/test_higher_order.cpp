// The order-4 and order-5 members (Kennedy & Carpenter's ESDIRK4(3)6L[2]SA and
// ESDIRK5(4)7L[2]SA): every published coefficient checked against the order conditions in long
// double (all rooted trees up to the order, for b and for the embedded b-hat), stage order 2,
// stiff accuracy, the rounding to double, L-stability at z = -1e8; selection by name; measured
// fixed-step orders; and the calibrated tolerance rule.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "esdirk/error_weights.hpp"
#include "esdirk/integrator.hpp"
#include "internal/higher_order_tableaux.hpp"
#include "reference_problems.hpp"

namespace {

using esdirk::internal::LongTableau;

// A rooted tree as the list of its subtrees (children).
struct Tree {
  std::vector<Tree> children;
  int order() const {
    int n = 1;
    for (const Tree& c : children) n += c.order();
    return n;
  }
  long double density() const {  // gamma(t)
    long double g = order();
    for (const Tree& c : children) g *= c.density();
    return g;
  }
};

// All trees of order n (children as multisets: non-increasing indices into the list of all
// smaller trees, so every tree appears once).
std::vector<Tree> trees_up_to(int n) {
  std::vector<Tree> all;  // ordered by order
  std::vector<std::vector<int>> by_order(static_cast<std::size_t>(n) + 1);
  for (int order = 1; order <= n; ++order) {
    std::function<void(int, int, std::vector<int>&)> build = [&](int remaining, int max_index, std::vector<int>& picked) {
      if (remaining == 0) {
        Tree t;
        for (int i : picked) t.children.push_back(all[static_cast<std::size_t>(i)]);
        by_order[static_cast<std::size_t>(order)].push_back(static_cast<int>(all.size()));
        all.push_back(t);
        return;
      }
      for (int i = std::min(max_index, static_cast<int>(all.size()) - 1); i >= 0; --i) {
        const int o = all[static_cast<std::size_t>(i)].order();
        if (o > remaining) continue;
        picked.push_back(i);
        build(remaining - o, i, picked);
        picked.pop_back();
      }
    };
    std::vector<int> picked;
    const int before = static_cast<int>(all.size());
    build(order - 1, before - 1, picked);
  }
  return all;
}

// Phi_i(t) = prod over children of (A Phi(child))_i.
std::vector<long double> elementary_weights(LongTableau& tab, const Tree& t) {
  const int s = tab.stages;
  std::vector<long double> phi(static_cast<std::size_t>(s), 1.0L);
  for (const Tree& c : t.children) {
    const std::vector<long double> child = elementary_weights(tab, c);
    for (int i = 0; i < s; ++i) {
      long double sum = 0.0L;
      for (int j = 0; j < s; ++j) sum += tab.A(i, j) * child[static_cast<std::size_t>(j)];
      phi[static_cast<std::size_t>(i)] *= sum;
    }
  }
  return phi;
}

// The largest |b . Phi(t) - 1/gamma(t)| over the trees of order <= p.
long double order_defect(LongTableau& tab, const std::vector<long double>& b, int p) {
  long double worst = 0.0L;
  for (const Tree& t : trees_up_to(p)) {
    const std::vector<long double> phi = elementary_weights(tab, t);
    long double sum = 0.0L;
    for (int i = 0; i < tab.stages; ++i) sum += b[static_cast<std::size_t>(i)] * phi[static_cast<std::size_t>(i)];
    worst = std::max(worst, std::abs(sum - 1.0L / t.density()));
  }
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(higher_order_members)

BOOST_AUTO_TEST_CASE(tree_count_is_right) {
  // 1, 1, 2, 4, 9 trees of orders 1..5: 17 conditions for order 5.
  BOOST_TEST(trees_up_to(4).size() == 8u);
  BOOST_TEST(trees_up_to(5).size() == 17u);
  BOOST_TEST(trees_up_to(6).size() == 37u);
}

BOOST_AUTO_TEST_CASE(published_coefficients_satisfy_the_order_conditions_in_long_double) {
  struct Case {
    LongTableau tab;
    esdirk::Tableau rounded;
    int order, embedded;
  };
  std::vector<Case> cases{{esdirk::internal::esdirk436_long(), esdirk::Tableau::esdirk436(), 4, 3},
                          {esdirk::internal::esdirk547_long(), esdirk::Tableau::esdirk547(), 5, 4}};
  for (Case& c : cases) {
    LongTableau& t = c.tab;
    const int s = t.stages;
    BOOST_TEST_INFO(c.rounded.name);
    // Order p of b and the embedded order of b-hat; not one order more (the estimate needs it).
    // The rationals of ESDIRK5(4)7L[2]SA are published to ~13 digits: their defects are at
    // that level, far below the truncation error of any step (a defect d costs d h^(p+1)).
    const long double tolerance = s == 6 ? 1e-17L : 1e-13L;
    BOOST_TEST(static_cast<double>(order_defect(t, t.b, c.order)) <= static_cast<double>(tolerance));
    BOOST_TEST(static_cast<double>(order_defect(t, t.b_hat, c.embedded)) <= static_cast<double>(tolerance));
    BOOST_TEST(static_cast<double>(order_defect(t, t.b, c.order + 1)) > 1e-4);
    BOOST_TEST(static_cast<double>(order_defect(t, t.b_hat, c.embedded + 1)) > 1e-4);
    // Stage order 2 (A c = c^2 / 2 on every row), explicit first stage, singly diagonal,
    // stiffly accurate (last row = b, c_s = 1), a21 = gamma.
    const long double g = t.A(1, 1);
    BOOST_TEST(static_cast<double>(std::abs(t.A(1, 0) - g)) <= 1e-18);
    for (int i = 0; i < s; ++i) {
      long double ac = 0.0L;
      for (int j = 0; j < s; ++j) ac += t.A(i, j) * t.c[static_cast<std::size_t>(j)];
      const long double ci = t.c[static_cast<std::size_t>(i)];
      BOOST_TEST(static_cast<double>(std::abs(ac - ci * ci / 2.0L)) <= static_cast<double>(tolerance));
      if (i > 0) BOOST_TEST(t.A(i, i) == g);
      BOOST_TEST(t.A(s - 1, i) == t.b[static_cast<std::size_t>(i)]);
    }
    BOOST_TEST(t.c[static_cast<std::size_t>(s - 1)] == 1.0L);
    // The double tableau is the long-double one rounded once.
    const esdirk::Tableau& r = c.rounded;
    BOOST_TEST(r.stages == s);
    BOOST_TEST(r.order == c.order);
    BOOST_TEST(r.controller_order() == c.embedded + 1);
    for (int i = 0; i < s; ++i) {
      BOOST_TEST(r.b[static_cast<std::size_t>(i)] == static_cast<double>(t.b[static_cast<std::size_t>(i)]));
      BOOST_TEST(r.b_hat[static_cast<std::size_t>(i)] == static_cast<double>(t.b_hat[static_cast<std::size_t>(i)]));
      BOOST_TEST(r.b[static_cast<std::size_t>(i)] != 0.0);  // the adjoint's partner divides by b_i
      for (int j = 0; j < s; ++j) BOOST_TEST(r.A(i, j) == static_cast<double>(t.A(i, j)));
    }
    BOOST_CHECK_NO_THROW(r.validate());
  }
}

// One step of y' = lambda y from y = 1 with h lambda = z: L-stability means R(z) -> 0.
BOOST_AUTO_TEST_CASE(new_members_are_l_stable) {
  for (const esdirk::Tableau& tab : {esdirk::Tableau::esdirk436(), esdirk::Tableau::esdirk547()}) {
    for (double z : {-1.0, -10.0, -1e3, -1e8}) {
      esdirk::FunctionProblem problem(1, 0, 0, [z](double, auto y, auto, auto, auto f) {
        f[0] = z * y[0];
        return 0;
      });
      problem.set_jacobian([z](double, auto, auto, auto, esdirk::MatrixRef J) {
        J(0, 0) = z;
        return 0;
      });
      esdirk::Options o;
      o.method = tab;
      o.rtol = o.atol = 1e-14;
      esdirk::Integrator solver(problem, o);
      BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
      BOOST_REQUIRE(esdirk::ok(solver.step_exactly(1.0)));
      BOOST_TEST_INFO(tab.name << " z = " << z << ": R = " << solver.x()[0]);
      BOOST_TEST(std::abs(solver.x()[0]) < 1.0);
      if (z <= -1e3) BOOST_TEST(std::abs(solver.x()[0]) < 20.0 / std::abs(z));
    }
  }
}

BOOST_AUTO_TEST_CASE(members_by_name_and_unknown_names) {
  for (const char* name : {"ESDIRK34", "ESDIRK436", "ESDIRK547", "ESDIRK23", "ESDIRK12"})
    BOOST_TEST(esdirk::Tableau::named(name).name == name);
  BOOST_TEST(esdirk::MethodChoice::named("auto").is_automatic());
  BOOST_TEST(esdirk::MethodChoice::named("ESDIRK547").tableau().name == "ESDIRK547");
  for (const char* unknown : {"RADAU5", ""}) {
    const auto names_the_known_ones = [unknown](const std::invalid_argument& e) {
      const std::string m = e.what();
      return m.find(std::string("\"") + unknown + "\"") != std::string::npos && m.find("ESDIRK547") != std::string::npos &&
             m.find("auto") != std::string::npos;
    };
    BOOST_CHECK_EXCEPTION(esdirk::Tableau::named(unknown), std::invalid_argument, names_the_known_ones);
    BOOST_CHECK_EXCEPTION(esdirk::MethodChoice::named(unknown), std::invalid_argument, names_the_known_ones);
  }
  // "auto" is a choice, not a tableau: Tableau::named refuses it and points to MethodChoice.
  BOOST_CHECK_EXCEPTION(esdirk::Tableau::named("auto"), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("MethodChoice") != std::string::npos;
  });
  // "auto" is resolved by the integrator from rtol.
  auto problem = esdirk::FunctionProblem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = -y[0];
    return 0;
  });
  esdirk::Options o;
  o.method = esdirk::MethodChoice::automatic();
  o.rtol = 1e-2;
  BOOST_TEST(esdirk::Integrator(problem, o).method().name == "ESDIRK34");
  o.rtol = 2e-3;
  BOOST_TEST(esdirk::Integrator(problem, o).method().name == "ESDIRK34");
  o.rtol = 1e-3;
  BOOST_TEST(esdirk::Integrator(problem, o).method().name == "ESDIRK436");
  o.rtol = 1e-10;
  BOOST_TEST(esdirk::Integrator(problem, o).method().name == "ESDIRK436");
  o.rtol = 1e-2;
  o.rtol_vector = {1e-6};  // the smallest component tolerance decides
  o.atol_vector = {1e-6};
  BOOST_TEST(esdirk::Integrator(problem, o).method().name == "ESDIRK436");
  o.rtol_vector.clear();
  o.atol_vector.clear();
  // The calibration option.
  o.calibration_factor = -1.0;
  BOOST_CHECK_EXCEPTION(esdirk::Integrator(problem, o), std::invalid_argument,
                        [](const std::invalid_argument& e) { return std::string(e.what()).find("calibration_factor") != std::string::npos; });
  o.calibration_factor = std::nan("");
  BOOST_CHECK_THROW(esdirk::Integrator(problem, o), std::invalid_argument);
  o.calibration_factor = 0.0;
  o.tolerance_rule = static_cast<esdirk::ToleranceRule>(9);
  BOOST_CHECK_EXCEPTION(esdirk::Integrator(problem, o), std::invalid_argument,
                        [](const std::invalid_argument& e) { return std::string(e.what()).find("tolerance_rule") != std::string::npos; });
}

// Fixed-step orders 4 and 5 (+-0.2). Each member on a problem where its leading error term
// does not cancel over the interval: ESDIRK436 on the logistic equation y' = y (1 - y), y(0) =
// 0.1, t in [0, 4]; ESDIRK547 on y' = cos(t) y^2, y(0) = 1/2 (y = 1/(2 - sin t)) over [0, 4]
// (on the logistic equation its measured order is 6-7 at these steps, on the second problem
// ESDIRK436's is 5-6: near-cancellations of the error constants, not the order).
BOOST_AUTO_TEST_CASE(fixed_step_orders_4_and_5) {
  esdirk::FunctionProblem logistic(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = y[0] * (1.0 - y[0]);
    return 0;
  });
  logistic.set_jacobian([](double, auto y, auto, auto, esdirk::MatrixRef J) {
    J(0, 0) = 1.0 - 2.0 * y[0];
    return 0;
  });
  esdirk::FunctionProblem riccati(1, 0, 0, [](double t, auto y, auto, auto, auto f) {
    f[0] = std::cos(t) * y[0] * y[0];
    return 0;
  });
  riccati.set_jacobian([](double t, auto y, auto, auto, esdirk::MatrixRef J) {
    J(0, 0) = 2.0 * std::cos(t) * y[0];
    return 0;
  });
  struct Case {
    esdirk::Tableau tab;
    esdirk::Problem* problem;
    double y0, exact, expected;
    std::vector<int> steps;
  };
  const std::vector<Case> cases{
      {esdirk::Tableau::esdirk436(), &logistic, 0.1, 1.0 / (1.0 + 9.0 * std::exp(-4.0)), 4.0, {8, 16, 32, 64}},
      {esdirk::Tableau::esdirk547(), &riccati, 0.5, 1.0 / (2.0 - std::sin(4.0)), 5.0, {16, 32, 64, 128}}};
  for (const Case& c : cases) {
    std::vector<double> errors;
    for (int n : c.steps) {
      esdirk::Options o;
      o.method = c.tab;
      o.rtol = o.atol = 1e-14;
      o.max_newton_iterations = 50;
      esdirk::Integrator solver(*c.problem, o);
      BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{c.y0}, {}, {})));
      for (int k = 0; k < n; ++k) BOOST_REQUIRE(esdirk::ok(solver.step_exactly(4.0 / n)));
      errors.push_back(std::abs(solver.x()[0] - c.exact));
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
      const double order = std::log2(errors[k - 1] / errors[k]);
      BOOST_TEST_MESSAGE(c.tab.name << " order " << order << " (errors " << errors[k - 1] << " -> " << errors[k] << ")");
      BOOST_TEST(std::abs(order - c.expected) <= 0.2);
    }
  }
}

// The achieved error on the five reference problems, each run with its options changed by
// `configure`, lies in [0.1, 10] x rtol for rtol 1e-2 .. 1e-10 and falls monotonically.
template <class Configure>
void check_tolerances_mean_what_they_say(Configure configure) {
  for (auto& c : reference_problems::all()) {
    const auto base = c.options;
    c.options = [&](double rtol) {
      auto o = base(rtol);
      configure(o);
      return o;
    };
    double previous = 1e300;
    for (double rtol : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      const auto out = reference_problems::solve(c, rtol);
      BOOST_TEST_INFO(c.name << " rtol " << rtol << ": error " << out.error << " (" << out.error / rtol << " rtol)");
      BOOST_REQUIRE(esdirk::ok(out.status));
      BOOST_TEST(out.error <= 10.0 * rtol);
      BOOST_TEST(out.error >= 0.1 * rtol);
      BOOST_TEST(out.error < previous);
      previous = out.error;
    }
  }
}

template <class T>
constexpr bool has_static_automatic = requires { T::automatic(); };
template <class T>
constexpr bool asks_is_automatic = requires(const T& t) { t.is_automatic(); };

// Options::method is a MethodChoice: "auto" is no sentinel tableau (no Tableau::automatic(), no
// Tableau::is_automatic(), a choice never converts to a tableau), an Integrator keeps the choice
// in options() as it was given and runs the method it resolved, Integrator::method(): for "auto"
// the member the documented rule takes for that rtol (ESDIRK34 above 1e-3, ESDIRK436 at and
// below) on an ODE and on a semi-explicit DAE alike; an explicit choice is kept at every rtol.
BOOST_AUTO_TEST_CASE(the_integrator_exposes_the_method_it_resolved) {
  static_assert(!has_static_automatic<esdirk::Tableau> && !asks_is_automatic<esdirk::Tableau>);
  static_assert(!std::is_convertible_v<esdirk::MethodChoice, esdirk::Tableau>);
  static_assert(std::is_same_v<decltype(esdirk::Options::method), esdirk::MethodChoice>);
  BOOST_CHECK_THROW((void)esdirk::Options{}.method.tableau(), std::logic_error);
  BOOST_TEST(esdirk::Options{}.method.name() == "auto");
  auto ode = esdirk::FunctionProblem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = -y[0];
    return 0;
  });
  auto dae = esdirk::FunctionProblem(
      1, 1, 0,
      [](double, auto, auto z, auto, auto f) {
        f[0] = -z[0];
        return 0;
      },
      [](double, auto x, auto z, auto, auto g) {
        g[0] = z[0] - x[0];
        return 0;
      });
  for (esdirk::Problem* problem : {static_cast<esdirk::Problem*>(&ode), static_cast<esdirk::Problem*>(&dae)}) {
    for (double rtol : {1e-3, 2e-5, 1e-5, 1e-9}) {
      BOOST_TEST_INFO("nz " << problem->nz() << ", rtol " << rtol);
      esdirk::Options o;
      o.rtol = rtol;
      const esdirk::Integrator automatic(*problem, o);
      BOOST_TEST(automatic.options().method.is_automatic());  // as given
      BOOST_TEST(automatic.method().name == (rtol <= esdirk::Options::automatic_high_order_from ? "ESDIRK436" : "ESDIRK34"));
      BOOST_TEST(automatic.method().stages == o.resolved_method().stages);
      for (const auto& chosen : {esdirk::Tableau::esdirk34(), esdirk::Tableau::esdirk547(), esdirk::Tableau::esdirk12()}) {
        o.method = chosen;
        const esdirk::Integrator explicit_choice(*problem, o);
        BOOST_TEST(explicit_choice.options().method.name() == chosen.name);
        BOOST_TEST(explicit_choice.method().name == chosen.name);
        BOOST_TEST(explicit_choice.method().a == chosen.a);
      }
    }
  }
}

// Correct by default: with default options (the calibrated rule, method "auto": ESDIRK34 above
// rtol 1e-3, ESDIRK436 with its calibration constant 0.1 at and below) the achieved error on the
// five reference problems lies in [0.1, 10] x rtol for rtol 1e-2 .. 1e-10 and falls monotonically
// with rtol, across the switch between 1e-3 and 1e-2 (the tables of doc/integrator-guide.md
// section 6).
BOOST_AUTO_TEST_CASE(default_tolerances_mean_what_they_say) {
  BOOST_TEST((esdirk::Options{}.tolerance_rule == esdirk::ToleranceRule::calibrated));
  BOOST_TEST(esdirk::Options{}.method.is_automatic());
  check_tolerances_mean_what_they_say([](esdirk::Options&) {});
}

// Why "auto" takes ESDIRK436 from rtol 1e-3 down (it took it from 1e-5 only): there it needs far
// fewer steps than ESDIRK34 for an error in the same band (measured 1.7-3.8x fewer from 1e-3 to
// 1e-5; doc/integrator-guide.md section 6, "Where the switch lies"). With the switch back at
// 1e-5 the steps at 1e-3 and 1e-4 would be ESDIRK34's and this fails.
BOOST_AUTO_TEST_CASE(auto_takes_fewer_steps_than_esdirk34_from_rtol_1e_3) {
  for (const auto& c : reference_problems::all()) {
    reference_problems::Case esdirk34 = c;
    esdirk34.options = [&c](double rtol) {
      auto o = c.options(rtol);
      o.method = esdirk::Tableau::esdirk34();
      return o;
    };
    for (double rtol : {1e-3, 1e-4, 1e-5}) {
      const auto automatic = reference_problems::solve(c, rtol);
      const auto alone = reference_problems::solve(esdirk34, rtol);
      BOOST_TEST_INFO(c.name << " rtol " << rtol << ": " << automatic.stats.steps << " steps against "
                             << alone.stats.steps);
      BOOST_REQUIRE(esdirk::ok(automatic.status));
      BOOST_REQUIRE(esdirk::ok(alone.status));
      BOOST_TEST(automatic.stats.steps < 0.7 * alone.stats.steps);
    }
  }
}

// The same for ESDIRK34 at every tolerance (Kristensen et al. 2005's method with the calibrated rule).
BOOST_AUTO_TEST_CASE(esdirk34_tolerances_mean_what_they_say) {
  check_tolerances_mean_what_they_say([](esdirk::Options& o) { o.method = esdirk::Tableau::esdirk34(); });
}

// Options::internal_rtol (and so ErrorWeights) of options whose method is still "auto" took the
// order and factor of the empty "auto" tableau (an internal rtol near the 1e-13 floor at every
// rtol: 1e-12 at rtol 1e-3);
// it must give the rule of the member "auto" resolves to at that rtol, as a run does.
BOOST_AUTO_TEST_CASE(internal_tolerances_of_auto_are_those_of_the_member_it_takes) {
  for (double rtol : {1e-3, 1e-5, 1e-8, 1e-11}) {
    esdirk::Options automatic;
    automatic.rtol = rtol;
    automatic.atol = 1e-3 * rtol;
    esdirk::Options resolved = automatic;
    resolved.method = automatic.resolved_method();
    BOOST_TEST_INFO("rtol " << rtol << " (" << resolved.method.name() << ")");
    BOOST_TEST(automatic.internal_rtol(rtol) == resolved.internal_rtol(rtol));
    BOOST_TEST(std::isfinite(automatic.internal_rtol(rtol)));
    const esdirk::ErrorWeights a(automatic, 2, 1), b(resolved, 2, 1);
    BOOST_TEST(a.rtol(0) == b.rtol(0));
    BOOST_TEST(a.atol(1) == b.atol(1));
    BOOST_TEST(a.algebraic_atol(0) == b.algebraic_atol(0));
  }
}

BOOST_AUTO_TEST_SUITE_END()
