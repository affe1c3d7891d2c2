#pragma once
// The model text format (grammar in doc/structural-guide.md). One statement per line:
//
//   # ideal clutch, Benveniste et al. 2021 §2
//   model clutch
//   modes gamma
//   variables omega1 omega2 tau1 tau2
//   equation e1: omega1' omega1 tau1          # ω1' = f1(ω1, τ1)
//   equation e3 if gamma: omega1 omega2
//   equation e5 if !gamma: tau1
//
// Occurrences are NAME, NAME' (one prime per order) or NAME^k.

#include <string>
#include <string_view>

#include "esdirk/export.hpp"
#include "esdirk/structural/model.hpp"

namespace esdirk::structural {

/// Parses model text. `source_name` is used in error locations. Throws ParseError
/// ("source:line:column: error: ...") for malformed lines, unknown names, duplicate
/// declarations or equations, and empty models.
ESDIRK_API Model parse_model(std::string_view text, const std::string& source_name = "<model>");

/// Reads and parses a model file. Throws ParseError (also when the file cannot be read).
ESDIRK_API Model read_model_file(const std::string& path);

}  // namespace esdirk::structural
