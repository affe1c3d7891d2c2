#pragma once
// Dulmage–Mendelsohn decomposition (Benveniste et al. 2021 §3.2.3, Definition 7, Lemma 8): the
// equations and variables split into an under-determined part β_U (reachable by alternating paths
// from an unmatched variable), an over-determined part β_O (reachable from an unmatched equation)
// and the well-determined rest β_E. The parts do not depend on the maximum matching used.

#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/matching.hpp"

namespace esdirk::structural {

/// The three parts, each as sorted index lists into the analysed graph.
struct DmDecomposition {
  std::vector<int> under_equations;  ///< β_U equations
  std::vector<int> under_variables;  ///< β_U variables (always more than its equations)
  std::vector<int> well_equations;   ///< β_E equations (square, perfectly matchable)
  std::vector<int> well_variables;   ///< β_E variables
  std::vector<int> over_equations;   ///< β_O equations (always more than its variables)
  std::vector<int> over_variables;   ///< β_O variables
  /// True when β_U and β_O are empty: the system is structurally nonsingular (Lemma 8.2).
  bool structurally_nonsingular() const {
    return under_equations.empty() && under_variables.empty() && over_equations.empty() &&
           over_variables.empty();
  }
};

/// DM decomposition using a maximum matching computed internally.
ESDIRK_API DmDecomposition dulmage_mendelsohn(const BipartiteGraph& graph);

/// DM decomposition from a given matching. Throws std::invalid_argument if `matching` is not a
/// maximum matching of `graph` (a non-maximum one would give wrong parts).
ESDIRK_API DmDecomposition dulmage_mendelsohn(const BipartiteGraph& graph,
                                              const Matching& matching);

}  // namespace esdirk::structural
