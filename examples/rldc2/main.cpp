// The RLDC2 circuit of Benveniste, Caillaud & Malandain (Inria RR-9387, (92)) in all four modes (γ1, γ2 ∈ {false, true}) and all mode
// changes. The report gives no structural results for it; the expected per-mode values below
// were derived by hand (doc/structural-theory.md, "RLDC2"). Exits 1 on any mismatch.

#include <iostream>
#include <map>
#include <set>
#include <string>

#include "esdirk/structural/structural.hpp"
#include "common/example_support.hpp"

using namespace esdirk::structural;

const char* const usage =
    "usage: example_structural_rldc2\n"
    "\n"
    "Structural analysis of the RLDC2 circuit of Benveniste, Caillaud and Malandain (Inria\n"
    "RR-9387) in all four modes and all mode changes, checked against hand-derived values.\n"
    "\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  const Analysis analysis = analyse(R"(
model rldc2
modes g1 g2
variables i1 i2 j1 j2 u1 u2 v1 v2 w1 w2 x1 x2 s1 s2
equation K1: i1 i2 j1 j2              # 0 = i1 + i2 + j1 + j2
equation K2: x1 w1 u1 v1              # x1 + w1 = u1 + v1
equation K3: u1 v1 u2 v2              # u1 + v1 = u2 + v2
equation K4: u2 v2 x2 w2              # u2 + v2 = x2 + w2
equation L1: w1 j1'                   # w1 = L1 j1'
equation L2: w2 j2'
equation C1: i1 v1'                   # i1 = C1 v1'
equation C2: i2 v2'
equation R1: x1 j1                    # x1 = R1 j1
equation R2: x2 j2
equation S1 if g1: s1 i1              # s1 = if g1 then i1 else -u1
equation S1 if !g1: s1 u1
equation S2 if g2: s2 i2
equation S2 if !g2: s2 u2
equation Z1 if g1: u1                 # 0 = if g1 then u1 else i1
equation Z1 if !g1: i1
equation Z2 if g2: u2
equation Z2 if !g2: i2
)",
                                    "rldc2");
  const Model& model = analysis.model;
  std::cout << text_report(analysis);

  struct Expected {
    std::set<std::string> c_one;  // equations with c = 1, all others 0
    std::set<std::string> d_one;  // variables with d = 1, all others 0
    int dof;
    std::size_t blocks;
  };
  std::map<std::string, Expected> expected{
      {"g1=false, g2=false", {{"K1", "Z1", "Z2"}, {"i1", "i2", "j1", "j2", "v1", "v2"}, 3, 9}},
      {"g1=false, g2=true", {{}, {"j1", "j2", "v1", "v2"}, 4, 14}},
      {"g1=true, g2=false", {{}, {"j1", "j2", "v1", "v2"}, 4, 14}},
      {"g1=true, g2=true", {{"K3", "Z1", "Z2"}, {"j1", "j2", "u1", "u2", "v1", "v2"}, 3, 11}},
  };
  int failures = 0;
  for (const ModeAnalysis& m : analysis.modes) {
    const Expected& x = expected.at(m.name);
    bool ok = m.well_posed() && m.result.degrees_of_freedom == x.dof &&
              m.result.jacobian_blocks.blocks.size() == x.blocks;
    for (std::size_t i = 0; ok && i < m.equations.size(); ++i) {
      ok = m.result.equation_offsets()[i] ==
           (x.c_one.count(model.equations[m.equations[i]].name) ? 1 : 0);
    }
    for (std::size_t j = 0; ok && j < m.variables.size(); ++j) {
      ok = m.result.variable_offsets()[j] ==
           (x.d_one.count(model.variables[m.variables[j]].name) ? 1 : 0);
    }
    std::cout << "check mode " << m.name << ": " << (ok ? "ok" : "MISMATCH") << "\n";
    failures += !ok;
  }
  std::cout << (failures == 0 ? "rldc2: all four modes agree with the hand derivation\n"
                              : "rldc2: MISMATCHES FOUND\n");
  return failures == 0 ? 0 : 1;
}
