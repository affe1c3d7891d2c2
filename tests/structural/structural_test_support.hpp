#pragma once
// Helpers shared by the structural tests: name-based views of results (so permuted inputs can
// be compared) and brute-force references that do not use the module's algorithms.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "esdirk/structural/structural.hpp"
#include "canonical_offsets.hpp"  // internal (structural/src): the Σ-method's offset iteration
#include "model_builder.hpp"  // internal (structural/src): models built in C++

// Boost.Test cannot print these; comparisons still report which element differs.
using IntPair = std::pair<int, int>;
BOOST_TEST_DONT_PRINT_LOG_VALUE(IntPair)
BOOST_TEST_DONT_PRINT_LOG_VALUE(esdirk::structural::DifferentiatedEquation)
BOOST_TEST_DONT_PRINT_LOG_VALUE(esdirk::structural::DerivativeOfVariable)

namespace structural_test {

using namespace esdirk::structural;

inline std::string models_dir() { return ESDIRK_STRUCTURAL_MODELS; }

// Appended in place: GCC 12 at -O3 warns falsely (-Warray-bounds) about `dir + "/" + file`.
inline Model load(const std::string& file) {
  std::string path = models_dir();
  path.append("/").append(file);
  return read_model_file(path);
}

/// The analysis of the mode with the given name.
inline const ModeAnalysis& mode_named(const ModelAnalysis& a, const std::string& name) {
  for (const auto& m : a.modes) {
    if (m.name == name) return m;
  }
  throw std::runtime_error("no mode " + name);
}

/// Equation offsets by equation name.
inline std::map<std::string, int> equation_offsets(const Model& model, const ModeAnalysis& m) {
  std::map<std::string, int> out;
  for (std::size_t i = 0; i < m.equations.size(); ++i) {
    out[model.equations[m.equations[i]].name] = m.result.equation_offsets()[i];
  }
  return out;
}

/// Variable offsets by variable name.
inline std::map<std::string, int> variable_offsets(const Model& model, const ModeAnalysis& m) {
  std::map<std::string, int> out;
  for (std::size_t j = 0; j < m.variables.size(); ++j) {
    out[model.variables[m.variables[j]].name] = m.result.variable_offsets()[j];
  }
  return out;
}

using NameSet = std::set<std::string>;

inline NameSet names(const std::vector<int>& indices, const std::function<std::string(int)>& f) {
  NameSet s;
  for (int i : indices) s.insert(f(i));
  return s;
}

/// A block partition as a set of equation-name sets (order-free, for invariance checks).
inline std::set<NameSet> partition(const BlockTriangularForm& btf,
                                   const std::function<std::string(int)>& f) {
  std::set<NameSet> p;
  for (const Block& b : btf.blocks) p.insert(names(b.equations, f));
  return p;
}

// ---------------------------------------------------------------- brute force references

/// A dense n x m signature matrix: -1 means "no entry".
using Dense = std::vector<std::vector<int>>;

inline SignatureMatrix to_sigma(const Dense& s) {
  std::vector<SignatureEntry> entries;
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t j = 0; j < s[i].size(); ++j) {
      if (s[i][j] >= 0) entries.push_back({int(i), int(j), s[i][j]});
    }
  }
  return SignatureMatrix(int(s.size()), s.empty() ? 0 : int(s[0].size()), entries);
}

/// Maximum weight over all perfect matchings and how many reach it (square, by permutations);
/// weight -1 when there is no perfect matching.
inline std::pair<int, int> brute_force_assignment(const Dense& s) {
  const int n = int(s.size());
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  int best = -1, count = 0;
  do {
    int w = 0;
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) {
      ok = s[i][p[i]] >= 0;
      w += ok ? s[i][p[i]] : 0;
    }
    if (!ok) continue;
    if (w > best) {
      best = w;
      count = 1;
    } else if (w == best) {
      ++count;
    }
  } while (std::next_permutation(p.begin(), p.end()));
  return {best, count};
}

