#include <functional>
#include <sstream>
#include <vector>

#include "esdirk/structural/report.hpp"
#include "utf8.hpp"

namespace esdirk::structural {

namespace {

// A small streaming JSON writer: just enough for the report (objects, arrays, strings,
// integers, booleans), with commas handled by a per-level "first" flag.
class Json {
 public:
  Json& open(char bracket) {
    separate();
    out_ << bracket;
    first_.push_back(true);
    return *this;
  }
  Json& close(char bracket) {
    out_ << bracket;
    first_.pop_back();
    return *this;
  }
  Json& key(const std::string& k) {
    separate();
    string_literal(k);
    out_ << ':';
    pending_value_ = true;
    return *this;
  }
  Json& value(const std::string& s) {
    separate();
    string_literal(s);
    return *this;
  }
  Json& value(long long n) {
    separate();
    out_ << n;
    return *this;
  }
  Json& value(bool b) {
    separate();
    out_ << (b ? "true" : "false");
    return *this;
  }
  std::string str() const { return out_.str(); }

 private:
  void separate() {
    if (pending_value_) {
      pending_value_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ << ',';
      first_.back() = false;
    }
  }
  // JSON text must be UTF-8 (RFC 8259). Parsed models are (the parser checks), but a model
  // built in C++ may hold any bytes: each byte that does not start a well-formed sequence is
  // written as the escape of U+FFFD, the replacement character.
  void string_literal(const std::string& s) {
    out_ << '"';
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t n = utf8::sequence_length(s, i);
      if (n != 1) {
        out_ << (n == 0 ? std::string_view("\\ufffd") : std::string_view(s).substr(i, n));
        i += n == 0 ? 1 : n;
        continue;
      }
      const char c = s[i++];
      switch (c) {
        case '"':
          out_ << "\\\"";
          break;
        case '\\':
          out_ << "\\\\";
          break;
        case '\n':
          out_ << "\\n";
          break;
        case '\t':
          out_ << "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            const char* hex = "0123456789abcdef";
            out_ << "\\u00" << hex[(c >> 4) & 0xf] << hex[c & 0xf];
          } else {
            out_ << c;
          }
      }
    }
    out_ << '"';
  }
  std::ostringstream out_;
  std::vector<bool> first_;
  bool pending_value_ = false;
};

using NameOf = std::function<std::string(int)>;

void names(Json& j, const std::string& k, const std::vector<int>& indices, const NameOf& name) {
  j.key(k).open('[');
  for (int i : indices) j.value(name(i));
  j.close(']');
}

void dm(Json& j, const std::string& k, const DmDecomposition& d, const NameOf& e, const NameOf& v) {
  j.key(k).open('{');
  names(j, "over_equations", d.over_equations, e);
  names(j, "over_variables", d.over_variables, v);
  names(j, "under_equations", d.under_equations, e);
  names(j, "under_variables", d.under_variables, v);
  names(j, "well_equations", d.well_equations, e);
  names(j, "well_variables", d.well_variables, v);
  j.close('}');
}

void blocks(Json& j, const std::string& k, const BlockTriangularForm& btf, const NameOf& e,
            const NameOf& v) {
  j.key(k).open('[');
  for (const Block& b : btf.blocks) {
    j.open('{');
    names(j, "equations", b.equations, e);
    names(j, "variables", b.variables, v);
    j.close('}');
  }
  j.close(']');
  j.key(k + "_order").open('[');
  for (auto [a, b] : btf.dependencies) {
    j.open('[').value(static_cast<long long>(a)).value(static_cast<long long>(b)).close(']');
  }
  j.close(']');
}

