#pragma once
// The counters of a model differentiated automatically (ModelProblem), and the record of its
// last failure (doc/ad-guide.md). The integrator's Statistics count what it asked for (NJAC,
// NJACP) and the finite-difference evaluations (none for these derivatives); these say how
// each derivative was formed.

#include <cstdio>
#include <string>

#include "esdirk/export.hpp"
#include "esdirk/problem.hpp"

namespace esdirk::ad {

struct AdStatistics {
  long jacobians = 0;            ///< J without a declared structure (chunks, or colours found)
  long coloured_jacobians = 0;   ///< banded or sparse J by coloured forward mode
  long parameter_jacobians = 0;  ///< [f_p; g_p] by forward mode (chunks, or colours found)
  long jacobian_vector_products = 0;  ///< J v (+ [f_p; g_p] w) by forward mode, one direction
  long vector_jacobian_products = 0;  ///< reverse sweeps of the tape (v^T J and v^T [f_p; g_p])
  long tape_recordings = 0;      ///< recordings of f and g on the tape (one per new point)
  long forward_passes = 0;       ///< evaluations of f and g over dual numbers
  long structure_passes = 0;     ///< evaluations of f and g over Dependency (structure found or checked)
  long structure_updates = 0;    ///< times the structure found grew and was coloured anew
  long failures = 0;             ///< failed or non-finite evaluations (see ModelFailure)

  /// An aligned two-column table, one counter per line (the layout of Statistics::table();
  /// inline, so that this plain aggregate needs no export).
  std::string table() const {
    const struct {
      const char* name;
      long value;
    } rows[] = {{"ad_jacobians", jacobians},
                {"ad_coloured_jacobians", coloured_jacobians},
                {"ad_parameter_jacobians", parameter_jacobians},
                {"ad_jacobian_vector_products", jacobian_vector_products},
                {"ad_vector_jacobian_products", vector_jacobian_products},
                {"ad_tape_recordings", tape_recordings},
                {"ad_forward_passes", forward_passes},
                {"ad_structure_passes", structure_passes},
                {"ad_structure_updates", structure_updates},
                {"ad_failures", failures}};
    std::string out;
    char line[96];
    for (const auto& row : rows) {
      std::snprintf(line, sizeof line, "%-40s %12ld\n", row.name, row.value);
      out += line;
    }
    return out;
  }
};

/// What went wrong in the last failed evaluation of a templated model, kept without
/// allocating (the message is formed when asked for).
struct ESDIRK_API ModelFailure {
  enum class Kind {
    none,
    returned_code,           ///< f or g returned a nonzero code
    value_not_finite,        ///< f[i] or g[i] is NaN or infinite
    derivative_not_finite,   ///< d f[i] / d argument is NaN or infinite
    threw,                   ///< f or g threw (message kept)
  };
  Kind kind = Kind::none;
  const char* derivative = "";  ///< "f/g", "J", "[f_p; g_p]", "J v", "v^T J"
  char function = 'f';          ///< 'f' or 'g'
  int row = -1;                 ///< the equation: 0 .. nx+nz-1 (f rows, then g rows)
  char argument = ' ';          ///< 'x' (a state x or z, by column), 'p', or ' ' (none)
  int column = -1;              ///< the argument's column: a state 0 .. nx+nz-1, or a parameter
  int code = 0;
  double t = 0.0;
  std::string what;  ///< the exception's message (Kind::threw)

  /// A sentence naming the model function, the equation and the argument, with the problem's
  /// names (Problem::equation_name, state_name, parameter_name); empty for Kind::none.
  std::string describe(const Problem& problem) const;
};

}  // namespace esdirk::ad