/// Optimum of the primal LP (57) for m <= n: every variable on exactly one of its equations,
/// every equation with at least one variable. Enumerates all maps variable -> equation.
inline int brute_force_h_weight(const Dense& s) {
  const int m = int(s.size()), n = int(s[0].size());
  std::vector<int> choice(n, 0);
  int best = -1;
  for (;;) {
    bool ok = true;
    int w = 0;
    std::vector<int> covered(m, 0);
    for (int x = 0; x < n && ok; ++x) {
      ok = s[choice[x]][x] >= 0;
      if (ok) {
        w += s[choice[x]][x];
        covered[choice[x]] = 1;
      }
    }
    if (ok && std::all_of(covered.begin(), covered.end(), [](int c) { return c; })) {
      best = std::max(best, w);
    }
    int k = 0;
    while (k < n && ++choice[k] == m) choice[k++] = 0;
    if (k == n) break;
  }
  return best;
}

/// All dual-optimal integer offsets with c in [0, bound]^m and the smallest d for each c
/// (d_x = max_f σ_fx + c_f, which is optimal for that c), for the LP optimum `weight`.
inline std::vector<std::pair<std::vector<int>, std::vector<int>>> brute_force_dual_optima(
    const Dense& s, int weight, int bound) {
  const int m = int(s.size()), n = int(s[0].size());
  std::vector<std::pair<std::vector<int>, std::vector<int>>> optima;
  std::vector<int> c(m, 0);
  for (;;) {
    std::vector<int> d(n, 0);
    for (int x = 0; x < n; ++x) {
      for (int f = 0; f < m; ++f) {
        if (s[f][x] >= 0) d[x] = std::max(d[x], s[f][x] + c[f]);
      }
    }
    int objective = std::accumulate(d.begin(), d.end(), 0) - std::accumulate(c.begin(), c.end(), 0);
    if (objective == weight) optima.push_back({c, d});
    int k = 0;
    while (k < m && ++c[k] > bound) c[k++] = 0;
    if (k == m) break;
  }
  return optima;
}

/// Leading-derivative pattern L = {(f, x): σ_fx = d̂_x} (Benveniste et al. 2021, §4.2.2).
inline std::vector<std::vector<int>> leading_pattern(const Dense& s) {
  const int m = int(s.size()), n = int(s[0].size());
  std::vector<int> top(n, -1);
  for (int f = 0; f < m; ++f) {
    for (int x = 0; x < n; ++x) top[x] = std::max(top[x], s[f][x]);
  }
  std::vector<std::vector<int>> L(m);
  for (int f = 0; f < m; ++f) {
    for (int x = 0; x < n; ++x) {
      if (s[f][x] >= 0 && s[f][x] == top[x]) L[f].push_back(x);
    }
  }
  return L;
}

/// Equation subsets (bit masks) that are structurally singular: |L(E)| < |E|.
inline std::vector<unsigned> ss_subsets(const Dense& s) {
  auto L = leading_pattern(s);
  const int m = int(s.size());
  std::vector<unsigned> out;
  for (unsigned mask = 1; mask < (1u << m); ++mask) {
    std::set<int> vars;
    for (int f = 0; f < m; ++f) {
      if (mask >> f & 1u) vars.insert(L[f].begin(), L[f].end());
    }
    if (int(vars.size()) < __builtin_popcount(mask)) out.push_back(mask);
  }
  return out;
}

/// Minimally structurally singular subsets (no proper SS subset).
inline std::vector<unsigned> mss_subsets(const Dense& s) {
  auto ss = ss_subsets(s);
  std::vector<unsigned> out;
  for (unsigned a : ss) {
    bool minimal = true;
    for (unsigned b : ss) minimal = minimal && !(b != a && (b & a) == b);
    if (minimal) out.push_back(a);
  }
  return out;
}

/// A random square Σ with a perfect matching (a hidden permutation plus random extra entries).
inline Dense random_square_sigma(std::mt19937& rng, int n, int max_order, double density) {
  std::uniform_int_distribution<int> order(0, max_order);
  std::bernoulli_distribution extra(density);
  Dense s(n, std::vector<int>(n, -1));
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  for (int i = 0; i < n; ++i) s[i][p[i]] = order(rng);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (s[i][j] < 0 && extra(rng)) s[i][j] = order(rng);
    }
  }
  return s;
}

}  // namespace structural_test