void mode(Json& j, const Model& m, const ModeAnalysis& a) {
  const SigmaResult& r = a.result;
  NameOf e = [&](int i) { return m.equations[a.equations[i]].name; };
  NameOf v = [&](int x) { return m.variables[a.variables[x]].name; };
  j.open('{');
  j.key("mode").value(a.name);
  j.key("success").value(r.succeeded());
  j.key("well_posed").value(a.well_posed());
  j.key("square").value(r.square);
  if (!r.succeeded()) j.key("failure").value(r.failure_reason);
  dm(j, "dulmage_mendelsohn", r.diagnostics, e, v);
  if (r.succeeded()) {
    j.key("equation_offsets").open('{');
    for (std::size_t f = 0; f < r.equation_offsets().size(); ++f) {
      j.key(e(static_cast<int>(f))).value(static_cast<long long>(r.equation_offsets()[f]));
    }
    j.close('}');
    j.key("variable_offsets").open('{');
    for (std::size_t x = 0; x < r.variable_offsets().size(); ++x) {
      j.key(v(static_cast<int>(x))).value(static_cast<long long>(r.variable_offsets()[x]));
    }
    j.close('}');
    j.key("optimal_weight").value(static_cast<long long>(r.optimal_weight));
    j.key("max_offset_index").value(static_cast<long long>(r.max_offset_index));
    j.key("pryce_structural_index").value(static_cast<long long>(r.pryce_structural_index));
    j.key("degrees_of_freedom").value(static_cast<long long>(r.degrees_of_freedom));
    j.key("optimal_solution").open('[');
    for (std::size_t f = 0; f < r.optimal_solution.size(); ++f) {
      for (int x : r.optimal_solution[f]) {
        j.open('[').value(e(static_cast<int>(f))).value(v(x)).close(']');
      }
    }
    j.close(']');
    j.key("leading_variables").open('[');
    for (const auto& l : r.leading_variables) j.value(with_order(v(l.variable), l.order));
    j.close(']');
    j.key("latent_equations").open('[');
    for (const auto& l : r.latent_equations) j.value(with_order(e(l.equation), l.order));
    j.close(']');
    j.key("consistency_constraints").open('[');
    for (const auto& l : r.consistency_constraints) j.value(with_order(e(l.equation), l.order));
    j.close(']');
    j.key("system_jacobian").open('{');
    for (int f = 0; f < r.system_jacobian.equation_count(); ++f) {
      j.key(e(f)).open('[');
      for (int x : r.system_jacobian.variables_of(f)) j.value(v(x));
      j.close(']');
    }
    j.close('}');
    if (r.square) {
      blocks(j, "blocks", r.jacobian_blocks, e, v);
    } else {
      dm(j, "jacobian_dulmage_mendelsohn", r.jacobian_dm, e, v);
    }
  }
  if (a.has_existential) {
    const auto& x = a.existential;
    NameOf xe = [&](int i) { return a.existential_system.equation_names[i]; };
    j.key("existential").open('{');
    j.key("not_over_determined").value(x.not_over_determined);
    j.key("determined").value(x.determined);
    names(j, "determining_equations", x.determining_equations, xe);
    names(j, "consistency_equations", x.consistency_equations, xe);
    j.key("reasons").open('[');
    for (const auto& s : x.reasons) j.value(s);
    j.close(']');
    j.close('}');
  }
  j.close('}');
}

void mode_change(Json& j, const Model& m, const ModeChangeAnalysis& mc) {
  NameOf e = [&](int i) { return unfolded_name(m, mc.equations[i]); };
  NameOf v = [&](int x) { return unfolded_name(m, mc.unknowns[x]); };
  j.open('{');
  j.key("mode_change").value(mc.name);
  j.key("analysed").value(mc.analysed);
  if (!mc.analysed) {
    j.key("skipped_reason").value(mc.skipped_reason);
    j.close('}');
    return;
  }
  j.key("well_posed").value(mc.well_posed);
  if (!mc.well_posed) j.key("problem").value(mc.problem);
  std::vector<int> all(mc.equations.size()), unknowns(mc.unknowns.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  for (std::size_t i = 0; i < unknowns.size(); ++i) unknowns[i] = static_cast<int>(i);
  names(j, "equations", all, e);
  names(j, "unknowns", unknowns, v);
  j.key("assumed").open('[');
  for (const auto& u : mc.assumed) j.value(unfolded_name(m, u));
  j.close(']');
  j.key("structural_rank").value(static_cast<long long>(mc.structural_rank));
  dm(j, "dulmage_mendelsohn", mc.dm, e, v);
  names(j, "conflicts", mc.conflicts, e);
  names(j, "set_by_previous_instant", mc.set_by_previous_instant, v);
  names(j, "restart_equations", mc.restart_equations, e);
  names(j, "restart_unknowns", mc.restart_unknowns, v);
  NameOf re = [&](int i) { return e(mc.restart_equations[i]); };
  NameOf rv = [&](int x) { return v(mc.restart_unknowns[x]); };
  blocks(j, "restart_blocks", mc.restart_blocks, re, rv);
  j.close('}');
}

}  // namespace

std::string json_report(const Model& model, const ModelAnalysis& analysis) {
  Json j;
  j.open('{');
  j.key("model").value(model.name);
  j.key("well_posed").value(analysis.well_posed());
  j.key("warnings").open('[');
  for (const auto& w : analysis.warnings) j.value(w);
  j.close(']');
  j.key("modes").open('[');
  for (const auto& m : analysis.modes) mode(j, model, m);
  j.close(']');
  j.key("mode_changes").open('[');
  for (const auto& mc : analysis.mode_changes) mode_change(j, model, mc);
  j.close(']');
  j.close('}');
  return j.str() + "\n";
}

}  // namespace esdirk::structural
