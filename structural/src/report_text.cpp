#include <functional>
#include <sstream>

#include "esdirk/structural/report.hpp"

namespace esdirk::structural {

std::string with_order(const std::string& name, int order) {
  if (order <= 3) return name + std::string(order, '\'');
  return name + "^(" + std::to_string(order) + ")";
}

namespace {

class TextReport {
 public:
  TextReport(const Model& model, const ModelAnalysis& analysis) : m_(model), a_(analysis) {}

  std::string run() {
    int unknowns = static_cast<int>(unknown_variables(m_).size());
    out_ << "model " << m_.name << ": " << m_.equations.size() << " equations, "
         << m_.variables.size() << " variables (" << unknowns << " unknown), "
         << m_.mode_variables.size() << " mode variables, " << a_.modes.size() << " mode"
         << (a_.modes.size() == 1 ? "" : "s") << "\n";
    for (const auto& w : a_.warnings) out_ << w << "\n";
    for (const auto& mode : a_.modes) write_mode(mode);
    for (const auto& mc : a_.mode_changes) write_mode_change(mc);
    out_ << "\nverdict: "
         << (a_.well_posed() ? "structurally well posed in every mode and mode change"
                             : "NOT structurally well posed (see the parts marked FAILED)")
         << "\n";
    return out_.str();
  }

 private:
  std::string eq(const ModeAnalysis& mode, int row) const {
    return m_.equations[mode.equations[row]].name;
  }
  std::string var(const ModeAnalysis& mode, int column) const {
    return m_.variables[mode.variables[column]].name;
  }
  template <class Name>
  std::string set(const std::vector<int>& indices, Name name) const {
    if (indices.empty()) return "(none)";
    std::string s;
    for (int i : indices) {
      if (!s.empty()) s += ' ';
      s.append(name(i));
    }
    return s;
  }

  void write_dm(const DmDecomposition& dm, const std::function<std::string(int)>& e,
                const std::function<std::string(int)>& v, const char* indent) {
    out_ << indent << "over-determined:  equations " << set(dm.over_equations, e) << " | variables "
         << set(dm.over_variables, v) << "\n";
    out_ << indent << "under-determined: equations " << set(dm.under_equations, e)
         << " | variables " << set(dm.under_variables, v) << "\n";
    out_ << indent << "well-determined:  equations " << set(dm.well_equations, e) << " | variables "
         << set(dm.well_variables, v) << "\n";
  }

  void write_blocks(const BlockTriangularForm& btf, const std::function<std::string(int)>& e,
                    const std::function<std::string(int)>& v) {
    out_ << "block triangular form: " << btf.blocks.size() << " block"
         << (btf.blocks.size() == 1 ? "" : "s") << " (solving order)\n";
    for (std::size_t b = 0; b < btf.blocks.size(); ++b) {
      out_ << "  block " << b + 1 << " (" << btf.blocks[b].equations.size() << "x"
           << btf.blocks[b].equations.size() << "): " << set(btf.blocks[b].equations, e) << " -> "
           << set(btf.blocks[b].variables, v) << "\n";
    }
    if (!btf.dependencies.empty()) {
      out_ << "  before:";
      for (auto [x, y] : btf.dependencies) out_ << " " << x + 1 << "<" << y + 1;
      out_ << "\n";
    }
  }

