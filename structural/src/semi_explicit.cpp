#include "esdirk/structural/semi_explicit.hpp"

#include <stdexcept>

namespace esdirk::structural {

SemiExplicitCheck check_semi_explicit_index1(const SemiExplicitPattern& p) {
  if (p.nx < 0 || p.nz < 0) throw std::invalid_argument("check_semi_explicit_index1: nx, nz < 0");
  const int n = p.nx + p.nz;
  std::vector<SignatureEntry> entries;
  for (int i = 0; i < p.nx; ++i) entries.push_back({i, i, 1});  // x_i' in f_i
  for (auto [row, col] : p.nonzeros) {
    if (row < 0 || row >= n || col < 0 || col >= n) {
      throw std::invalid_argument("check_semi_explicit_index1: pattern entry (" +
                                  std::to_string(row) + ", " + std::to_string(col) +
                                  ") outside the " + std::to_string(n) + " x " + std::to_string(n) +
                                  " matrix");
    }
    entries.push_back({row, col, 0});
  }
  SignatureMatrix sigma(n, n, entries);
  SigmaResult r = sigma_method(sigma);
  // Appending (rather than "f" + std::to_string(...)) avoids a GCC 12 -Wrestrict false
  // positive.
  auto label = [](char letter, int number) {
    std::string s(1, letter);
    s.append(std::to_string(number));
    return s;
  };
  auto eq = [&](int i) { return i < p.nx ? label('f', i + 1) : label('g', i - p.nx + 1); };
  auto var = [&](int j) { return j < p.nx ? label('x', j + 1) : label('z', j - p.nx + 1); };
  SemiExplicitCheck out;
  if (!r.succeeded()) {
    out.message = "structurally singular DAE: ";
    for (int i : r.diagnostics.over_equations) out.message += eq(i) + " ";
    out.message += "over-determine ";
    for (int j : r.diagnostics.over_variables) out.message += var(j) + " ";
    out.message += "and ";
    for (int j : r.diagnostics.under_variables) out.message += var(j) + " ";
    out.message += "are under-determined; no differentiation makes it index 1";
    return out;
  }
  out.structurally_regular = true;
  out.max_offset_index = r.max_offset_index;
  out.pryce_structural_index = r.pryce_structural_index;
  for (int i = 0; i < n; ++i) {
    int c = r.equation_offsets()[i];
    if (c == 0) continue;
    if (i < p.nx) {
      out.differentiate_f.push_back({i, c});
    } else {
      out.differentiate.push_back({i - p.nx, c});
    }
  }
  out.index1 = out.differentiate.empty() && out.differentiate_f.empty();
  if (out.index1) {
    out.message = p.nz == 0 ? "ODE: ESDIRK34 applies"
                            : "index 1 (g_z structurally nonsingular): ESDIRK34 applies";
  } else {
    out.message = "not index 1 (Pryce structural index " +
                  std::to_string(out.pryce_structural_index) + "): differentiate";
    for (const auto& d : out.differentiate_f) {
      out.message += " " + eq(d.g_index) + " " + std::to_string(d.times) + "x";
    }
    for (const auto& d : out.differentiate) {
      out.message += " " + eq(p.nx + d.g_index) + " " + std::to_string(d.times) + "x";
    }
  }
  return out;
}

}  // namespace esdirk::structural
