// The first landing of the SBML module: the public contract and the reader's error handling.
#include <sbml/SBMLTypes.h>

#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml {
namespace detail {
struct CompiledModel {
  std::string id;
};
}  // namespace detail

Model::Model(std::unique_ptr<detail::CompiledModel> compiled) : compiled_(std::move(compiled)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;
const std::string& Model::id() const { return compiled_->id; }

namespace {
Model import_document(::SBMLDocument& document) {
  for (unsigned i = 0; i < document.getNumErrors(); ++i) {
    const ::SBMLError* error = document.getError(i);
    if (error->getSeverity() >= LIBSBML_SEV_ERROR)
      throw ImportError("not a readable SBML document: " + error->getMessage(), {},
                        error->getLine());
  }
  if (document.getModel() == nullptr) throw ImportError("the SBML document has no model");
  throw UnsupportedFeature("import not implemented yet", document.getModel()->getId());
}
}  // namespace

Model load(const std::string& path, const ImportOptions&) {
  std::unique_ptr<::SBMLDocument> document(::readSBMLFromFile(path.c_str()));
  return import_document(*document);
}

Model load_string(std::string_view xml, const ImportOptions&) {
  const std::string text(xml);
  std::unique_ptr<::SBMLDocument> document(::readSBMLFromString(text.c_str()));
  return import_document(*document);
}

}  // namespace esdirk::sbml
