#pragma once
// Reports of a model analysis for people (text) and machines (JSON). The library never
// prints: these functions return strings that the caller writes where it wants.

#include <string>

#include "esdirk/export.hpp"
#include "esdirk/structural/mode_analysis.hpp"
#include "esdirk/structural/model.hpp"

namespace esdirk::structural {

/// "x", "x'", "x''", "x'''", then "x^(4)": the name of a derivative or shifted equation.
ESDIRK_API std::string with_order(const std::string& name, int order);

/// The full text report: per mode the offsets, both indices, degrees of freedom, leading
/// variables, latent equations, consistency constraints, System Jacobian pattern and blocks
/// (or the over-/under-determined parts when the mode fails); per mode change the unfolded
/// system, its DM decomposition, conflicts and restart system. Deterministic.
ESDIRK_API std::string text_report(const Model& model, const ModelAnalysis& analysis);

/// The same content as one JSON object (names, not indices; see doc/structural-guide.md).
ESDIRK_API std::string json_report(const Model& model, const ModelAnalysis& analysis);

}  // namespace esdirk::structural
