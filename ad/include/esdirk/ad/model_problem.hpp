#pragma once
// A Problem from a model written once as a template over the scalar type; every derivative the
// library asks for is exact, by automatic differentiation (doc/ad-guide.md):
//
//     struct Model {
//       template <class T>
//       int f(double t, std::span<const T> x, std::span<const T> z, std::span<const T> p,
//             std::span<T> f) const;          // x' = f(t, x, z, p), returns 0 / >0 / <0
//       template <class T>
//       int g(double t, std::span<const T> x, std::span<const T> z, std::span<const T> p,
//             std::span<T> g) const;          // 0 = g(t, x, z, p); only needed when nz > 0
//     };
//     esdirk::ad::ModelProblem<Model> problem(nx, nz, np);
//
// The signatures and return codes are those of Problem::evaluate and FunctionProblem's
// callbacks with double replaced by T; T is double (evaluate), Dual<N> (forward mode) or Var
// (reverse mode). FunctionProblem's generic lambdas work unchanged with ad::FunctionProblem.
//
// Which derivative comes from which mode:
//   J = [f_x f_z; g_x g_z]   chunked forward mode, Chunk directions per evaluation of the model
//                            and a last evaluation over the narrowest of 1, 2, 4, 8 lanes that
//                            holds the rest (pass_width); with a declared band or pattern,
//                            coloured forward mode with the library's colouring, the same over
//                            the colours
//   [f_p; g_p]               chunked forward mode, the same over the np columns
//   J v (+ [f_p; g_p] w)     forward mode, one direction: one evaluation
//   v^T J, v^T [f_p; g_p]    reverse mode (Tape): one recording per point, one sweep per v,
//                            whatever np; the adjoint uses it for its parameter terms when
//                            np > Chunk (ParameterTerms; below that, [f_p; g_p] by forward mode)
//
// Failures: a nonzero code of f or g, a non-finite value or derivative, or an exception thrown
// by the model is returned as a code (1, or the model's code; -1 for an exception) and recorded
// in last_failure(); failure_note() names the model function, the equation and the argument,
// and the integrator appends it to its failure message. No derivative is ever formed by finite
// differences.
//
// Workspaces are sized in the constructor; the colouring is formed at the first coloured
// Jacobian after a structure is declared, and the tape grows to the model's size at its first
// recording: after that no evaluation allocates.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "esdirk/ad/ad_statistics.hpp"
#include "esdirk/ad/column_colouring.hpp"
#include "esdirk/ad/dependency.hpp"
#include "esdirk/ad/dual.hpp"
#include "esdirk/ad/tape.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/sparsity.hpp"

namespace esdirk::ad {

/// True if `Model` has the templated constraints g (checked for T = double).
template <class Model>
concept HasConstraints = requires(Model& m, std::span<const double> in, std::span<double> out) {
  { m.g(0.0, in, in, in, out) };
};

/// How the adjoint forms the parameter terms w^T [f_p; g_p] of a ModelProblem: by the tape's
/// reverse sweep (Problem::parameter_vjp), from [f_p; g_p] by forward mode, or automatically
/// (products on the structure found when its colouring is in use, else reverse mode when
/// np > Chunk, else [f_p; g_p]). See ModelProblem::has_parameter_vjp().
enum class ParameterTerms { automatic, reverse_mode, forward_mode };

/// Whether a ModelProblem without a declared band or pattern finds the structure of J and
/// [f_p; g_p] itself (one evaluation over Dependency per 256 inputs, at every point where the
/// coloured passes are used) and colours their columns when that takes fewer lanes than the
/// chunks of all columns (doc/ad-guide.md, "The structure found automatically").
enum class StructureDetection { automatic, off };

/// A model whose f (and g) take the parameters as a template parameter of their own,
///     template <class T, class P = T>
///     int f(double t, std::span<const T> x, std::span<const T> z, std::span<const P> p,
///           std::span<T> f) const;
/// and that says so with `static constexpr bool plain_parameters = true;` gets p as double in
/// the passes that form J (P = T everywhere else): a product of a parameter and a state then
/// costs one multiplication per lane instead of the chain rule over a dual whose lanes are all
/// zero. The numbers are the same bit for bit.
template <class Model>
concept TakesPlainParameters = requires { requires Model::plain_parameters; };

/// A model that declares `static constexpr bool structure_detection = false;` is never
/// evaluated over Dependency (for a model written for Dual and Var only).
template <class Model>
concept DetectsStructure = !requires { requires !Model::structure_detection; };

template <class Model, int Chunk = 8>
class ModelProblem : public Problem {
 public:
  using Forward = Dual<Chunk>;
  using Direction = Dual<1>;

  /// Throws std::invalid_argument as Problem does, and if nz > 0 and the model has no g.
  ModelProblem(int nx, int nz, int np, Model model = Model{})
      : Problem(nx, nz, np), model_(std::move(model)) {
    if (nz > 0 && !HasConstraints<Model>)
      throw std::invalid_argument("ad::ModelProblem: nz > 0 but the model has no g");
    const auto nxs = static_cast<std::size_t>(nx), nzs = static_cast<std::size_t>(nz),
               nps = static_cast<std::size_t>(np);
    forward_.resize(nxs, nzs, nps);
    if constexpr (Chunk > 1) lanes1_.resize(nxs, nzs, nps);
    if constexpr (Chunk > 2) lanes2_.resize(nxs, nzs, nps);
    if constexpr (Chunk > 4) lanes4_.resize(nxs, nzs, nps);
    if constexpr (Chunk > 8) lanes8_.resize(nxs, nzs, nps);
    direction_.resize(nxs, nzs, nps);
    reverse_.resize(nxs, nzs, nps);
    blocks_ = (size() + np + 63) / 64;
    words_ = blocks_ <= 1 ? 1 : blocks_ <= 2 ? 2 : 4;
    if constexpr (DetectsStructure<Model>) {
      if (words_ == 1) dependency1_.resize(nxs, nzs, nps);
      else if (words_ == 2) dependency2_.resize(nxs, nzs, nps);
      else dependency4_.resize(nxs, nzs, nps);
    }
    known_.assign(static_cast<std::size_t>(size()) * static_cast<std::size_t>(blocks_), 0);
    found_ = known_;
    checked_.assign(static_cast<std::size_t>(blocks_), 0);
    point_.assign(1 + nxs + nzs + nps, 0.0);
  }

  /// How the adjoint forms its parameter terms (see has_parameter_vjp()).
  void set_parameter_terms(ParameterTerms terms) { parameter_terms_ = terms; }
  ParameterTerms parameter_terms() const { return parameter_terms_; }

