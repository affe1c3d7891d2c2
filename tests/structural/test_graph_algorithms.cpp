// Matching, Dulmage–Mendelsohn, block triangular form and the assignment problem
// (Benveniste et al. 2021, §3.2, Definition 7, Lemmas 6 and 8).

#include <boost/test/unit_test.hpp>

#include "assignment.hpp"  // internal step of the Σ-method (structural/src)
#include "structural_test_support.hpp"

using namespace structural_test;

namespace {

// System (20) of the clutch's released -> engaged change, written from the paper's incidence
// list (§2): the previous-instant equations carry a leading "p.", unknowns "p.tau1" = •τ1
// and "omega1+" = ω1^•.
struct NamedGraph {
  std::vector<std::string> equations, variables;
  std::vector<std::pair<std::string, std::string>> edges;

  BipartiteGraph graph(const std::vector<int>& eq_order, const std::vector<int>& var_order) const {
    std::map<std::string, int> row, col;
    for (std::size_t i = 0; i < eq_order.size(); ++i) row[equations[eq_order[i]]] = int(i);
    for (std::size_t j = 0; j < var_order.size(); ++j) col[variables[var_order[j]]] = int(j);
    std::vector<Edge> e;
    for (const auto& [f, x] : edges) e.push_back({row.at(f), col.at(x)});
    return BipartiteGraph(int(equations.size()), int(variables.size()), e);
  }
};

NamedGraph clutch_system_20() {
  NamedGraph g;
  g.equations = {"p.e1", "p.e2", "p.e5", "p.e6", "e1", "e2", "e3", "e3+", "e4"};
  g.variables = {"p.tau1", "p.tau2", "omega1", "omega2", "tau1", "tau2", "omega1+", "omega2+"};
  g.edges = {{"p.e1", "omega1"}, {"p.e1", "p.tau1"}, {"p.e2", "omega2"}, {"p.e2", "p.tau2"},
             {"p.e5", "p.tau1"}, {"p.e6", "p.tau2"}, {"e1", "omega1+"},  {"e1", "omega1"},
             {"e1", "tau1"},     {"e2", "omega2+"},  {"e2", "omega2"},   {"e2", "tau2"},
             {"e3", "omega1"},   {"e3", "omega2"},   {"e3+", "omega1+"}, {"e3+", "omega2+"},
             {"e4", "tau1"},     {"e4", "tau2"}};
  return g;
}

std::vector<int> identity(std::size_t n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// A random maximal starting matching, so Hopcroft–Karp ends in different maximum matchings.
Matching random_maximum_matching(const BipartiteGraph& g, std::mt19937& rng) {
  Matching start = Matching::empty(g.equation_count(), g.variable_count());
  std::vector<int> order = identity(g.equation_count());
  std::shuffle(order.begin(), order.end(), rng);
  for (int f : order) {
    auto vars = g.variables_of(f);
    std::vector<int> shuffled(vars.begin(), vars.end());
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (int x : shuffled) {
      if (start.equation_of_variable[x] == Matching::unmatched) {
        start.variable_of_equation[f] = x;
        start.equation_of_variable[x] = f;
        break;
      }
    }
  }
  return maximum_matching(g, start);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(graph_algorithms)

BOOST_AUTO_TEST_CASE(clutch_system_20_rank_and_dm) {
  NamedGraph ng = clutch_system_20();
  BipartiteGraph g = ng.graph(identity(9), identity(8));
  BOOST_TEST(structural_rank(g) == 8);  // rank 8 of 9
  DmDecomposition dm = dulmage_mendelsohn(g);
  auto e = [&](int i) { return ng.equations[i]; };
  auto v = [&](int j) { return ng.variables[j]; };
  BOOST_TEST((names(dm.over_equations, e) == NameSet{"p.e1", "p.e2", "p.e5", "p.e6", "e3"}));
  BOOST_TEST((names(dm.over_variables, v) == NameSet{"omega1", "omega2", "p.tau1", "p.tau2"}));
  BOOST_TEST((names(dm.well_equations, e) == NameSet{"e1", "e2", "e3+", "e4"}));
  BOOST_TEST((names(dm.well_variables, v) == NameSet{"omega1+", "omega2+", "tau1", "tau2"}));
  BOOST_TEST(dm.under_equations.empty());
  BOOST_TEST(dm.under_variables.empty());
  BOOST_TEST(!dm.structurally_nonsingular());
  // Refined DM: β_E is one irreducible 4x4 block.
  BipartiteGraph well = g.subgraph(dm.well_equations, dm.well_variables);
  BOOST_TEST(block_triangular_form(well).blocks.size() == 1u);
}

BOOST_AUTO_TEST_CASE(dm_is_independent_of_matching_and_order) {
  // Lemma 8.1 and R5/R15: different maximum matchings and permuted inputs give the same parts.
  NamedGraph ng = clutch_system_20();
  std::mt19937 rng(20240520);
  std::set<std::vector<int>> matchings_seen;
  std::set<std::array<NameSet, 6>> results;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int> ep = identity(9), vp = identity(8);
    std::shuffle(ep.begin(), ep.end(), rng);
    std::shuffle(vp.begin(), vp.end(), rng);
    BipartiteGraph g = ng.graph(ep, vp);
    Matching m = random_maximum_matching(g, rng);
    BOOST_TEST(m.size() == 8);
    std::vector<int> by_name(9, -2);  // matched variable per original equation
    for (int i = 0; i < 9; ++i) {
      int x = m.variable_of_equation[i];
      by_name[ep[i]] = x < 0 ? -1 : vp[x];
    }
    matchings_seen.insert(by_name);
    DmDecomposition dm = dulmage_mendelsohn(g, m);
    auto e = [&](int i) { return ng.equations[ep[i]]; };
    auto v = [&](int j) { return ng.variables[vp[j]]; };
    results.insert({names(dm.over_equations, e), names(dm.over_variables, v),
                    names(dm.under_equations, e), names(dm.under_variables, v),
                    names(dm.well_equations, e), names(dm.well_variables, v)});
  }
  BOOST_TEST(matchings_seen.size() >= 3u);  // the unmatched equation varies with the matching
  BOOST_TEST(results.size() == 1u);
}

BOOST_AUTO_TEST_CASE(flag_a_x_minus_y_is_all_under_determined) {
  // A derived case (ambiguity A, doc/structural-theory.md §9): x - y = 0 with both as
  // unknowns: β_U = {e, x, y}.
  std::vector<Edge> edges{{0, 0}, {0, 1}};
  DmDecomposition dm = dulmage_mendelsohn(BipartiteGraph(1, 2, edges));
  BOOST_TEST((dm.under_equations == std::vector<int>{0}));
  BOOST_TEST((dm.under_variables == std::vector<int>{0, 1}));
  BOOST_TEST(dm.well_equations.empty());
  BOOST_TEST(dm.over_equations.empty());
}

BOOST_AUTO_TEST_CASE(dm_rejects_a_non_maximum_matching) {
  std::vector<Edge> edges{{0, 0}, {1, 0}, {1, 1}};
  BipartiteGraph g(2, 2, edges);
  Matching m = Matching::empty(2, 2);
  m.variable_of_equation[1] = 0;
  m.equation_of_variable[0] = 1;
  BOOST_CHECK_THROW(dulmage_mendelsohn(g, m), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(lemma6_blocks_independent_of_perfect_matching) {
  // Our own Figure-2 stand-in (the paper's figure is not available here): blocks {e1,e2}x{x1,x2},
  // {e3}x{x3}, {e4,e5}x{x4,x5}, with e3 using x1 and e4 using x3; 4 perfect matchings.
  std::vector<Edge> edges{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 2}, {2, 0},
                          {3, 3}, {3, 4}, {3, 2}, {4, 3}, {4, 4}};
  BipartiteGraph g(5, 5, edges);
  std::vector<int> p = identity(5);
  int perfect = 0;
  std::set<std::vector<std::vector<int>>> partitions;
  std::set<std::vector<std::pair<int, int>>> orders;
  do {
    bool ok = true;
    for (int i = 0; i < 5 && ok; ++i) ok = g.edge_index(i, p[i]) >= 0;
    if (!ok) continue;
    ++perfect;
    Matching m = Matching::empty(5, 5);
    for (int i = 0; i < 5; ++i) {
      m.variable_of_equation[i] = p[i];
      m.equation_of_variable[p[i]] = i;
    }
    BlockTriangularForm btf = block_triangular_form(g, m);
    std::vector<std::vector<int>> blocks;
    for (const auto& b : btf.blocks) blocks.push_back(b.equations);
    partitions.insert(blocks);
    orders.insert(btf.dependencies);
  } while (std::next_permutation(p.begin(), p.end()));
  BOOST_TEST(perfect == 4);
  BOOST_TEST(partitions.size() == 1u);
  BOOST_TEST(orders.size() == 1u);
  auto blocks = *partitions.begin();
  BOOST_TEST((blocks == std::vector<std::vector<int>>{{0, 1}, {2}, {3, 4}}));
  BOOST_TEST((*orders.begin() == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
}

BOOST_AUTO_TEST_CASE(btf_rejects_bad_input) {
  std::vector<Edge> edges{{0, 0}, {1, 0}};
  BipartiteGraph singular(2, 2, edges);
  BOOST_CHECK_THROW(block_triangular_form(singular), std::invalid_argument);
  BOOST_CHECK_THROW(BipartiteGraph(1, 1, std::vector<Edge>{{0, 3}}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(assignment_matches_brute_force) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + trial % 6;
    Dense s = random_square_sigma(rng, n, 4, 0.35);
    SignatureMatrix sigma = to_sigma(s);
    std::vector<std::int64_t> w(sigma.orders().begin(), sigma.orders().end());
    Assignment a = maximum_weight_matching(sigma.graph(), w);
    BOOST_REQUIRE(a.complete);
    BOOST_TEST(a.weight == brute_force_assignment(s).first);
    BOOST_TEST(is_valid_matching(sigma.graph(), a.matching));
  }
  // Non-edges are forbidden: a graph without a perfect matching is reported infeasible.
  std::vector<Edge> edges{{0, 0}, {1, 0}};
  std::vector<std::int64_t> w{5, 1};
  BOOST_TEST(!maximum_weight_matching(BipartiteGraph(2, 2, edges), w).complete);
}

BOOST_AUTO_TEST_SUITE_END()
