#pragma once
// The four problems with published reference solutions, each with the tolerance convention
// used for its accuracy tests and for the achieved-error table of doc/integrator-guide.md.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "akzo_nobel.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "robertson/robertson_model.hpp"
#include "run_helpers.hpp"
#include "van_der_pol/van_der_pol_model.hpp"

namespace reference_problems {

struct Case {
  std::string name;
  std::function<std::unique_ptr<esdirk::Problem>()> make;
  std::vector<double> x0, z0, p;
  double t_end;
  std::vector<double> reference;  ///< x then z at t_end
  /// Options for a given rtol (the problem's atol convention).
  std::function<esdirk::Options(double rtol)> options;
  /// The absolute tolerance of component i (x then z) at a given rtol: components whose
  /// reference value is below it are not held to a relative accuracy.
  std::function<double(double rtol, int i)> atol_of;
};

inline std::vector<Case> all() {
  std::vector<Case> cases;
  {
    // y1, y3 ~ 1 but y2 ~ 1e-13 .. 4e-5 feeds y1 through 1e4 y2 y3: atol = 1e-7 rtol.
    Case c{"Robertson ODE",
           [] { return std::make_unique<robertson::Ode>(); },
           {1, 0, 0},
           {},
           {},
           robertson::t_end,
           {robertson::reference.begin(), robertson::reference.end()},
           [](double rtol) {
             esdirk::Options o;
             o.rtol = rtol;
             o.atol = 1e-7 * rtol;
             return o;
           },
           [](double rtol, int) { return 1e-7 * rtol; }};
    cases.push_back(c);
    Case d{"Robertson DAE",
           [] { return std::make_unique<robertson::Dae>(); },
           {1, 0},
           {0},
           {},
           robertson::t_end,
           {robertson::reference.begin(), robertson::reference.end()},
           [](double rtol) {
             esdirk::Options o;
             o.rtol = rtol;
             o.atol = 1e-7 * rtol;
             o.algebraic_atol = {rtol};  // y3 is O(1); g = y1 + y2 + y3 - 1 is exact to 1 ulp
             return o;
           },
           [](double rtol, int i) { return i < 2 ? 1e-7 * rtol : rtol; }};
    cases.push_back(d);
  }
  cases.push_back({"Van der Pol (eps = 1e-6)",
                   [] { return std::make_unique<van_der_pol::Model>(1e-6); },
                   {2, 0},
                   {},
                   {},
                   van_der_pol::t_end,
                   {van_der_pol::reference.begin(), van_der_pol::reference.end()},
                   [](double rtol) {
                     esdirk::Options o;
                     o.rtol = rtol;
                     o.atol = rtol;
                     return o;
                   },
                   [](double rtol, int) { return rtol; }});
  {
    std::vector<double> ref(akzo_nobel::reference.begin(), akzo_nobel::reference.end());
    cases.push_back({"Akzo Nobel DAE",
                     [] { return std::make_unique<akzo_nobel::Model>(); },
                     {akzo_nobel::initial_states.begin(), akzo_nobel::initial_states.end()},
                     {akzo_nobel::initial_algebraic},
                     {},
                     akzo_nobel::t_end,
                     ref,
                     [](double rtol) {
                       esdirk::Options o;
                       o.rtol = rtol;
                       o.atol = 1e-3 * rtol;
                       return o;
                     },
                     [](double rtol, int) { return 1e-3 * rtol; }});
  }
  {
    const auto zs = dow::consistent_algebraic_start();
    cases.push_back({"Dow batch reactor",
                     [] { return std::make_unique<dow::Model>(); },
                     {dow::initial_states.begin(), dow::initial_states.end()},
                     {zs.begin(), zs.end()},
                     {dow::nominal_parameters.begin(), dow::nominal_parameters.end()},
                     10.0,
                     {dow::reference_at_10h.begin(), dow::reference_at_10h.end()},
                     [](double rtol) { return dow::benchmark_options(rtol); },
                     [](double rtol, int i) {
                       return i < 6 ? 1e-6 * rtol : dow::algebraic_atol[static_cast<std::size_t>(i - 6)];
                     }});
  }
  return cases;
}

struct Outcome {
  esdirk::Status status;
  double error;  ///< the largest relative error of the components above their atol
  esdirk::Statistics stats;
  std::vector<double> solution;
};

inline Outcome solve(const Case& c, double rtol) {
  auto problem = c.make();
  const auto run = test_helpers::run(*problem, c.options(rtol), 0.0, c.t_end, c.x0, c.z0, c.p);
  Outcome out{run.status, 0.0, run.stats, test_helpers::stacked(run)};
  for (std::size_t i = 0; i < c.reference.size(); ++i)
    if (std::abs(c.reference[i]) > c.atol_of(rtol, static_cast<int>(i)))
      out.error = std::max(out.error,
                           std::abs(out.solution[i] - c.reference[i]) / std::abs(c.reference[i]));
  return out;
}

}  // namespace reference_problems