  /// Whether the structure of J and [f_p; g_p] is found automatically when none is declared
  /// (automatic, the default; see StructureDetection). Setting it forgets what was found.
  void set_structure_detection(StructureDetection detection) {
    detection_ = detection;
    forget_structure();
  }
  StructureDetection structure_detection() const { return detection_; }
  /// The colouring of J's columns found automatically (colours == 0 before the first J), and
  /// whether J is formed by it (when it takes fewer lanes than the chunks of all columns).
  const ColumnColouring& found_state_colouring() const { return state_colouring_; }
  bool colours_found_states() const { return colour_states_; }
  /// The same for the columns of [f_p; g_p].
  const ColumnColouring& found_parameter_colouring() const { return parameter_colouring_; }
  bool colours_found_parameters() const { return colour_parameters_; }

  Model& model() { return model_; }
  const Model& model() const { return model_; }
  const AdStatistics& ad_statistics() const { return stats_; }
  void reset_ad_statistics() { stats_ = {}; }
  const ModelFailure& last_failure() const { return failure_; }
  /// A sentence for each derivative: the mode that forms it and its cost.
  std::string derivative_methods() const {
    std::string j;
    if (const auto& pattern = jacobian_structure().pattern) {
      const int colours = pattern.get() == coloured_pattern_ ? declared_colouring_.colours : -1;
      j = "J: coloured forward-mode AD (" +
          (colours < 0 ? std::string("colouring formed at the first Jacobian")
                       : std::to_string(colours) + " colours, " + passes_text(colours)) +
          ")\n";
    } else {
      j = "J: " + found_text(colour_states_, state_colouring_, size(), "columns") + "\n";
    }
    return j + "[f_p; g_p]: " + found_text(colour_parameters_, parameter_colouring_, np(), "parameters") + "\n" +
           "J v: forward-mode AD (one evaluation, one direction)\n"
           "v^T J, v^T [f_p; g_p]: reverse-mode AD (tape of " + std::to_string(tape_.size()) +
           " nodes; one recording per point, one sweep per vector)\n"
           "finite differences: none\n";
  }

  /// The number of lanes of the forward pass over `lanes` columns (or colours): Chunk, or for a
  /// last, partial chunk the narrowest of 1, 2, 4, 8 (below Chunk) that holds them.
  static constexpr int pass_width(int lanes) {
    for (int w : {1, 2, 4, 8})
      if (w < Chunk && lanes <= w) return w;
    return Chunk;
  }

  // --- Problem ---------------------------------------------------------------------------------

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override {
    point_named_ = false;
    const int code = call_model<double, double>(t, x, z, p, f, g, "f/g");
    if (code != 0) return code;
    for (int i = 0; i < size(); ++i) {
      const double v = i < nx() ? f[static_cast<std::size_t>(i)] : g[static_cast<std::size_t>(i - nx())];
      if (!std::isfinite(v)) return record_value_failure("f/g", i, t);
    }
    return 0;
  }

  bool has_jacobian() const override { return true; }
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override {
    point_named_ = false;
    if (jacobian_structure().pattern) {
      J.fill(0.0);
      return coloured_jacobian(t, x, z, p, nullptr, J);
    }
    ++stats_.jacobians;
    if (const int code = check_structure(t, x, z, p, false, "J"); code != 0) return code;
    if (colour_states_) {
      J.fill(0.0);
      return coloured_j(t, x, z, p, state_colouring_, nullptr, J);
    }
    j_awaits_products_ = false;
    return dense_columns(t, x, z, p, false, J, "J");
  }

