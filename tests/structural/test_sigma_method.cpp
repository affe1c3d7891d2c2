// Σ-method on the worked examples of doc/structural-theory.md §8 (the clutch, the pendulum, the
// derived cases), its post-conditions and the non-square path.

#include <boost/test/unit_test.hpp>

#include "structural_test_support.hpp"

using namespace structural_test;

namespace {

void require_postconditions(const SignatureMatrix& sigma, const SigmaResult& r) {
  auto violations = check_sigma_postconditions(sigma, r);
  for (const auto& v : violations) BOOST_ERROR(v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sigma_method_examples)

BOOST_AUTO_TEST_CASE(clutch_released) {
  Model model = load("clutch.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& m = mode_named(a, "gamma=false");
  BOOST_REQUIRE(m.result.succeeded());
  require_postconditions(m.sigma, m.result);
  BOOST_TEST((equation_offsets(model, m) ==
              std::map<std::string, int>{{"e1", 0}, {"e2", 0}, {"e5", 0}, {"e6", 0}}));
  BOOST_TEST((variable_offsets(model, m) ==
              std::map<std::string, int>{{"omega1", 1}, {"omega2", 1}, {"tau1", 0}, {"tau2", 0}}));
  BOOST_TEST(m.result.max_offset_index == 0);
  BOOST_TEST(m.result.pryce_structural_index == 1);
  BOOST_TEST(m.result.degrees_of_freedom == 2);
  BOOST_TEST(m.result.optimal_weight == 2);
  BOOST_TEST(m.result.latent_equations.empty());
  BOOST_TEST(m.result.consistency_constraints.empty());
  // Exactly one perfect matching (the paper's §2).
  BOOST_TEST(
      brute_force_assignment({{1, -1, 0, -1}, {-1, 1, -1, 0}, {-1, -1, 0, -1}, {-1, -1, -1, 0}}) ==
      std::make_pair(2, 1));
  // BTF: four singletons, e5 before e1 and e6 before e2.
  const auto& btf = m.result.jacobian_blocks;
  auto e = [&](int i) { return model.equations[m.equations[i]].name; };
  BOOST_TEST(btf.blocks.size() == 4u);
  std::map<std::string, int> block_of;
  for (std::size_t b = 0; b < btf.blocks.size(); ++b) {
    BOOST_TEST(btf.blocks[b].equations.size() == 1u);
    block_of[e(btf.blocks[b].equations[0])] = int(b);
  }
  std::set<std::pair<std::string, std::string>> before;
  for (auto [x, y] : btf.dependencies) {
    before.insert({e(btf.blocks[x].equations[0]), e(btf.blocks[y].equations[0])});
  }
  BOOST_TEST((before == std::set<std::pair<std::string, std::string>>{{"e5", "e1"}, {"e6", "e2"}}));
}

BOOST_AUTO_TEST_CASE(clutch_engaged) {
  Model model = load("clutch.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& m = mode_named(a, "gamma=true");
  BOOST_REQUIRE(m.result.succeeded());
  require_postconditions(m.sigma, m.result);
  BOOST_TEST((equation_offsets(model, m) ==
              std::map<std::string, int>{{"e1", 0}, {"e2", 0}, {"e3", 1}, {"e4", 0}}));
  BOOST_TEST((variable_offsets(model, m) ==
              std::map<std::string, int>{{"omega1", 1}, {"omega2", 1}, {"tau1", 0}, {"tau2", 0}}));
  BOOST_TEST(m.result.max_offset_index == 1);
  BOOST_TEST(m.result.pryce_structural_index == 2);
  BOOST_TEST(m.result.degrees_of_freedom == 1);
  BOOST_TEST(m.result.optimal_weight == 1);
  // Two perfect matchings, both optimal (the paper's §2).
  BOOST_TEST(
      brute_force_assignment({{1, -1, 0, -1}, {-1, 1, -1, 0}, {0, 0, -1, -1}, {-1, -1, 0, 0}}) ==
      std::make_pair(1, 2));
  int e3 = 2;  // row of e3 among the active equations e1 e2 e3 e4
  BOOST_TEST((m.result.latent_equations == std::vector<DifferentiatedEquation>{{e3, 1}}));
  BOOST_TEST((m.result.consistency_constraints == std::vector<DifferentiatedEquation>{{e3, 0}}));
  // System Jacobian pattern = rows e1 e2 e3' e4 of J =
  // [[1,0,-a,0],[0,1,0,-b],[1,-1,0,0],[0,0,1,1]].
  const BipartiteGraph& J = m.result.system_jacobian;
  std::vector<std::vector<int>> rows;
  for (int f = 0; f < 4; ++f) rows.emplace_back(J.variables_of(f).begin(), J.variables_of(f).end());
  BOOST_TEST((rows == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {0, 1}, {2, 3}}));
  BOOST_TEST(m.result.jacobian_blocks.blocks.size() == 1u);  // one 4x4 block (an 8-cycle)
}

BOOST_AUTO_TEST_CASE(pendulum) {
  Model model = load("pendulum.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& m = a.modes.at(0);
  BOOST_REQUIRE(m.result.succeeded());
  require_postconditions(m.sigma, m.result);
  BOOST_TEST(
      (equation_offsets(model, m) == std::map<std::string, int>{{"f1", 0}, {"f2", 0}, {"f3", 2}}));
  BOOST_TEST((variable_offsets(model, m) ==
              std::map<std::string, int>{{"x", 2}, {"y", 2}, {"lambda", 0}}));
  BOOST_TEST(m.result.max_offset_index == 2);
  BOOST_TEST(m.result.pryce_structural_index == 3);
  BOOST_TEST(m.result.degrees_of_freedom == 2);
  BOOST_TEST((m.result.latent_equations == std::vector<DifferentiatedEquation>{{2, 1}, {2, 2}}));
  BOOST_TEST(
      (m.result.consistency_constraints == std::vector<DifferentiatedEquation>{{2, 0}, {2, 1}}));
  BOOST_TEST(
      (m.result.leading_variables == std::vector<DerivativeOfVariable>{{0, 2}, {1, 2}, {2, 0}}));
  BOOST_TEST(brute_force_assignment({{2, -1, 0}, {-1, 2, 0}, {0, 0, -1}}) == std::make_pair(2, 2));
  BOOST_TEST(m.result.jacobian_blocks.blocks.size() == 1u);
}

BOOST_AUTO_TEST_CASE(rldc2_four_modes) {
  // Hand-derived in doc/structural-theory.md (the paper gives no results for RLDC2).
  Model model = load("rldc2.dae");
  ModelAnalysis a = analyse_model(model);
  BOOST_TEST(a.modes.size() == 4u);
  struct Expected {
    std::string mode;
    std::set<std::string> positive_c;  // equations with c = 1 (all others 0)
    std::set<std::string> d_one;       // variables with d = 1 (all others 0)
    int dof;
    int weight;
    std::size_t blocks;
    std::size_t largest_block;
    int optimal_matchings;
  };
  std::vector<Expected> expected{
      {"g1=false, g2=false",
       {"K1", "Z1", "Z2"},
       {"i1", "i2", "j1", "j2", "v1", "v2"},
       3,
       3,
       9,
       6,
       2},
      {"g1=false, g2=true", {}, {"j1", "j2", "v1", "v2"}, 4, 4, 14, 1, 1},
      {"g1=true, g2=false", {}, {"j1", "j2", "v1", "v2"}, 4, 4, 14, 1, 1},
      {"g1=true, g2=true",
       {"K3", "Z1", "Z2"},
       {"j1", "j2", "u1", "u2", "v1", "v2"},
       3,
       3,
       11,
       4,
       2},
  };
  for (const Expected& x : expected) {
    BOOST_TEST_CONTEXT(x.mode) {
      const ModeAnalysis& m = mode_named(a, x.mode);
      BOOST_REQUIRE(m.result.succeeded());
      require_postconditions(m.sigma, m.result);
      for (auto [name, c] : equation_offsets(model, m)) {
        BOOST_TEST(c == (x.positive_c.count(name) ? 1 : 0), name);
      }
      for (auto [name, d] : variable_offsets(model, m)) {
        BOOST_TEST(d == (x.d_one.count(name) ? 1 : 0), name);
      }
      BOOST_TEST(m.result.degrees_of_freedom == x.dof);
      BOOST_TEST(m.result.optimal_weight == x.weight);
      BOOST_TEST(m.result.max_offset_index == (x.positive_c.empty() ? 0 : 1));
      BOOST_TEST(m.result.jacobian_blocks.blocks.size() == x.blocks);
      std::size_t largest = 0;
      for (const auto& b : m.result.jacobian_blocks.blocks) {
        largest = std::max(largest, b.equations.size());
      }
      BOOST_TEST(largest == x.largest_block);
      // Count the optimal perfect matchings by exhaustive recursive search (independent of
      // the assignment solver).
      const SignatureMatrix& s = m.sigma;
      int n = s.equation_count();
      std::vector<char> used(n, 0);
      int count = 0;
      std::function<void(int, int)> search = [&](int f, int w) {
        if (f == n) {
          count += (w == x.weight);
          return;
        }
        for (int v : s.graph().variables_of(f)) {
          if (used[v]) continue;
          used[v] = 1;
          search(f + 1, w + s.order(f, v));
          used[v] = 0;
        }
      };
      search(0, 0);
      BOOST_TEST(count == x.optimal_matchings);
    }
  }
}

BOOST_AUTO_TEST_CASE(non_square_clutch) {
  // The non-square clutch (engaged, without e4); c = (0, 0, 1), d = (1, 1, 0, 0), optimal H weight 1,
  // DM of F_Σ over the leading variables: everything under-determined.
  Dense s{{1, -1, 0, -1}, {-1, 1, -1, 0}, {0, 0, -1, -1}};
  SignatureMatrix sigma = to_sigma(s);
  SigmaResult r = sigma_method(sigma);
  BOOST_REQUIRE(r.succeeded());
  BOOST_TEST(!r.square);
  require_postconditions(sigma, r);
  BOOST_TEST((r.equation_offsets() == std::vector<int>{0, 0, 1}));
  BOOST_TEST((r.variable_offsets() == std::vector<int>{1, 1, 0, 0}));
  BOOST_TEST(r.optimal_weight == 1);
  BOOST_TEST(brute_force_h_weight(s) == 1);
  BOOST_TEST((r.jacobian_dm.under_equations == std::vector<int>{0, 1, 2}));
  BOOST_TEST((r.jacobian_dm.under_variables == std::vector<int>{0, 1, 2, 3}));
  BOOST_TEST(r.jacobian_dm.well_equations.empty());
  BOOST_TEST(r.jacobian_dm.over_equations.empty());
  // The non-square path on the square clutch reproduces the square result (Lemma 17): both
  // optimal H of the engaged clutch give the same offsets through canonical_offsets.
  Offsets h1 = canonical_offsets(sigma, std::vector<std::vector<int>>{{0, 2}, {3}, {1}});
  Offsets h2 = canonical_offsets(sigma, std::vector<std::vector<int>>{{2}, {1, 3}, {0}});
  BOOST_TEST((h1.equation_offsets == std::vector<int>{0, 0, 1}));
  BOOST_TEST((h2.equation_offsets == std::vector<int>{0, 0, 1}));
  BOOST_TEST((h1.variable_offsets == h2.variable_offsets));
  SignatureMatrix engaged =
      to_sigma({{1, -1, 0, -1}, {-1, 1, -1, 0}, {0, 0, -1, -1}, {-1, -1, 0, 0}});
  Offsets via_h = canonical_offsets(engaged, std::vector<std::vector<int>>{{2}, {1}, {0}, {3}});
  BOOST_TEST((via_h.equation_offsets == std::vector<int>{0, 0, 1, 0}));
  BOOST_TEST((via_h.equation_offsets == sigma_method(engaged).equation_offsets()));
}

BOOST_AUTO_TEST_CASE(non_optimal_matching_diverges) {
  // A derived case: σ = [[1, 0], [0, 0]]; {f1-y, f2-x} is not optimal and the iteration diverges.
  SignatureMatrix sigma = to_sigma({{1, 0}, {0, 0}});
  Matching bad = Matching::empty(2, 2);
  bad.variable_of_equation = {1, 0};
  bad.equation_of_variable = {1, 0};
  BOOST_CHECK_THROW(canonical_offsets(sigma, bad), OffsetIterationDiverged);
  SigmaResult r = sigma_method(sigma);
  BOOST_TEST((r.equation_offsets() == std::vector<int>{0, 0}));
  BOOST_TEST((r.variable_offsets() == std::vector<int>{1, 0}));
}

BOOST_AUTO_TEST_CASE(structurally_singular_is_diagnosed) {
  Model model = load("singular.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& m = a.modes.at(0);
  BOOST_TEST(!m.result.succeeded());
  BOOST_TEST(!a.well_posed());
  auto e = [&](int i) { return model.equations[m.equations[i]].name; };
  auto v = [&](int j) { return model.variables[m.variables[j]].name; };
  BOOST_TEST((names(m.result.diagnostics.over_equations, e) == NameSet{"e2", "e3"}));
  BOOST_TEST((names(m.result.diagnostics.over_variables, v) == NameSet{"y"}));
  BOOST_TEST((names(m.result.diagnostics.under_variables, v) == NameSet{"x"}));
  // More equations than variables: the non-square path reports over-determination too.
  SigmaResult over = sigma_method(to_sigma({{0}, {1}}));
  BOOST_TEST(!over.succeeded());
  BOOST_TEST(over.diagnostics.over_equations.size() == 2u);
  // Non-square with a variable in no equation.
  SigmaResult nowhere = sigma_method(to_sigma({{1, -1}}));
  BOOST_TEST((nowhere.status == SigmaStatus::variable_occurs_nowhere));
}

BOOST_AUTO_TEST_CASE(pantelides_fixtures) {
  // Theorem 21 fixtures: e3 -> e3' in the engaged clutch gives c = 0, d unchanged; f3 -> f3'
  // in the pendulum gives c_f3' = 1.
  SigmaResult clutch =
      sigma_method(to_sigma({{1, -1, 0, -1}, {-1, 1, -1, 0}, {1, 1, -1, -1}, {-1, -1, 0, 0}}));
  BOOST_TEST((clutch.equation_offsets() == std::vector<int>{0, 0, 0, 0}));
  BOOST_TEST((clutch.variable_offsets() == std::vector<int>{1, 1, 0, 0}));
  SigmaResult pendulum = sigma_method(to_sigma({{2, -1, 0}, {-1, 2, 0}, {1, 1, -1}}));
  BOOST_TEST((pendulum.equation_offsets() == std::vector<int>{0, 0, 1}));
  BOOST_TEST((pendulum.variable_offsets() == std::vector<int>{2, 2, 0}));
}

BOOST_AUTO_TEST_SUITE_END()
