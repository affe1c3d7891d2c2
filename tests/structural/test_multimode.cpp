// Mode changes (Benveniste et al. 2021, §2.3) and existential quantifiers (§3.4, Algorithm 1).

#include <boost/test/unit_test.hpp>

#include "structural_test_support.hpp"

using namespace structural_test;

BOOST_AUTO_TEST_SUITE(multimode)

BOOST_AUTO_TEST_CASE(clutch_released_to_engaged) {
  Model model = load("clutch.dae");
  ModelAnalysis a = analyse_model(model);
  BOOST_TEST(a.modes.size() == 2u);
  BOOST_TEST(a.mode_changes.size() == 2u);
  const ModeChangeAnalysis* mc = nullptr;
  for (const auto& c : a.mode_changes) {
    if (c.name == "gamma=false -> gamma=true") mc = &c;
  }
  BOOST_REQUIRE(mc != nullptr);
  BOOST_REQUIRE(mc->analysed);
  auto e = [&](int i) { return unfolded_name(model, mc->equations[i]); };
  auto v = [&](int j) { return unfolded_name(model, mc->unknowns[j]); };
  // System (20): 9 equations, 8 unknowns, rank 8.
  BOOST_TEST(mc->equations.size() == 9u);
  BOOST_TEST(mc->unknowns.size() == 8u);
  BOOST_TEST(mc->structural_rank == 8);
  BOOST_TEST(mc->assumed.empty());
  BOOST_TEST((names(std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}, v) ==
              NameSet{"tau1[t-1]", "tau2[t-1]", "omega1[t]", "omega2[t]", "tau1[t]", "tau2[t]",
                      "omega1[t+1]", "omega2[t+1]"}));
  BOOST_TEST((names(mc->dm.over_equations, e) ==
              NameSet{"e1[t-1]", "e2[t-1]", "e5[t-1]", "e6[t-1]", "e3[t]"}));
  BOOST_TEST((names(mc->dm.over_variables, v) ==
              NameSet{"omega1[t]", "omega2[t]", "tau1[t-1]", "tau2[t-1]"}));
  BOOST_TEST(mc->dm.under_variables.empty());
  // The conflict is e3 (system (26)), the restart system is (32).
  BOOST_TEST((names(mc->conflicts, e) == NameSet{"e3[t]"}));
  BOOST_TEST((names(mc->restart_equations, e) == NameSet{"e1[t]", "e2[t]", "e3[t+1]", "e4[t]"}));
  BOOST_TEST((names(mc->restart_unknowns, v) ==
              NameSet{"omega1[t+1]", "omega2[t+1]", "tau1[t]", "tau2[t]"}));
  BOOST_TEST((names(mc->set_by_previous_instant, v) ==
              NameSet{"omega1[t]", "omega2[t]", "tau1[t-1]", "tau2[t-1]"}));
  BOOST_TEST(mc->restart_blocks.blocks.size() == 1u);
  BOOST_TEST(mc->well_posed);
  BOOST_TEST(a.well_posed());
}

BOOST_AUTO_TEST_CASE(discrete_time_clutch_is_the_same) {
  // The dAE version (7) has the same Σ (shift orders) and the same mode-change result.
  Model model = load("clutch.dae");
  model.time = TimeDomain::discrete;
  ModelAnalysis a = analyse_model(model);
  const ModeChangeAnalysis& mc = a.mode_changes.at(0);
  BOOST_TEST(mc.name == "gamma=false -> gamma=true");
  auto e = [&](int i) { return unfolded_name(model, mc.equations[i]); };
  BOOST_TEST((names(mc.conflicts, e) == NameSet{"e3[t]"}));
  BOOST_TEST(mc.structural_rank == 8);
}