  bool has_sparse_jacobian() const override { return jacobian_structure().pattern != nullptr; }
  int sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, SparseMatrixRef J) override {
    point_named_ = false;
    return coloured_jacobian(t, x, z, p, J.values, MatrixRef{});
  }

  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef Jp) override {
    point_named_ = false;
    ++stats_.parameter_jacobians;
    if (const int code = check_structure(t, x, z, p, true, "[f_p; g_p]"); code != 0) return code;
    if (colour_parameters_) {
      Jp.fill(0.0);
      return coloured_columns(t, x, z, p, parameter_colouring_, true, nullptr, Jp, "[f_p; g_p]");
    }
    return dense_columns(t, x, z, p, true, Jp, "[f_p; g_p]");
  }

  /// The adjoint's parameter terms w^T [f_p; g_p] come from parameter_vjp when this is true
  /// (one product per stage and adjoint column, whatever np), else from the matrix [f_p; g_p]
  /// (n x np per stage). Automatic: products when the structure of [f_p; g_p] was found and
  /// its colouring is in use (the compressed columns by coloured forward mode, once per point,
  /// then each product over the pattern's entries only: the chain of
  /// bench_adjoint_parameters, one parameter per equation, takes one pass of one direction, or
  /// none when its colour fits in the lanes J's coloured pass leaves unused at the same point),
  /// else by the tape's reverse sweep when np > Chunk (forming [f_p; g_p] would take more than
  /// one forward pass), else the matrix by one forward pass of at most Chunk lanes (cheaper
  /// than recording the tape; doc/ad-guide.md, "The adjoint").
  bool has_parameter_vjp() const override {
    switch (parameter_terms_) {
      case ParameterTerms::reverse_mode: return true;
      case ParameterTerms::forward_mode: return false;
      case ParameterTerms::automatic: break;
    }
    return colour_parameters_ || np() > Chunk;
  }
  int parameter_vjp(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector w, Vector out) override {
    point_named_ = false;
    // With a declared band or pattern J never looked for the structure: the first product
    // does (that of [f_p; g_p] is found with it).
    if (parameter_terms_ == ParameterTerms::automatic && (colour_parameters_ || !structure_known_)) {
      if (j_awaits_products_) {
        products_follow_j_ = j_at_ == point_serial(t, x, z, p);
        j_awaits_products_ = false;
      }
      if (const int code = compressed_parameter_columns(t, x, z, p); code != 0) return code;
      if (colour_parameters_) return parameter_products(w, out);
      // Not worth colouring, or the structure widened at this point and is no longer
      // coloured: the tape.
    }
    if (const int code = sweep(t, x, z, p, w); code != 0) return code;
    return parameter_adjoints(t, out);
  }

  std::string failure_note() const override { return failure_.describe(*this); }

  // --- Products ----------------------------------------------------------------------------------

  /// The exact J v for the Krylov stage solver's matrix-free products (KrylovSettings::matrix_free).
  bool has_jacobian_vector_product() const override { return true; }
  int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector v,
                              Vector Jv) override {
    return jacobian_vector_product(t, x, z, p, v, ConstVector(), Jv);
  }

  /// Jv = J v + [f_p; g_p] w (w may be empty: J v) by one forward evaluation. Sizes: v and Jv
  /// nx + nz, w np or 0. Returns 0 or a failure code (see last_failure()).
  int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector v,
                              ConstVector w, Vector Jv) {
    point_named_ = false;
    ++stats_.jacobian_vector_products;
    direction_.load(x, z, p);
    const int n = size();
    for (int j = 0; j < n; ++j) direction_.states[static_cast<std::size_t>(j)].d[0] = v[static_cast<std::size_t>(j)];
    for (std::size_t k = 0; k < w.size(); ++k) direction_.p[k].d[0] = w[k];
    ++stats_.forward_passes;
    const int code = call_model<Direction, Direction>(t, direction_.x(), direction_.z(), direction_.p, direction_.f(),
                                           direction_.g(), "J v");
    if (code != 0) return code;
    for (int i = 0; i < n; ++i) {
      const Direction& out = direction_.outputs[static_cast<std::size_t>(i)];
      if (!std::isfinite(out.v)) return record_value_failure("J v", i, t);
      if (!std::isfinite(out.d[0])) return record_derivative_failure("J v", i, ' ', -1, t);
      Jv[static_cast<std::size_t>(i)] = out.d[0];
    }
    return 0;
  }

  /// vJ = v^T J (size nx + nz) and vJp = v^T [f_p; g_p] (size np; may be empty), by the
  /// reverse sweep of the tape recorded at this point (recorded again only when t, x, z or p
  /// changed). Returns 0 or a failure code.
  int vector_jacobian_product(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector v,
                              Vector vJ, Vector vJp) {
    point_named_ = false;
    if (const int code = sweep(t, x, z, p, v); code != 0) return code;
    const int n = size();
    for (int j = 0; j < n; ++j) {
      const double a = adjoints_[static_cast<std::size_t>(j)];
      if (!std::isfinite(a)) return record_derivative_failure("v^T J", -1, 'x', j, t);
      vJ[static_cast<std::size_t>(j)] = a;
    }
    return parameter_adjoints(t, vJp);
  }

 protected:
  /// f and g of the model over T, with failures recorded. `derivative` names what is formed.
  template <class T, class P>
  int call_model(double t, std::span<const T> x, std::span<const T> z, std::span<const P> p,
                 std::span<T> f, std::span<T> g, const char* derivative) {
    char function = 'f';
    try {
      int code = model_.f(t, x, z, p, f);
      if constexpr (HasConstraints<Model>) {
        if (code == 0 && nz() > 0) {
          function = 'g';
          code = model_.g(t, x, z, p, g);
        }
      }
      if (code == 0) return 0;
      ModelFailure& r = begin_failure(ModelFailure::Kind::returned_code, derivative, t);
      r.function = function;
      r.code = code;
      return code;
    } catch (const std::exception& e) {
      ModelFailure& r = begin_failure(ModelFailure::Kind::threw, derivative, t);
      r.function = function;
      r.what = e.what();
      return -1;
    }
  }

 private:
  // The model's arguments and results over one scalar type: [x; z] and [f; g] each in one
  // array, so that column j and row i of J are states[j] and outputs[i].
  template <class T>
  struct Workspace {
    std::vector<T> states, p, outputs;
    std::size_t nx = 0;
    void resize(std::size_t nxs, std::size_t nzs, std::size_t nps) {
      nx = nxs;
      states.assign(nxs + nzs, T(0.0));
      p.assign(nps, T(0.0));
      outputs.assign(nxs + nzs, T(0.0));
    }
    std::span<const T> x() const { return {states.data(), nx}; }
    std::span<const T> z() const { return {states.data() + nx, states.size() - nx}; }
    std::span<T> f() { return {outputs.data(), nx}; }
    std::span<T> g() { return {outputs.data() + nx, outputs.size() - nx}; }
    /// Values from x, z, p, derivatives zero.
    void load(ConstVector xv, ConstVector zv, ConstVector pv) {
      for (std::size_t i = 0; i < xv.size(); ++i) states[i] = T(xv[i]);
      for (std::size_t i = 0; i < zv.size(); ++i) states[nx + i] = T(zv[i]);
      for (std::size_t i = 0; i < pv.size(); ++i) p[i] = T(pv[i]);
    }
    /// Values only: the forward workspaces keep their derivative parts zero between passes
    /// (every seed is taken back after its pass), so a pass need not clear them.
    void load_values(ConstVector xv, ConstVector zv, ConstVector pv) {
      for (std::size_t i = 0; i < xv.size(); ++i) states[i].v = xv[i];
      for (std::size_t i = 0; i < zv.size(); ++i) states[nx + i].v = zv[i];
      for (std::size_t i = 0; i < pv.size(); ++i) p[i].v = pv[i];
    }
  };

  // The workspace of W lanes: Chunk, or a narrower one for the last, partial chunk, so that
  // its evaluation carries no unused lanes (the CSTR's 2 columns, Dow's 10 = 8 + 2, a band's 3
  // colours): the cost of a forward pass grows with its number of lanes.
  template <int W>
  Workspace<Dual<W>>& lanes_workspace() {
    if constexpr (W == Chunk) return forward_;
    else if constexpr (W == 1) return lanes1_;
    else if constexpr (W == 2) return lanes2_;
    else if constexpr (W == 4) return lanes4_;
    else return lanes8_;
  }
  // fn.template operator()<pass_width(lanes)>().
  template <class Fn>
  int with_lanes(int lanes, Fn&& fn) {
    switch (pass_width(lanes)) {
      case 1: if constexpr (Chunk > 1) return fn.template operator()<1>(); break;
      case 2: if constexpr (Chunk > 2) return fn.template operator()<2>(); break;
      case 4: if constexpr (Chunk > 4) return fn.template operator()<4>(); break;
      case 8: if constexpr (Chunk > 8) return fn.template operator()<8>(); break;
      default: break;
    }
    return fn.template operator()<Chunk>();
  }
  // "1 evaluation of 4 directions", "2 evaluations: 1 of 8 directions, 1 of 2", ...
  static std::string passes_text(int columns) {
    if (columns <= 0) return "no evaluation";
    const int full = columns / Chunk, rest = columns % Chunk;
    const std::string chunk = std::to_string(Chunk), last = std::to_string(pass_width(rest));
    if (rest == 0) return std::to_string(full) + (full == 1 ? " evaluation of " : " evaluations of ") + chunk + " directions";
    if (full == 0) return "1 evaluation of " + last + (pass_width(rest) == 1 ? " direction" : " directions");
    return std::to_string(full + 1) + " evaluations: " + std::to_string(full) + " of " + chunk + " directions, 1 of " + last;
  }

  // The parameters of a pass that forms J as plain doubles when the model takes them so (p may
  // be empty: a span with a non-null data pointer says "plain"), else none.
  static ConstVector plain_parameters(ConstVector p) {
    if constexpr (TakesPlainParameters<Model>) {
      static constexpr double none = 0.0;
      return p.data() != nullptr ? p : ConstVector(&none, 0);
    } else {
      (void)p;
      return {};
    }
  }

  // The unit direction e_k over W lanes. Seeds are written as whole derivative arrays: the
  // model reads them with packed loads, and a packed load of a lane just written alone cannot
  // take it from the store buffer (a stall per seeded input that cost Dow's J a third of its
  // time).
  template <int W>
  static const std::array<double, W>& unit(int k) {
    static constexpr auto units = [] {
      std::array<std::array<double, W>, W> e{};
      for (int i = 0; i < W; ++i) e[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 1.0;
      return e;
    }();
    return units[static_cast<std::size_t>(k)];
  }

  // f and g over W lanes; the first pass of a derivative checks the values too (every pass
  // computes the same values).
  template <int W>
  int forward_pass(double t, Workspace<Dual<W>>& w, ConstVector plain_p, bool check_values, const char* derivative) {
    ++stats_.forward_passes;
    int code = 0;
    if constexpr (TakesPlainParameters<Model>) {
      code = plain_p.data() != nullptr
                 ? call_model<Dual<W>, double>(t, w.x(), w.z(), plain_p, w.f(), w.g(), derivative)
                 : call_model<Dual<W>, Dual<W>>(t, w.x(), w.z(), w.p, w.f(), w.g(), derivative);
    } else {
      code = call_model<Dual<W>, Dual<W>>(t, w.x(), w.z(), w.p, w.f(), w.g(), derivative);
    }
    if (code != 0 || !check_values) return code;
    std::uint64_t bad = 0;
    for (const Dual<W>& o : w.outputs) bad |= non_finite_bits(o.v);
    if (bad == 0) return 0;
    for (int i = 0; i < size(); ++i)
      if (!std::isfinite(w.outputs[static_cast<std::size_t>(i)].v)) return record_value_failure(derivative, i, t);
    return 0;
  }
  // The bits of a - a: all zero for a finite a (+0), those of a NaN for an infinite or NaN one.
  // ORed over the entries they say whether all are finite without a branch per entry and
  // without a chain of floating-point additions; vectorized across the lanes (the entry at
  // fault is looked for only when they are not zero).
  static std::uint64_t non_finite_bits(double a) { return std::bit_cast<std::uint64_t>(a - a); }
  template <int W>
  static void add_finite_test(const Dual<W>& o, std::array<std::uint64_t, W>& bad) {
    for (int k = 0; k < W; ++k) bad[static_cast<std::size_t>(k)] |= non_finite_bits(o.d[static_cast<std::size_t>(k)]);
  }
  template <int W>
  static bool lanes_finite(const std::array<std::uint64_t, W>& bad, int lanes) {
    std::uint64_t any = 0;
    for (int k = 0; k < lanes; ++k) any |= bad[static_cast<std::size_t>(k)];
    return any == 0;
  }

  // All columns of J (parameters false: the columns of [x; z]) or of [f_p; g_p] into out, by
  // chunks of Chunk columns and a narrower last pass.
  int dense_columns(double t, ConstVector x, ConstVector z, ConstVector p, bool parameters, MatrixRef out,
                    const char* derivative) {
    const int columns = parameters ? np() : size();
    for (int first = 0; first < columns; first += Chunk) {
      const int lanes = std::min(Chunk, columns - first);
      const int code = with_lanes(lanes, [&]<int W>() {
        return dense_pass<W>(t, x, z, p, parameters, first, lanes, out, derivative);
      });
      if (code != 0) return code;
    }
    return 0;
  }
  template <int W>
  int dense_pass(double t, ConstVector x, ConstVector z, ConstVector p, bool parameters, int first, int lanes,
                 MatrixRef out, const char* derivative) {
    Workspace<Dual<W>>& w = lanes_workspace<W>();
    w.load_values(x, z, p);
    std::vector<Dual<W>>& seeded = parameters ? w.p : w.states;
    for (int k = 0; k < lanes; ++k) seeded[static_cast<std::size_t>(first + k)].d = unit<W>(k);
    const int code = forward_pass(t, w, parameters ? ConstVector{} : plain_parameters(p), first == 0, derivative);
    for (int k = 0; k < lanes; ++k) seeded[static_cast<std::size_t>(first + k)].d = {};
    if (code != 0) return code;
    // Row by row: the W derivatives of an output are contiguous, a fixed count the compiler
    // unrolls (the columns of out are ld apart).
    const int n = size();
    const Dual<W>* outputs = w.outputs.data();
    std::array<std::uint64_t, W> sum{};
    double* block = out.column(first);
    const std::size_t ld = static_cast<std::size_t>(out.ld);
    for (int i = 0; i < n; ++i) {
      const Dual<W>& o = outputs[i];
      add_finite_test<W>(o, sum);
      if (lanes == W) {
        for (int k = 0; k < W; ++k) block[static_cast<std::size_t>(i) + static_cast<std::size_t>(k) * ld] = o.d[static_cast<std::size_t>(k)];
      } else {
        for (int k = 0; k < lanes; ++k) block[static_cast<std::size_t>(i) + static_cast<std::size_t>(k) * ld] = o.d[static_cast<std::size_t>(k)];
      }
    }
    if (lanes_finite<W>(sum, lanes)) return 0;
    for (int k = 0; k < lanes; ++k)
      for (int i = 0; i < n; ++i)
        if (!std::isfinite(out(i, first + k))) return record_derivative_failure(derivative, i, parameters ? 'p' : 'x', first + k, t);
    return 0;
  }

  // The colouring of the declared pattern (formed again if the pattern changed).
  void ensure_colouring() {
    const SparsityPattern* pattern = jacobian_structure().pattern.get();
    if (pattern == coloured_pattern_) return;
    keep_pattern_ = jacobian_structure().pattern;
    declared_colouring_.assign(size(), pattern->column_pointers(), pattern->row_indices(), colour_columns(*pattern));
    coloured_pattern_ = pattern;
  }

  int coloured_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, double* values, MatrixRef dense) {
    ensure_colouring();
    ++stats_.coloured_jacobians;
    return coloured_j(t, x, z, p, declared_colouring_, values, dense);
  }

  // J on a colouring (declared or found), with the parameters' colours along when the adjoint
  // asks for its parameter terms at J's points (parameters_ride_along).
  int coloured_j(double t, ConstVector x, ConstVector z, ConstVector p, const ColumnColouring& colouring,
                 double* values, MatrixRef dense) {
    if (j_awaits_products_) products_follow_j_ = false;  // J twice without parameter terms between
    j_awaits_products_ = false;
    bool along = parameters_ride_along(colouring);
    if (along) {  // the parameters' structure at this point (J's check may have covered it)
      if (const int code = check_structure(t, x, z, p, true, "J"); code != 0) return code;
      along = parameters_ride_along(colouring);
    }
    const int code = along ? coloured_state_and_parameter_columns(t, x, z, p, colouring, values, dense)
                           : coloured_columns(t, x, z, p, colouring, false, values, dense, "J");
    if (code != 0) return code;
    if (parameter_terms_ == ParameterTerms::automatic && colour_parameters_) {
      j_at_ = point_serial(t, x, z, p);
      j_awaits_products_ = true;
    }
    return 0;
  }

  // Coloured forward mode over the columns of J (parameters false) or of [f_p; g_p]: lane k of
  // an evaluation carries the sum of the unit directions of all columns of colour c0 + k; as no
  // two columns of a colour share a row, row i of that lane is the entry of the one column of
  // the colour that has an entry in row i. Writes the pattern's `values`, or the entries of
  // `dense` (which the caller zeroed) when `values` is null.
  int coloured_columns(double t, ConstVector x, ConstVector z, ConstVector p, const ColumnColouring& colouring,
                       bool parameters, double* values, MatrixRef dense, const char* derivative) {
    for (int c0 = 0; c0 < colouring.colours; c0 += Chunk) {
      const int lanes = std::min(Chunk, colouring.colours - c0);
      const int code = with_lanes(lanes, [&]<int W>() {
        return coloured_pass<W>(t, x, z, p, colouring, parameters, c0, lanes, values, dense, derivative);
      });
      if (code != 0) return code;
    }
    return 0;
  }
  // With `with_parameters` (J's colouring, one pass: coloured_state_and_parameter_columns),
  // the parameter columns that have entries are seeded too, in the lanes after J's colours,
  // and their entries go to parameter_values_.
  template <int W>
  int coloured_pass(double t, ConstVector x, ConstVector z, ConstVector p, const ColumnColouring& colouring,
                    bool parameters, int c0, int lanes, double* values, MatrixRef dense, const char* derivative,
                    bool with_parameters = false) {
    Workspace<Dual<W>>& w = lanes_workspace<W>();
    w.load_values(x, z, p);
    const int* ptr = colouring.column_pointers.data();
    const int* rows = colouring.rows.data();
    const int* columns = colouring.members.data();
    const int* colour = colouring.colour.data();
    const int begin = colouring.colour_pointers[static_cast<std::size_t>(c0)];
    const int end = colouring.colour_pointers[static_cast<std::size_t>(c0 + lanes)];
    Dual<W>* seeded = parameters ? w.p.data() : w.states.data();
    // The parameters' structure is found and checked at this point: a column without entries
    // has no derivative here and needs no seed (the adjoint's chain at np = 100: 20 of 100).
    const auto seed = [&](auto&& set) {
      if (parameters) {
        for (const int j : parameter_columns_with_entries_)
          if (colour[j] >= c0 && colour[j] < c0 + lanes) set(j);
      } else {
        for (int m = begin; m < end; ++m) set(columns[m]);
      }
    };
    seed([&](int j) { seeded[j].d = unit<W>(colour[j] - c0); });
    const int* parameter_colour = parameter_colouring_.colour.data();
    const int first_parameter_lane = colouring.colours;  // with_parameters: c0 == 0, one pass
    if (with_parameters)
      for (const int j : parameter_columns_with_entries_) w.p[static_cast<std::size_t>(j)].d = unit<W>(first_parameter_lane + parameter_colour[j]);
    const int code = forward_pass(t, w, parameters || with_parameters ? ConstVector{} : plain_parameters(p), c0 == 0, derivative);
    seed([&](int j) { seeded[j].d = {}; });
    if (with_parameters)
      for (const int j : parameter_columns_with_entries_) w.p[static_cast<std::size_t>(j)].d = {};
    if (code != 0) return code;
    const Dual<W>* outputs = w.outputs.data();
    if (with_parameters) {
      const int* parameter_rows = parameter_colouring_.rows.data();
      const int* parameter_lanes = parameter_colouring_.entry_lanes.data();
      const int entries = parameter_colouring_.column_pointers.back();
      std::uint64_t bad = 0;
      for (int k = 0; k < entries; ++k) {
        const double v = outputs[parameter_rows[k]].d[static_cast<std::size_t>(first_parameter_lane + parameter_lanes[k])];
        parameter_values_[static_cast<std::size_t>(k)] = v;
        bad |= non_finite_bits(v);
      }
      // Not finite: not kept (the products form them again and report the failure as theirs).
      riding_values_finite_ = bad == 0;
    }
    const bool every_colour = values != nullptr && c0 == 0 && lanes == colouring.colours;
    if (every_colour) {
      // One pass holds every colour: the pattern's entries in order, each from its column's
      // lane (no walk over the columns: most of the adjoint's parameters may have no entry).
      const int* lane_of = colouring.entry_lanes.data();
      const int entries = colouring.column_pointers.back();
      for (int k = 0; k < entries; ++k) values[k] = outputs[rows[k]].d[static_cast<std::size_t>(lane_of[k])];
    }
    for (int m = every_colour ? end : begin; m < end; ++m) {
      const int j = columns[m];
      const auto lane = static_cast<std::size_t>(colour[j] - c0);
      if (values != nullptr) {
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) values[k] = outputs[rows[k]].d[lane];
      } else {
        double* column = dense.column(j);
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) column[rows[k]] = outputs[rows[k]].d[lane];
      }
    }
    // A lane's sum may also see non-finite derivatives outside the pattern (an inf * 0 of a
    // row no column of the colour has an entry in): only the pattern's entries count.
    std::array<std::uint64_t, W> sum{};
    for (const Dual<W>& o : w.outputs) add_finite_test<W>(o, sum);
    if (lanes_finite<W>(sum, lanes)) return 0;
    for (int m = begin; m < end; ++m) {
      const int j = columns[m];
      const auto lane = static_cast<std::size_t>(colour[j] - c0);
      for (int k = ptr[j]; k < ptr[j + 1]; ++k)
        if (!std::isfinite(outputs[rows[k]].d[lane]))
          return record_derivative_failure(derivative, rows[k], parameters ? 'p' : 'x', j, t);
    }
    return 0;
  }

  // The adjoint asks for J and then for the parameter terms at each stage point. When it did so
  // at the last point, the found colourings of both are in use, and the parameters' colours fit
  // in the lanes J's pass leaves unused (the chain of bench_adjoint_parameters: 3 colours of J
  // in a pass of 4 lanes, 1 colour of [f_p; g_p]), J's pass carries them too: one evaluation
  // at the point instead of two. Every lane is computed on its own, so J and the entries of
  // [f_p; g_p] are the same bits as from two passes. Not for a model with plain parameters
  // (its J passes take p as double).
  bool parameters_ride_along(const ColumnColouring& states) const {
    if constexpr (TakesPlainParameters<Model>) {
      (void)states;
      return false;
    } else {
      return products_follow_j_ && parameter_terms_ == ParameterTerms::automatic && colour_parameters_ &&
             states.colours <= Chunk && states.colours + parameter_colouring_.colours <= pass_width(states.colours);
    }
  }
  int coloured_state_and_parameter_columns(double t, ConstVector x, ConstVector z, ConstVector p,
                                           const ColumnColouring& states, double* values, MatrixRef dense) {
    parameter_values_valid_ = false;
    ++stats_.parameter_jacobians;
    const int code = with_lanes(states.colours, [&]<int W>() {
      return coloured_pass<W>(t, x, z, p, states, false, 0, states.colours, values, dense, "J", true);
    });
    if (code != 0 || !riding_values_finite_) return code;
    parameter_values_at_ = point_serial(t, x, z, p);
    parameter_values_valid_ = true;
    return 0;
  }


  // --- The structure found automatically --------------------------------------------------------
  //
  // known_ holds, for every output, the union of the inputs of [x; z; p] (one bit each, blocks
  // of 64) that it depended on at the points evaluated so far. The columns of J and of
  // [f_p; g_p] are coloured on it, and a block is formed by its colouring when that takes
  // fewer lanes than the chunks of all its columns. A model may branch on values (min, max, a
  // piecewise law), so a structure found at one point need not hold at the next: while a
  // colouring is in use, every new point is evaluated over Dependency first (cheap: one value
  // and one 64-bit set per operation), and a dependency outside known_ widens it and colours
  // anew (the only allocation, at such points only). A dense block needs no check.

  // The lanes the forward passes over `columns` columns (or colours) evaluate: full chunks and
  // the narrower last pass.
  static constexpr int structure_pass_lanes = 4;
  static constexpr int lane_cost(int columns) {
    const int rest = columns % Chunk;
    return columns - rest + (rest > 0 ? pass_width(rest) : 0);
  }

  void forget_structure() {
    std::fill(known_.begin(), known_.end(), 0);
    structure_known_ = parameter_values_valid_ = false;
    checked_at_ = -1;
    colour_states_ = colour_parameters_ = false;
    state_colouring_ = ColumnColouring{};
    parameter_colouring_ = ColumnColouring{};
  }

  // Finds the dependencies at (t, x, z, p) when the colouring of the block asked for (J or
  // [f_p; g_p]) is in use or nothing is known yet, and colours anew if they widen known_.
  // Blocks already checked at this point are not evaluated again (J and [f_p; g_p] at the same
  // point, as the sensitivities and the adjoint ask for them), and one evaluation covers
  // words_ blocks.
  int check_structure(double t, ConstVector x, ConstVector z, ConstVector p, bool parameters, const char* derivative) {
    if constexpr (!DetectsStructure<Model>) {
      return 0;
    } else {
      if (detection_ == StructureDetection::off) return 0;
      if (structure_known_ && !(parameters ? colour_parameters_ : colour_states_)) return 0;
      // The blocks of the columns asked for (all of them the first time): J's checks need not
      // evaluate the parameter blocks, nor the parameters' the state blocks.
      const int n = size();
      const int first = !structure_known_ ? 0 : parameters ? n / 64 : 0;
      const int last = !structure_known_ ? blocks_ : parameters ? blocks_ : (n - 1) / 64 + 1;
      if (const long here = point_serial(t, x, z, p); checked_at_ != here) {
        std::fill(checked_.begin(), checked_.end(), 0);
        checked_at_ = here;
      }
      bool wider = !structure_known_;
      for (int b = first; b < last; ++b) {
        if (checked_[static_cast<std::size_t>(b)] != 0) continue;
        const int code = words_ == 1   ? dependency_pass<1>(t, x, z, p, b, derivative)
                         : words_ == 2 ? dependency_pass<2>(t, x, z, p, b, derivative)
                                       : dependency_pass<4>(t, x, z, p, b, derivative);
        if (code != 0) return code;
        const int end = std::min(b + words_, blocks_);
        for (int c = b; c < end; ++c) {
          for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i * blocks_ + c);
            wider = wider || (found_[k] & ~known_[k]) != 0;
            known_[k] |= found_[k];
          }
          checked_[static_cast<std::size_t>(c)] = 1;
        }
        b = end - 1;
      }
      if (wider) colour_found_structure();
      structure_known_ = true;
      return 0;
    }
  }

  // One evaluation over BasicDependency<W>: the dependencies on the inputs of blocks
  // [b0, b0 + W) (input k of [x; z; p] is bit k % 64 of word k / 64 - b0) into found_.
  template <int W>
  int dependency_pass(double t, ConstVector x, ConstVector z, ConstVector p, int b0, const char* derivative) {
    using D = BasicDependency<W>;
    Workspace<D>& w = dependency_workspace<W>();
    const auto set = [b0](int k) {
      typename D::Set s{};
      const int word = k / 64 - b0;
      if (word >= 0 && word < W) s[static_cast<std::size_t>(word)] = std::uint64_t{1} << (k % 64);
      return s;
    };
    const int n = size(), states_x = nx();
    if (dependency_sets_of_ != b0) {  // the inputs' sets stay (the model only reads them)
      for (std::size_t i = 0; i < x.size(); ++i) w.states[i].inputs = set(static_cast<int>(i));
      for (std::size_t i = 0; i < z.size(); ++i) w.states[x.size() + i].inputs = set(states_x + static_cast<int>(i));
      for (std::size_t i = 0; i < p.size(); ++i) w.p[i].inputs = set(n + static_cast<int>(i));
      dependency_sets_of_ = b0;
    }
    for (std::size_t i = 0; i < x.size(); ++i) w.states[i].v = x[i];
    for (std::size_t i = 0; i < z.size(); ++i) w.states[x.size() + i].v = z[i];
    for (std::size_t i = 0; i < p.size(); ++i) w.p[i].v = p[i];
    ++stats_.structure_passes;
    const int code = call_model<D, D>(t, w.x(), w.z(), w.p, w.f(), w.g(), derivative);
    if (code != 0) return code;
    const int words = std::min(W, blocks_ - b0);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < words; ++c)
        found_[static_cast<std::size_t>(i * blocks_ + b0 + c)] = w.outputs[static_cast<std::size_t>(i)].inputs[static_cast<std::size_t>(c)];
    return 0;
  }
  template <int W>
  Workspace<BasicDependency<W>>& dependency_workspace() {
    if constexpr (W == 1) return dependency1_;
    else if constexpr (W == 2) return dependency2_;
    else return dependency4_;
  }
  // The evaluations over Dependency a check of every block takes.
  int structure_evaluations() const { return (blocks_ + words_ - 1) / words_; }

  // Colours the columns of J and of [f_p; g_p] on known_.
  void colour_found_structure() {
    ++stats_.structure_updates;
    const int n = size();
    std::vector<int> pointers, rows;
    const auto colour_block = [&](int first, int columns, ColumnColouring& colouring) {
      pointers.assign(1, 0);
      rows.clear();
      for (int j = first; j < first + columns; ++j) {
        const std::uint64_t mask = std::uint64_t{1} << (j % 64);
        for (int i = 0; i < n; ++i)
          if ((known_[static_cast<std::size_t>(i * blocks_ + j / 64)] & mask) != 0) rows.push_back(i);
        pointers.push_back(static_cast<int>(rows.size()));
      }
      colouring.assign(n, pointers, rows);
    };
    colour_block(0, n, state_colouring_);
    colour_block(n, np(), parameter_colouring_);
    parameter_values_.assign(parameter_colouring_.rows.size(), 0.0);
    parameter_columns_with_entries_.clear();
    for (int j = 0; j < np(); ++j)
      if (parameter_colouring_.column_pointers[static_cast<std::size_t>(j) + 1] >
          parameter_colouring_.column_pointers[static_cast<std::size_t>(j)])
        parameter_columns_with_entries_.push_back(j);
    parameter_values_valid_ = false;
    // A structure pass (at every new point while a colouring is in use) costs about as much
    // as 4 lanes of a forward pass (Dow: 24 ns against 43 ns for 8 lanes, bench/ad): colour
    // only where that still saves lanes.
    const int check = structure_pass_lanes * structure_evaluations();
    colour_states_ = lane_cost(state_colouring_.colours) + check < lane_cost(n);
    colour_parameters_ = lane_cost(parameter_colouring_.colours) + check < lane_cost(np());
  }

  // "forward-mode AD (2 evaluations: ...)" or, with the colouring found, "coloured forward-mode
  // AD on the structure found automatically (6 colours of 10 columns, ...)".
  std::string found_text(bool coloured, const ColumnColouring& colouring, int columns, const char* what) const {
    if (!coloured) return "forward-mode AD (" + passes_text(columns) + ")";
    return "coloured forward-mode AD on the structure found automatically (" + std::to_string(colouring.colours) +
           " colours of " + std::to_string(columns) + " " + what + ", " + passes_text(colouring.colours) +
           "; checked at every new point by " + std::to_string(structure_evaluations()) +
           (structure_evaluations() == 1 ? " evaluation" : " evaluations") + " over Dependency)";
  }

  // Bitwise: a point that compares equal but differs in its bits (0.0 and -0.0) is merely
  // formed again, and memcmp is one vectorized pass where == took a branch per double (the
  // adjoint compares every stage point, p included, several times).
  static bool same_bits(ConstVector a, const double* b) {
    return a.empty() || std::memcmp(a.data(), b, a.size_bytes()) == 0;
  }
  static bool same_point(const std::vector<double>& point, double t, ConstVector x, ConstVector z, ConstVector p) {
    const double* q = point.data();
    return q[0] == t && same_bits(x, q + 1) && same_bits(z, q + 1 + x.size()) &&
           same_bits(p, q + 1 + x.size() + z.size());
  }
  static void remember_point(std::vector<double>& point, double t, ConstVector x, ConstVector z, ConstVector p) {
    point[0] = t;
    std::copy(x.begin(), x.end(), point.begin() + 1);
    std::copy(z.begin(), z.end(), point.begin() + 1 + static_cast<std::ptrdiff_t>(x.size()));
    std::copy(p.begin(), p.end(), point.begin() + 1 + static_cast<std::ptrdiff_t>(x.size() + z.size()));
  }
  // The serial number of the point (t, x, z, p) of this call among the distinct points seen
  // (bitwise, as same_point): what the caches below keep instead of a copy of their point
  // (the structure checked, the entries of [f_p; g_p] of J's pass, J's point for the parameter
  // terms after it, the tape). Compared with the last point once per call, and only by calls
  // that consult a cache (every public entry clears point_named_): the adjoint's stage point
  // costs one copy and one comparison where it took three of each.
  long point_serial(double t, ConstVector x, ConstVector z, ConstVector p) {
    if (point_named_) return point_serial_;
    if (point_serial_ == 0 || !same_point(point_, t, x, z, p)) {
      remember_point(point_, t, x, z, p);
      ++point_serial_;
    }
    point_named_ = true;
    return point_serial_;
  }

  // The entries of [f_p; g_p] on the found pattern at (t, x, z, p), by coloured forward mode,
  // kept for the point: the adjoint asks for a product per adjoint column at each stage point.
  int compressed_parameter_columns(double t, ConstVector x, ConstVector z, ConstVector p) {
    if (parameter_values_valid_ && parameter_values_at_ == point_serial(t, x, z, p)) return 0;
    parameter_values_valid_ = false;
    if (const int code = check_structure(t, x, z, p, true, "w^T [f_p; g_p]"); code != 0) return code;
    if (!colour_parameters_) return 0;
    ++stats_.parameter_jacobians;
    const int code = coloured_columns(t, x, z, p, parameter_colouring_, true, parameter_values_.data(), MatrixRef{},
                                      "w^T [f_p; g_p]");
    if (code != 0 || !riding_values_finite_) return code;
    parameter_values_at_ = point_serial(t, x, z, p);
    parameter_values_valid_ = true;
    return 0;
  }
  // out = [f_p; g_p]^T w over the pattern's entries.
  // Column by column over the entries of the parameters that have any (the others are 0);
  // each sum in the order of its entries, as before.
  int parameter_products(ConstVector w, Vector out) {
    const int* ptr = parameter_colouring_.column_pointers.data();
    const int* rows = parameter_colouring_.rows.data();
    const double* values = parameter_values_.data();
    std::fill(out.begin(), out.end(), 0.0);
    for (const int j : parameter_columns_with_entries_) {
      double sum = 0.0;
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) sum += w[static_cast<std::size_t>(rows[k])] * values[k];
      out[static_cast<std::size_t>(j)] = sum;
    }
    return 0;
  }

  // Records f and g on the tape at (t, x, z, p) unless that is the point recorded last, then
  // sweeps it with the weights v of the outputs: adjoints_ holds v^T d[f; g]/d[x; z; p].
  int sweep(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector v) {
    if (const int code = record(t, x, z, p); code != 0) return code;
    ++stats_.vector_jacobian_products;
    std::fill(adjoints_.begin(), adjoints_.begin() + tape_.size(), 0.0);
    for (int i = 0; i < size(); ++i) {
      const int node = reverse_.outputs[static_cast<std::size_t>(i)].index;
      if (node >= 0) adjoints_[static_cast<std::size_t>(node)] += v[static_cast<std::size_t>(i)];
    }
    tape_.sweep({adjoints_.data(), static_cast<std::size_t>(tape_.size())});
    return 0;
  }

  int parameter_adjoints(double t, Vector vJp) {
    const auto first = static_cast<std::size_t>(size());
    for (std::size_t k = 0; k < vJp.size(); ++k) {
      const double a = adjoints_[first + k];
      if (!std::isfinite(a)) return record_derivative_failure("v^T [f_p; g_p]", -1, 'p', static_cast<int>(k), t);
      vJp[k] = a;
    }
    return 0;
  }

  int record(double t, ConstVector x, ConstVector z, ConstVector p) {
    if (tape_valid_ && tape_at_ == point_serial(t, x, z, p)) return 0;
    tape_valid_ = false;
    ++stats_.tape_recordings;
    tape_.clear();
    int code = 0;
    {
      Tape::Recording recording(tape_);
      for (std::size_t i = 0; i < x.size(); ++i) reverse_.states[i] = Var::input(x[i]);
      for (std::size_t i = 0; i < z.size(); ++i) reverse_.states[x.size() + i] = Var::input(z[i]);
      for (std::size_t i = 0; i < p.size(); ++i) reverse_.p[i] = Var::input(p[i]);
      code = call_model<Var, Var>(t, reverse_.x(), reverse_.z(), reverse_.p, reverse_.f(), reverse_.g(), "v^T J");
    }
    if (code != 0) return code;
    for (int i = 0; i < size(); ++i)
      if (!std::isfinite(reverse_.outputs[static_cast<std::size_t>(i)].v)) return record_value_failure("v^T J", i, t);
    if (adjoints_.size() < tape_.capacity()) adjoints_.resize(tape_.capacity());
    tape_at_ = point_serial(t, x, z, p);
    tape_valid_ = true;
    return 0;
  }

  ModelFailure& begin_failure(ModelFailure::Kind kind, const char* derivative, double t) {
    ++stats_.failures;
    failure_.kind = kind;
    failure_.derivative = derivative;
    failure_.t = t;
    failure_.row = failure_.column = -1;
    failure_.argument = ' ';
    failure_.code = 0;
    failure_.what.clear();
    return failure_;
  }
  int record_value_failure(const char* derivative, int row, double t) {
    ModelFailure& r = begin_failure(ModelFailure::Kind::value_not_finite, derivative, t);
    r.function = row < nx() ? 'f' : 'g';
    r.row = row;
    return 1;
  }
  int record_derivative_failure(const char* derivative, int row, char argument, int column, double t) {
    ModelFailure& r = begin_failure(ModelFailure::Kind::derivative_not_finite, derivative, t);
    r.function = row < nx() ? 'f' : 'g';
    r.row = row;
    r.argument = argument;
    r.column = column;
    return 1;
  }

  Model model_;
  ParameterTerms parameter_terms_ = ParameterTerms::automatic;
  AdStatistics stats_;
  ModelFailure failure_;
  Workspace<Forward> forward_;
  // The narrower workspaces of a last, partial chunk (sized only when narrower than Chunk).
  Workspace<Dual<1>> lanes1_;
  Workspace<Dual<2>> lanes2_;
  Workspace<Dual<4>> lanes4_;
  Workspace<Dual<8>> lanes8_;
  Workspace<Direction> direction_;
  Workspace<Var> reverse_;
  // Colouring of the declared pattern (coloured_pattern_ is the one coloured).
  std::shared_ptr<const SparsityPattern> keep_pattern_;
  const SparsityPattern* coloured_pattern_ = nullptr;
  ColumnColouring declared_colouring_;
  // The structure found automatically (check_structure).
  StructureDetection detection_ = StructureDetection::automatic;
  // Sets of 1, 2 or 4 words (64, 128, 256 inputs): one evaluation checks words_ blocks (only
  // the workspace of words_ is sized).
  Workspace<BasicDependency<1>> dependency1_;
  Workspace<BasicDependency<2>> dependency2_;
  Workspace<BasicDependency<4>> dependency4_;
  int blocks_ = 0, words_ = 1;
  int dependency_sets_of_ = -1;  // the first block whose input sets the workspace holds
  std::vector<std::uint64_t> known_, found_;  // output i, block b: [i * blocks_ + b]
  bool structure_known_ = false;
  // The point of the last call that consulted a cache, its serial number (0: none yet), and
  // whether this call has named its point (point_serial()).
  std::vector<double> point_;
  long point_serial_ = 0;
  bool point_named_ = false;
  // The point checked last and which of its blocks were (J's and [f_p; g_p]'s checks share it).
  long checked_at_ = -1;
  std::vector<char> checked_;
  ColumnColouring state_colouring_, parameter_colouring_;
  bool colour_states_ = false, colour_parameters_ = false;
  // The entries of [f_p; g_p] on the found pattern at one point (parameter_vjp).
  std::vector<double> parameter_values_;
  long parameter_values_at_ = -1;
  std::vector<int> parameter_columns_with_entries_;
  bool parameter_values_valid_ = false;
  // J was formed last and no parameter terms were asked since; the parameter terms were asked
  // at the point of the J before them (parameters_ride_along()).
  bool j_awaits_products_ = false, products_follow_j_ = false;
  long j_at_ = -1;  // the point of that J
  bool riding_values_finite_ = true;  // the entries of [f_p; g_p] J's last pass carried
  // The tape of the last recorded point.
  Tape tape_;
  long tape_at_ = -1;
  bool tape_valid_ = false;
  std::vector<double> adjoints_;
};

