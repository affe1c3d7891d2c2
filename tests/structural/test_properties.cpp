// Property tests on random small instances against brute force (post-conditions and determinism):
// smallest dual optimum, Lemma 16 (scaling), Lemma 18, Lemma 20, Theorem 21 (Pantelides),
// Lemma 5 / Corollary 2, non-square optimum, and invariance under permutations.

#include <boost/test/unit_test.hpp>

#include "esdirk/linear_solver.hpp"
#include "esdirk/matrix.hpp"
#include "structural_test_support.hpp"

using namespace structural_test;

namespace {

constexpr int instances = 150;

Dense permuted(const Dense& s, const std::vector<int>& rows, const std::vector<int>& cols) {
  Dense out(s.size(), std::vector<int>(s[0].size(), -1));
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t j = 0; j < s[0].size(); ++j) out[i][j] = s[rows[i]][cols[j]];
  }
  return out;
}

// Pantelides by brute force: differentiate a smallest SS subset (an MSS) until none is left.
std::vector<int> pantelides_counts(Dense s, bool& d_unchanged_each_step) {
  const int m = int(s.size());
  std::vector<int> counts(m, 0);
  SigmaResult start = sigma_method(to_sigma(s));
  d_unchanged_each_step = true;
  for (int guard = 0; guard < 100; ++guard) {
    auto mss = mss_subsets(s);
    if (mss.empty()) return counts;
    unsigned pick = *std::min_element(mss.begin(), mss.end(), [](unsigned a, unsigned b) {
      return __builtin_popcount(a) < __builtin_popcount(b) ||
             (__builtin_popcount(a) == __builtin_popcount(b) && a < b);
    });
    for (int f = 0; f < m; ++f) {
      if (!(pick >> f & 1u)) continue;
      ++counts[f];
      for (int& x : s[f]) {
        if (x >= 0) ++x;
      }
    }
    SigmaResult after = sigma_method(to_sigma(s));
    d_unchanged_each_step =
        d_unchanged_each_step && after.variable_offsets() == start.variable_offsets();
  }
  BOOST_ERROR("Pantelides did not terminate");
  return counts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_CASE(offsets_are_the_smallest_dual_optimum) {
  std::mt19937 rng(1);
  for (int t = 0; t < instances; ++t) {
    int n = 1 + t % 4;
    Dense s = random_square_sigma(rng, n, 3, 0.4);
    SignatureMatrix sigma = to_sigma(s);
    SigmaResult r = sigma_method(sigma);
    BOOST_REQUIRE(r.succeeded());
    BOOST_TEST(check_sigma_postconditions(sigma, r).empty());
    int w = brute_force_assignment(s).first;
    BOOST_TEST(r.optimal_weight == w);
    auto optima = brute_force_dual_optima(s, w, 3 * n + 1);
    BOOST_REQUIRE(!optima.empty());
    bool ours_found = false;
    for (const auto& [c, d] : optima) {
      ours_found = ours_found || (c == r.equation_offsets() && d == r.variable_offsets());
      for (int f = 0; f < n; ++f) BOOST_TEST(r.equation_offsets()[f] <= c[f]);
      for (int x = 0; x < n; ++x) BOOST_TEST(r.variable_offsets()[x] <= d[x]);
    }
    BOOST_TEST(ours_found);
  }
}

BOOST_AUTO_TEST_CASE(non_square_offsets_against_brute_force) {
  std::mt19937 rng(2);
  int checked = 0;
  for (int t = 0; t < instances; ++t) {
    int m = 1 + t % 3, n = m + 1 + t % 2;
    Dense s(m, std::vector<int>(n, -1));
    std::uniform_int_distribution<int> order(0, 3);
    std::bernoulli_distribution edge(0.5);
    for (auto& row : s) {
      for (int& x : row) x = edge(rng) ? order(rng) : -1;
    }
    SignatureMatrix sigma = to_sigma(s);
    SigmaResult r = sigma_method(sigma);
    int w = brute_force_h_weight(s);
    BOOST_TEST(r.succeeded() == (w >= 0));  // feasible exactly when the LP is
    if (!r.succeeded()) continue;
    ++checked;
    BOOST_TEST(check_sigma_postconditions(sigma, r).empty());
    BOOST_TEST(r.optimal_weight == w);
    BOOST_TEST(r.jacobian_dm.over_equations.empty());  // Lemma 17: β_O empty
    auto optima = brute_force_dual_optima(s, w, 3 * n + 1);
    BOOST_REQUIRE(!optima.empty());
    for (const auto& [c, d] : optima) {
      for (int f = 0; f < m; ++f) BOOST_TEST(r.equation_offsets()[f] <= c[f]);
      for (int x = 0; x < n; ++x) BOOST_TEST(r.variable_offsets()[x] <= d[x]);
    }
  }
  BOOST_TEST(checked > 20);
}

BOOST_AUTO_TEST_CASE(lemma16_scaling) {
  std::mt19937 rng(3);
  for (int t = 0; t < instances; ++t) {
    Dense s = random_square_sigma(rng, 1 + t % 6, 3, 0.4);
    SignatureMatrix sigma = to_sigma(s);
    SigmaResult r = sigma_method(sigma);
    int factor = 2 + t % 3;
    SigmaResult scaled = sigma_method(sigma.scaled(factor));
    for (std::size_t f = 0; f < s.size(); ++f) {
      BOOST_TEST(scaled.equation_offsets()[f] == factor * r.equation_offsets()[f]);
      BOOST_TEST(scaled.variable_offsets()[f] == factor * r.variable_offsets()[f]);
    }
  }
}

BOOST_AUTO_TEST_CASE(lemma18_and_lemma20) {
  std::mt19937 rng(4);
  int with_mss = 0;
  for (int t = 0; t < instances; ++t) {
    int n = 1 + t % 5;
    Dense s = random_square_sigma(rng, n, 2, 0.4);
    SigmaResult r = sigma_method(to_sigma(s));
    bool all_zero = std::all_of(r.equation_offsets().begin(), r.equation_offsets().end(),
                                [](int c) { return c == 0; });
    // (a) L has an equation-complete matching (checked by the independent permutation search
    // on L), (b) no SS subset, (c) c = 0 — all equivalent.
    auto L = leading_pattern(s);
    Dense l_only(n, std::vector<int>(n, -1));
    for (int f = 0; f < n; ++f) {
      for (int x : L[f]) l_only[f][x] = 0;
    }
    bool l_complete = brute_force_assignment(l_only).first >= 0;
    bool no_ss = ss_subsets(s).empty();
    BOOST_TEST(l_complete == no_ss);
    BOOST_TEST(no_ss == all_zero);
    // Lemma 18.1 and Lemma 20: an MSS with k equations has |L(E)| = k - 1 and all c > 0.
    for (unsigned mss : mss_subsets(s)) {
      ++with_mss;
      std::set<int> vars;
      for (int f = 0; f < n; ++f) {
        if (mss >> f & 1u) {
          vars.insert(L[f].begin(), L[f].end());
          BOOST_TEST(r.equation_offsets()[f] > 0);
        }
      }
      BOOST_TEST(int(vars.size()) == __builtin_popcount(mss) - 1);
    }
  }
  BOOST_TEST(with_mss > 20);
}

BOOST_AUTO_TEST_CASE(theorem21_pantelides_equivalence) {
  std::mt19937 rng(5);
  for (int t = 0; t < instances; ++t) {
    Dense s = random_square_sigma(rng, 1 + t % 5, 2, 0.4);
    SigmaResult r = sigma_method(to_sigma(s));
    bool d_unchanged = false;
    std::vector<int> counts = pantelides_counts(s, d_unchanged);
    BOOST_TEST(counts == r.equation_offsets());
    BOOST_TEST(d_unchanged);
  }
}

BOOST_AUTO_TEST_CASE(lemma5_structural_vs_numerical_singularity) {
  // Random values on a structurally nonsingular pattern give a nonsingular matrix; on a
  // structurally singular pattern the matrix is always singular.
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  std::bernoulli_distribution sign(0.5);
  int singular_patterns = 0;
  for (int t = 0; t < instances; ++t) {
    int n = 2 + t % 5;
    Dense s(n, std::vector<int>(n, -1));
    std::bernoulli_distribution edge(0.35);
    for (auto& row : s) {
      for (int& x : row) x = edge(rng) ? 0 : -1;
    }
    SignatureMatrix sigma = to_sigma(s);
    bool structurally_regular = structural_rank(sigma.graph()) == n;
    esdirk::DenseMatrix A(n, n);
    double largest = 0.0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (s[i][j] >= 0) A(i, j) = value(rng) * (sign(rng) ? 1.0 : -1.0);
        largest = std::max(largest, std::abs(A(i, j)));
      }
    }
    std::vector<int> pivots(n);
    int info = esdirk::lu_factor(A.ref(), pivots.data());
    double smallest = 1e300;
    for (int k = 0; k < n; ++k) smallest = std::min(smallest, std::abs(A(k, k)));
    bool numerically_singular = info != 0 || largest == 0.0 || smallest <= 1e-12 * largest;
    BOOST_TEST(numerically_singular == !structurally_regular);
    singular_patterns += !structurally_regular;
  }
  BOOST_TEST(singular_patterns > 10);
}