BOOST_AUTO_TEST_CASE(ill_posed_mode_change_is_diagnosed) {
  // A mode in which y is left free: the change into it leaves y[t] under-determined, and the
  // mode itself fails with y named.
  Model model = parse_model(
      "modes g\nvariables x y\n"
      "equation a: x' x y\n"
      "equation b if g: y\n",
      "ill.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& free_y = mode_named(a, "g=false");
  BOOST_TEST(!free_y.well_posed());  // the non-square Σ-method succeeds, the mode does not
  // One equation in x and y: both under-determined (alternating path y -> a -> x).
  BOOST_TEST((free_y.result.diagnostics.under_variables == std::vector<int>{0, 1}));
  for (const auto& mc : a.mode_changes) {
    BOOST_TEST(!mc.analysed);
    BOOST_TEST(mc.skipped_reason == "mode g=false is not structurally well posed");
  }
  BOOST_TEST(!a.well_posed());
}

BOOST_AUTO_TEST_CASE(existential_flag_a) {
  // x - y = 0, X = {x}, Y = {y}: accepted under the documented semantics, rejected literally.
  ExistentialSystem sys{{"e"},
                        {"x", "y"},
                        {VariableRole::dependent, VariableRole::free},
                        BipartiteGraph(1, 2, std::vector<Edge>{{0, 0}, {0, 1}})};
  ExistentialAnalysis given = analyse_existential(sys);
  BOOST_TEST(given.not_over_determined);
  BOOST_TEST(given.determined);
  BOOST_TEST((given.determining_equations == std::vector<int>{0}));
  BOOST_TEST(given.consistency_equations.empty());
  ExistentialAnalysis literal = analyse_existential(sys, ExistentialSemantics::literal);
  BOOST_TEST(literal.not_over_determined);
  BOOST_TEST(!literal.determined);
  BOOST_TEST((literal.full_dm.under_variables == std::vector<int>{0, 1}));
}

BOOST_AUTO_TEST_CASE(existential_rejections) {
  // W in the same block as X: e1 = x + w - y, e2 = x - w.
  ExistentialSystem shared{
      {"e1", "e2"},
      {"x", "w", "y"},
      {VariableRole::dependent, VariableRole::existential, VariableRole::free},
      BipartiteGraph(2, 3, std::vector<Edge>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}})};
  ExistentialAnalysis r1 = analyse_existential(shared);
  BOOST_TEST(r1.not_over_determined);
  BOOST_TEST(!r1.determined);
  BOOST_TEST(r1.reasons.size() == 1u);
  // A direct W -> X edge: e1 = w - y, e2 = x - w.
  ExistentialSystem edge{{"e1", "e2"},
                         {"x", "w", "y"},
                         {VariableRole::dependent, VariableRole::existential, VariableRole::free},
                         BipartiteGraph(2, 3, std::vector<Edge>{{0, 1}, {0, 2}, {1, 0}, {1, 1}})};
  BOOST_TEST(!analyse_existential(edge).determined);
  // Over-determined: x = y, x = 2y, with also x only: e3 = x.
  ExistentialSystem over{{"e1", "e2"},
                         {"x"},
                         {VariableRole::dependent},
                         BipartiteGraph(2, 1, std::vector<Edge>{{0, 0}, {1, 0}})};
  ExistentialAnalysis r3 = analyse_existential(over);
  BOOST_TEST(!r3.not_over_determined);
  BOOST_TEST(r3.determined);  // computed anyway (documented): x itself is determined
  // X left free: e = w - y with x nowhere.
  ExistentialSystem under{{"e"},
                          {"x", "w", "y"},
                          {VariableRole::dependent, VariableRole::existential, VariableRole::free},
                          BipartiteGraph(1, 3, std::vector<Edge>{{0, 1}, {0, 2}})};
  BOOST_TEST(!analyse_existential(under).determined);
}

BOOST_AUTO_TEST_CASE(existential_model_file) {
  Model model = load("existential.dae");
  ModelAnalysis a = analyse_model(model);
  const ModeAnalysis& m = a.modes.at(0);
  BOOST_REQUIRE(m.has_existential);
  auto e = [&](int i) { return m.existential_system.equation_names[i]; };
  BOOST_TEST(m.existential.not_over_determined);
  BOOST_TEST(m.existential.determined);
  BOOST_TEST((names(m.existential.determining_equations, e) == NameSet{"e1"}));
  BOOST_TEST((names(m.existential.consistency_equations, e) == NameSet{"e2", "e3"}));
  BOOST_TEST(a.well_posed());
  BOOST_TEST(a.mode_changes.empty());
}

BOOST_AUTO_TEST_SUITE_END()
