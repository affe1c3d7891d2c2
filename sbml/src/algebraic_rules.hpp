#pragma once
// Which variable each algebraic rule determines, and the structural index check of the DAE
// the importer forms (doc/sbml.md, "Algebraic rules"): both by the structural module.

#include <vector>

#include "description.hpp"

namespace esdirk::sbml::detail {

/// Per algebraic rule (in the rules' order), the symbol (index into desc.symbols) it
/// determines. `states` are the symbols that become differential states, `candidates` the
/// free ones a rule may determine (non-constant, no rule of their own, not changed by
/// reactions). Throws UnsupportedFeature naming a rule when the semi-explicit DAE
/// x' = f(x, z), 0 = g(x, z) is of index above 1 or structurally singular.
std::vector<int> determine_algebraic_variables(const ModelDesc& desc, const std::vector<int>& states,
                                               const std::vector<int>& candidates);

}  // namespace esdirk::sbml::detail