BOOST_AUTO_TEST_CASE(permutation_invariance_random) {
  std::mt19937 rng(8);
  for (int t = 0; t < instances; ++t) {
    int n = 2 + t % 6;
    Dense s = random_square_sigma(rng, n, 3, 0.3);
    if (t % 3 == 0) s[0].assign(n, -1), s[0][0] = 1;  // sometimes structurally singular
    SigmaResult r = sigma_method(to_sigma(s));
    std::vector<int> rows(n), cols(n);
    std::iota(rows.begin(), rows.end(), 0);
    std::iota(cols.begin(), cols.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    std::shuffle(cols.begin(), cols.end(), rng);
    SigmaResult p = sigma_method(to_sigma(permuted(s, rows, cols)));
    BOOST_REQUIRE(p.succeeded() == r.succeeded());
    auto e = [&](int i) { return std::to_string(rows[i]); };
    auto v = [&](int j) { return std::to_string(cols[j]); };
    auto e0 = [](int i) { return std::to_string(i); };
    const DmDecomposition &a = r.diagnostics, &b = p.diagnostics;
    BOOST_TEST((names(a.over_equations, e0) == names(b.over_equations, e)));
    BOOST_TEST((names(a.over_variables, e0) == names(b.over_variables, v)));
    BOOST_TEST((names(a.under_equations, e0) == names(b.under_equations, e)));
    BOOST_TEST((names(a.under_variables, e0) == names(b.under_variables, v)));
    BOOST_TEST((names(a.well_equations, e0) == names(b.well_equations, e)));
    if (!r.succeeded()) continue;
    for (int i = 0; i < n; ++i) {
      BOOST_TEST(p.equation_offsets()[i] == r.equation_offsets()[rows[i]]);
      BOOST_TEST(p.variable_offsets()[i] == r.variable_offsets()[cols[i]]);
    }
    BOOST_TEST((partition(r.jacobian_blocks, e0) == partition(p.jacobian_blocks, e)));
  }
}

BOOST_AUTO_TEST_CASE(permutation_invariance_of_model_files) {
  // Reverse and rotate the equations and variables of the paper's models; offsets by name, DM
  // parts and block partitions must not change, nor the mode-change conflicts.
  std::mt19937 rng(9);
  for (const char* file : {"clutch.dae", "pendulum.dae", "rldc2.dae", "singular.dae"}) {
    Model model = load(file);
    ModelAnalysis a = analyse_model(model);
    for (int trial = 0; trial < 5; ++trial) {
      Model shuffled = model;
      std::vector<int> vp(model.variables.size());
      std::iota(vp.begin(), vp.end(), 0);
      std::shuffle(vp.begin(), vp.end(), rng);
      std::vector<int> new_index(vp.size());
      for (std::size_t j = 0; j < vp.size(); ++j) {
        shuffled.variables[j] = model.variables[vp[j]];
        new_index[vp[j]] = int(j);
      }
      for (auto& e : shuffled.equations) {
        for (auto& o : e.occurrences) o.variable = new_index[o.variable];
      }
      std::shuffle(shuffled.equations.begin(), shuffled.equations.end(), rng);
      ModelAnalysis b = analyse_model(shuffled);
      BOOST_TEST_CONTEXT(file << " trial " << trial) {
        for (const auto& ma : a.modes) {
          const ModeAnalysis& mb = mode_named(b, ma.name);
          BOOST_REQUIRE(ma.result.succeeded() == mb.result.succeeded());
          auto ea = [&](int i) { return model.equations[ma.equations[i]].name; };
          auto eb = [&](int i) { return shuffled.equations[mb.equations[i]].name; };
          auto va = [&](int j) { return model.variables[ma.variables[j]].name; };
          auto vb = [&](int j) { return shuffled.variables[mb.variables[j]].name; };
          BOOST_TEST((names(ma.result.diagnostics.over_equations, ea) ==
                      names(mb.result.diagnostics.over_equations, eb)));
          BOOST_TEST((names(ma.result.diagnostics.under_variables, va) ==
                      names(mb.result.diagnostics.under_variables, vb)));
          if (!ma.result.succeeded()) continue;
          BOOST_TEST((equation_offsets(model, ma) == equation_offsets(shuffled, mb)));
          BOOST_TEST((variable_offsets(model, ma) == variable_offsets(shuffled, mb)));
          BOOST_TEST((partition(ma.result.jacobian_blocks, ea) ==
                      partition(mb.result.jacobian_blocks, eb)));
        }
        BOOST_REQUIRE(a.mode_changes.size() == b.mode_changes.size());
        for (std::size_t k = 0; k < a.mode_changes.size(); ++k) {
          const auto& ca = a.mode_changes[k];
          const ModeChangeAnalysis* cb = nullptr;
          for (const auto& c : b.mode_changes) {
            if (c.name == ca.name) cb = &c;
          }
          BOOST_REQUIRE(cb != nullptr);
          auto na = [&](int i) { return unfolded_name(model, ca.equations[i]); };
          auto nb = [&](int i) { return unfolded_name(shuffled, cb->equations[i]); };
          BOOST_TEST((names(ca.conflicts, na) == names(cb->conflicts, nb)));
          BOOST_TEST((names(ca.restart_equations, na) == names(cb->restart_equations, nb)));
          BOOST_TEST(ca.well_posed == cb->well_posed);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
