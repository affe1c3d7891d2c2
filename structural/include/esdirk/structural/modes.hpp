#pragma once
// Modes of a multimode model and the system active in one mode (Benveniste et al. 2021 §5.1–5.3:
// per-mode analysis by explicit enumeration).

#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/model.hpp"
#include "esdirk/structural/signature_matrix.hpp"

namespace esdirk::structural {

/// One assignment of the mode variables.
struct Mode {
  std::vector<bool> values;  ///< one per mode variable
  friend bool operator==(const Mode&, const Mode&) = default;
};

/// All 2^k modes, in binary order with the first mode variable as the most significant bit
/// (so `gamma=false` comes before `gamma=true`). A model without mode variables has one mode.
ESDIRK_API std::vector<Mode> enumerate_modes(const Model& model);

/// "gamma=true", "g1=false, g2=true"; "single mode" when there are no mode variables.
ESDIRK_API std::string mode_name(const Model& model, const Mode& mode);

/// Indices of the equations whose guard holds in `mode`, in model order.
ESDIRK_API std::vector<int> active_equations(const Model& model, const Mode& mode);

/// Indices of the unknowns of the Σ-method: dependent and existential variables, model order.
ESDIRK_API std::vector<int> unknown_variables(const Model& model);

/// Σ of the given equations over the given variables (rows and columns in the order given).
ESDIRK_API SignatureMatrix signature_matrix(const Model& model, const std::vector<int>& equations,
                                 const std::vector<int>& variables);

}  // namespace esdirk::structural
