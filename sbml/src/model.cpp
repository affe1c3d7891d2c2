// Model: the compiled model behind the public facade; load() and load_string().
#include <cmath>
#include <stdexcept>

#include "compiled_model.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "import.hpp"
#include "sbml_problem.hpp"

namespace esdirk::sbml {

Model::Model(std::unique_ptr<detail::CompiledModel> compiled) : compiled_(std::move(compiled)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

const std::string& Model::id() const { return compiled_->desc.id; }

namespace {
std::vector<std::string> ids_of(const detail::ModelDesc& d, detail::SymbolKind kind) {
  std::vector<std::string> out;
  for (const auto& s : d.symbols)
    if (s.kind == kind) out.push_back(s.id);
  return out;
}
}  // namespace

std::vector<std::string> Model::species_ids() const { return ids_of(compiled_->desc, detail::SymbolKind::species); }
std::vector<std::string> Model::compartment_ids() const {
  return ids_of(compiled_->desc, detail::SymbolKind::compartment);
}
std::vector<std::string> Model::global_parameter_ids() const {
  std::vector<std::string> out;
  for (const auto& r : compiled_->desc.reactions) (void)r;
  for (const auto& s : compiled_->desc.symbols)
    if (s.kind == detail::SymbolKind::parameter && compiled_->symbols.count(s.id)) {
      bool reaction = false;
      for (const auto& r : compiled_->desc.reactions) reaction = reaction || r.id == s.id;
      if (!reaction) out.push_back(s.id);
    }
  return out;
}
std::vector<std::string> Model::parameter_ids() const { return compiled_->parameter_ids; }
std::vector<std::string> Model::initial_value_ids() const { return compiled_->initial_value_ids; }

double Model::value(const std::string& id) const {
  const detail::SymbolDesc* s = compiled_->desc.find(id);
  const bool known = compiled_->parameter_index.count(id) || compiled_->state_index.count(id);
  if (s == nullptr || !known) throw std::invalid_argument("Model::value: '" + id + "' is not a parameter or initial-value id");
  auto it = compiled_->overrides.find(id);
  return it != compiled_->overrides.end() ? it->second : s->value;
}

void Model::set_value(const std::string& id, double value) {
  (void)this->value(id);  // checks the id
  compiled_->overrides[id] = value;
}

HybridProblem& Model::problem() { return *compiled_->problem; }
const std::vector<std::string>& Model::state_names() const { return compiled_->x_names; }
const std::vector<std::string>& Model::algebraic_names() const { return compiled_->z_names; }
const std::vector<std::string>& Model::problem_parameter_names() const { return compiled_->p_names; }

namespace {
Model import(std::string_view source, bool from_file, const ImportOptions& options) {
  std::unique_ptr<detail::CompiledModel> compiled = detail::build_model(detail::read_model(source, from_file, options));
  // The initial point once at import: cycles, undefined values and divisions by zero are
  // import errors, before anything is integrated.
  std::vector<double> x0, z0, p0;
  detail::initial_point(*compiled, 0.0, x0, z0, p0);
  // The solver takes finite values only (a model that works with INF or NaN is refused).
  for (std::size_t i = 0; i < p0.size(); ++i)
    if (!std::isfinite(p0[i])) throw UnsupportedFeature("a value that is not finite (INF or NaN)", compiled->p_origin[i].id);
  for (std::size_t i = 0; i < z0.size(); ++i)
    if (!std::isfinite(z0[i])) throw UnsupportedFeature("a value that is not finite (INF or NaN)", compiled->z_origin[i].id);
  return Model(std::move(compiled));
}
}  // namespace

Model load(const std::string& path, const ImportOptions& options) { return import(path, true, options); }

Model load_string(std::string_view xml, const ImportOptions& options) { return import(xml, false, options); }

}  // namespace esdirk::sbml
