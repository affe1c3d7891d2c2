#pragma once
// libSBML's document to the importer's description (description.hpp).

#include <string_view>

#include "description.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml::detail {

/// Reads the document from a file (from_file) or from text. Throws ImportError /
/// UnsupportedFeature.
ModelDesc read_model(std::string_view path_or_text, bool from_file, const ImportOptions& options);

}  // namespace esdirk::sbml::detail
