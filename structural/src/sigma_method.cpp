#include "esdirk/structural/sigma_method.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "assignment.hpp"
#include "canonical_offsets.hpp"

namespace esdirk::structural {

namespace {

// Optimal H for the non-square problem (Benveniste et al. 2021 §4.2, reduced to an assignment): an
// equation-complete matching of maximum weight under σ_fx - d̂_x, plus every unmatched variable on
// the first equation where it attains its highest order d̂_x.
bool optimal_h_non_square(const SignatureMatrix& sigma, SigmaResult& out) {
  const BipartiteGraph& g = sigma.graph();
  std::vector<std::int64_t> weights(g.edge_count());
  for (int f = 0; f < g.equation_count(); ++f) {
    int k = g.first_edge_of(f);
    for (int x : g.variables_of(f)) {
      weights[k] = static_cast<std::int64_t>(sigma.orders()[k]) - sigma.highest_order(x);
      ++k;
    }
  }
  Assignment a = maximum_weight_matching(g, weights);
  if (!a.complete) return false;
  out.matching = a.matching;
  out.optimal_solution.assign(g.equation_count(), {});
  for (int f = 0; f < g.equation_count(); ++f) {
    out.optimal_solution[f].push_back(a.matching.variable_of_equation[f]);
  }
  for (int x = 0; x < g.variable_count(); ++x) {
    if (a.matching.equation_of_variable[x] != Matching::unmatched) continue;
    for (int f : g.equations_of(x)) {
      if (sigma.order(f, x) == sigma.highest_order(x)) {
        out.optimal_solution[f].push_back(x);
        break;
      }
    }
  }
  for (auto& h : out.optimal_solution) std::sort(h.begin(), h.end());
  return true;
}

void derive_outputs(const SignatureMatrix& sigma, SigmaResult& out) {
  const BipartiteGraph& g = sigma.graph();
  const auto& c = out.offsets.equation_offsets;
  const auto& d = out.offsets.variable_offsets;
  out.optimal_weight = 0;
  for (int f = 0; f < g.equation_count(); ++f) {
    for (int x : out.optimal_solution[f]) out.optimal_weight += sigma.order(f, x);
  }
  out.max_offset_index = c.empty() ? 0 : *std::max_element(c.begin(), c.end());
  bool algebraic_variable = std::any_of(d.begin(), d.end(), [](int v) { return v == 0; });
  out.pryce_structural_index = out.max_offset_index + (algebraic_variable ? 1 : 0);
  out.degrees_of_freedom = std::accumulate(d.begin(), d.end(), std::int64_t{0}) -
                           std::accumulate(c.begin(), c.end(), std::int64_t{0});
  for (int x = 0; x < g.variable_count(); ++x) out.leading_variables.push_back({x, d[x]});
  for (int f = 0; f < g.equation_count(); ++f) {
    out.solved_equations.push_back({f, c[f]});
    for (int j = 1; j <= c[f]; ++j) out.latent_equations.push_back({f, j});
    for (int j = 0; j < c[f]; ++j) out.consistency_constraints.push_back({f, j});
  }
  std::vector<Edge> pattern;
  for (int f = 0; f < g.equation_count(); ++f) {
    int k = g.first_edge_of(f);
    for (int x : g.variables_of(f)) {
      if (d[x] - c[f] == sigma.orders()[k++]) pattern.push_back({f, x});
    }
  }
  out.system_jacobian = BipartiteGraph(g.equation_count(), g.variable_count(), pattern);
  if (out.square) {
    // Every optimal matching lies inside the pattern (equality on M), so it is perfect there.
    out.jacobian_blocks = block_triangular_form(out.system_jacobian, out.matching);
  } else {
    out.jacobian_dm = dulmage_mendelsohn(out.system_jacobian);
  }
}

}  // namespace

SigmaResult sigma_method(const SignatureMatrix& sigma) {
  const BipartiteGraph& g = sigma.graph();
  SigmaResult out;
  out.square = g.equation_count() == g.variable_count();
  out.diagnostics = dulmage_mendelsohn(g);
  // Existence (Benveniste et al. 2021, Algorithm 2 step 0): a matching covering every equation.
  Matching structural = maximum_matching(g);
  if (structural.size() < g.equation_count() ||
      (out.square && structural.size() < g.variable_count())) {
    out.status = SigmaStatus::structurally_singular;
    out.failure_reason = "no matching covers every equation" +
                         std::string(out.square ? " and every variable" : "") +
                         " (structural rank " + std::to_string(structural.size()) + " with " +
                         std::to_string(g.equation_count()) + " equations and " +
                         std::to_string(g.variable_count()) + " variables)";
    return out;
  }
  if (!out.square) {
    for (int x = 0; x < g.variable_count(); ++x) {
      if (g.equations_of(x).empty()) {
        out.status = SigmaStatus::variable_occurs_nowhere;
        out.failure_reason = "variable " + std::to_string(x) + " occurs in no equation";
        return out;
      }
    }
    optimal_h_non_square(sigma, out);
  } else {
    std::vector<std::int64_t> weights(sigma.orders().begin(), sigma.orders().end());
    Assignment a = maximum_weight_matching(g, weights);
    if (!a.complete) throw std::logic_error("sigma_method: assignment failed on a full-rank graph");
    out.matching = a.matching;
    out.optimal_solution.assign(g.equation_count(), {});
    for (int f = 0; f < g.equation_count(); ++f) {
      out.optimal_solution[f].push_back(a.matching.variable_of_equation[f]);
    }
  }
  try {
    out.offsets = canonical_offsets(sigma, out.optimal_solution);
  } catch (const OffsetLimitExceeded& e) {
    out.status = SigmaStatus::too_large;
    out.failure_reason = e.what();
    out.matching = {};
    out.optimal_solution.clear();
    return out;
  }
  out.status = SigmaStatus::success;
  derive_outputs(sigma, out);
#ifndef NDEBUG
  // The post-conditions are always checked in debug builds.
  if (auto violations = check_sigma_postconditions(sigma, out); !violations.empty()) {
    throw std::logic_error("sigma_method: post-condition violated: " + violations.front());
  }
#endif
  return out;
}

std::vector<std::string> check_sigma_postconditions(const SignatureMatrix& sigma,
                                                    const SigmaResult& result) {
  std::vector<std::string> violations;
  if (!result.succeeded()) return violations;
  const BipartiteGraph& g = sigma.graph();
  const auto& c = result.equation_offsets();
  const auto& d = result.variable_offsets();
  auto name = [](const char* what, int i) { return std::string(what) + " " + std::to_string(i); };
  for (int f = 0; f < g.equation_count(); ++f) {
    if (c[f] < 0) violations.push_back(name("negative offset of equation", f));
    for (int x : g.variables_of(f)) {
      int s = sigma.order(f, x);
      if (d[x] - c[f] < s) {
        violations.push_back("d - c < sigma on edge (" + std::to_string(f) + ", " +
                             std::to_string(x) + ")");
      }
      bool in_pattern = result.system_jacobian.edge_index(f, x) >= 0;
      if (in_pattern != (d[x] - c[f] == s)) {
        violations.push_back("Jacobian pattern wrong at (" + std::to_string(f) + ", " +
                             std::to_string(x) + ")");
      }
    }
    for (int x : result.optimal_solution[f]) {
      if (d[x] - c[f] != sigma.order(f, x)) {
        violations.push_back("d - c != sigma on optimal edge (" + std::to_string(f) + ", " +
                             std::to_string(x) + ")");
      }
    }
  }
  std::int64_t dual = std::accumulate(d.begin(), d.end(), std::int64_t{0}) -
                      std::accumulate(c.begin(), c.end(), std::int64_t{0});
  if (dual != result.optimal_weight) {
    violations.push_back("sum d - sum c = " + std::to_string(dual) +
                         " differs from w(H) = " + std::to_string(result.optimal_weight));
  }
  if (result.degrees_of_freedom != dual) violations.push_back("degrees of freedom inconsistent");
  return violations;
}

}  // namespace esdirk::structural