  void write_mode(const ModeAnalysis& mode) {
    const SigmaResult& r = mode.result;
    auto e = [&](int i) { return eq(mode, i); };
    auto v = [&](int j) { return var(mode, j); };
    out_ << "\n== mode " << mode.name << " ==\n";
    out_ << "active equations (" << mode.equations.size()
         << "): " << set(std::vector<int>(index_range(mode.equations.size())), e) << "\n";
    out_ << "unknowns (" << mode.variables.size()
         << "): " << set(std::vector<int>(index_range(mode.variables.size())), v) << "\n";
    if (!r.succeeded()) {
      out_ << "status: FAILED: " << r.failure_reason << "\n";
      out_ << "diagnosis (Dulmage-Mendelsohn):\n";
      write_dm(r.diagnostics, e, v, "  ");
      write_existential(mode);
      return;
    }
    if (r.square) {
      out_ << "status: success\n";
    } else {
      out_ << "status: FAILED: fewer equations (" << mode.equations.size() << ") than unknowns ("
           << mode.variables.size() << "), results of the non-square Sigma-method follow\n";
    }
    out_ << "optimal " << (r.square ? "matching" : "solution H") << " (weight " << r.optimal_weight
         << "):";
    for (std::size_t f = 0; f < r.optimal_solution.size(); ++f) {
      for (int x : r.optimal_solution[f]) out_ << " " << e(static_cast<int>(f)) << "-" << v(x);
    }
    out_ << "\n";
    out_ << "equation_offsets (c):";
    for (std::size_t f = 0; f < r.equation_offsets().size(); ++f) {
      out_ << " " << e(static_cast<int>(f)) << "=" << r.equation_offsets()[f];
    }
    out_ << "\nvariable_offsets (d):";
    for (std::size_t x = 0; x < r.variable_offsets().size(); ++x) {
      out_ << " " << v(static_cast<int>(x)) << "=" << r.variable_offsets()[x];
    }
    out_ << "\nmax offset index (Benveniste et al., max c): " << r.max_offset_index << "\n";
    out_ << "Pryce structural index: " << r.pryce_structural_index << "\n";
    out_ << "degrees of freedom (sum d - sum c): " << r.degrees_of_freedom << "\n";
    out_ << "leading variables:";
    for (const auto& l : r.leading_variables) out_ << " " << with_order(v(l.variable), l.order);
    out_ << "\nlatent equations:";
    if (r.latent_equations.empty()) out_ << " (none)";
    for (const auto& l : r.latent_equations) out_ << " " << with_order(e(l.equation), l.order);
    out_ << "\nconsistency constraints:";
    if (r.consistency_constraints.empty()) out_ << " (none)";
    for (const auto& l : r.consistency_constraints) {
      out_ << " " << with_order(e(l.equation), l.order);
    }
    out_ << "\nsystem Jacobian pattern (rows f^(c_f), columns x^(d_x)):\n";
    for (int f = 0; f < r.system_jacobian.equation_count(); ++f) {
      out_ << "  " << with_order(e(f), r.equation_offsets()[f]) << ":";
      for (int x : r.system_jacobian.variables_of(f)) {
        out_ << " " << with_order(v(x), r.variable_offsets()[x]);
      }
      out_ << "\n";
    }
    if (r.square) {
      auto ed = [&](int f) { return with_order(e(f), r.equation_offsets()[f]); };
      auto vd = [&](int x) { return with_order(v(x), r.variable_offsets()[x]); };
      write_blocks(r.jacobian_blocks, ed, vd);
    } else {
      out_ << "Dulmage-Mendelsohn of F_Sigma over the leading variables:\n";
      write_dm(r.jacobian_dm, e, v, "  ");
    }
    write_existential(mode);
  }

  void write_existential(const ModeAnalysis& mode) {
    if (!mode.has_existential) return;
    const ExistentialAnalysis& x = mode.existential;
    const ExistentialSystem& s = mode.existential_system;
    auto e = [&](int i) { return s.equation_names[i]; };
    out_ << "existential analysis (Algorithm 1, free variables given):\n";
    out_ << "  b_O (not over-determined): " << (x.not_over_determined ? "true" : "false") << "\n";
    out_ << "  b_U (X determined without W): " << (x.determined ? "true" : "false") << "\n";
    out_ << "  F_Sigma (determine X): " << set(x.determining_equations, e) << "\n";
    out_ << "  consistency conditions: " << set(x.consistency_equations, e) << "\n";
    for (const auto& reason : x.reasons) out_ << "  FAILED: " << reason << "\n";
  }

  void write_mode_change(const ModeChangeAnalysis& mc) {
    out_ << "\n== mode change " << mc.name << " ==\n";
    if (!mc.analysed) {
      out_ << "status: FAILED: skipped, " << mc.skipped_reason << "\n";
      return;
    }
    auto e = [&](int i) { return unfolded_name(m_, mc.equations[i]); };
    auto v = [&](int j) { return unfolded_name(m_, mc.unknowns[j]); };
    std::vector<int> previous, current;
    for (std::size_t i = 0; i < mc.equations.size(); ++i) {
      (mc.equations[i].previous ? previous : current).push_back(static_cast<int>(i));
    }
    out_ << "previous-instant equations: " << set(previous, e) << "\n";
    out_ << "current-instant equations: " << set(current, e) << "\n";
    if (!mc.assumed.empty()) {
      out_ << "assumed (no unknowns):";
      for (const auto& u : mc.assumed) out_ << " " << unfolded_name(m_, u);
      out_ << "\n";
    }
    out_ << "unknowns: " << set(std::vector<int>(index_range(mc.unknowns.size())), v) << "\n";
    out_ << "structural rank: " << mc.structural_rank << " (" << mc.equations.size()
         << " equations, " << mc.unknowns.size() << " unknowns)\n";
    out_ << "Dulmage-Mendelsohn:\n";
    write_dm(mc.dm, e, v, "  ");
    out_ << "conflicts (dropped by the causality principle): " << set(mc.conflicts, e) << "\n";
    out_ << "set by the previous instant: " << set(mc.set_by_previous_instant, v) << "\n";
    out_ << "restart system: solve " << set(mc.restart_equations, e) << " for "
         << set(mc.restart_unknowns, v) << "\n";
    auto re = [&](int i) { return e(mc.restart_equations[i]); };
    auto rv = [&](int j) { return v(mc.restart_unknowns[j]); };
    write_blocks(mc.restart_blocks, re, rv);
    out_ << "status: " << (mc.well_posed ? "success" : "FAILED: " + mc.problem) << "\n";
  }

  static std::vector<int> index_range(std::size_t n) {
    std::vector<int> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = static_cast<int>(i);
    return r;
  }

  const Model& m_;
  const ModelAnalysis& a_;
  std::ostringstream out_;
};

}  // namespace

std::string text_report(const Model& model, const ModelAnalysis& analysis) {
  return TextReport(model, analysis).run();
}

}  // namespace esdirk::structural