/// The g of a model without algebraic equations.
struct NoConstraints {
  template <class... Args>
  int operator()(Args&&...) const {
    return 0;
  }
};

/// A model made of two generic callables (the lambdas of FunctionProblem, with `auto`
/// arguments), called with spans of T.
template <class F, class G = NoConstraints>
struct FunctionModel {
  F rhs;
  G constraints;
  template <class T>
  int f(double t, std::span<const T> x, std::span<const T> z, std::span<const T> p, std::span<T> out) {
    return rhs(t, x, z, p, out);
  }
  template <class T>
  int g(double t, std::span<const T> x, std::span<const T> z, std::span<const T> p, std::span<T> out) {
    return constraints(t, x, z, p, out);
  }
};

/// FunctionProblem's lambdas, differentiated: replace esdirk::FunctionProblem by
/// esdirk::ad::FunctionProblem and keep the generic lambdas (`auto` arguments, `using std::exp`
/// for the math functions):
///
///     esdirk::ad::FunctionProblem problem(2, 0, 1,
///         [](double t, auto x, auto z, auto p, auto f) { f[0] = x[1]; ...; return 0; });
template <class F, class G = NoConstraints, int Chunk = 8>
class FunctionProblem : public ModelProblem<FunctionModel<F, G>, Chunk> {
 public:
  /// `g` may be omitted only when nz = 0.
  FunctionProblem(int nx, int nz, int np, F f, G g = G{})
      : ModelProblem<FunctionModel<F, G>, Chunk>(nx, nz, np, FunctionModel<F, G>{std::move(f), std::move(g)}) {
    if (nz > 0 && std::is_same_v<G, NoConstraints>)
      throw std::invalid_argument("ad::FunctionProblem: nz > 0 but g is missing");
  }
};

}  // namespace esdirk::ad
