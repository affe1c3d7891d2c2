#pragma once
// A HybridProblem from a hybrid model written once as templates over the scalar type: the
// dynamics of each mode, the event functions, the transition (successor mode and reset of x)
// and the parameter reset; every Jacobian the hybrid solver, its forward sensitivities and the
// hybrid adjoint ask for is exact, by forward-mode AD (doc/ad-guide.md, "Hybrid models"):
//
//     struct Model {
//       template <class T>   // x' = f_mode(t, x, z, p, mem)
//       int f(int mode, double t, std::span<const T> x, std::span<const T> z, std::span<const T> p,
//             std::span<const T> mem, std::span<T> f) const;
//       template <class T>   // 0 = g_mode(...); only needed when nz > 0; t may be T
//       int g(int mode, double t, ..., std::span<T> g) const;    // (then g_t is exact)
//       template <class T>   // h_mode(t, x, z, p, mem); only needed when ne > 0
//       int events(int mode, T t, ..., std::span<T> h) const;
//       template <class T>   // next mode and x+ = phi(t, x-, z-, p, mem); x_plus holds x- on
//       int transition(int mode, const esdirk::TransitionCause& cause, T t, ...,   // entry
//                      int& next_mode, std::span<T> x_plus) const;                  // (optional)
//       template <class T>   // p+ = psi(t, x-, z-, p-, mem); p_plus holds p- on entry
//       int reset_parameters(int mode, const esdirk::TransitionCause& cause, T t, ...,
//                            std::span<T> p_plus) const;                            // (optional)
//       bool has_mode(int mode) const;                                              // (optional)
//     };
//     esdirk::ad::HybridModelProblem<Model> problem(nx, nz, np, ne, memory);
//
// The signatures and codes are HybridProblem's with double replaced by T; events, transition
// and reset_parameters take t as T, since their Jacobians have a t column ([h_t h_x h_z h_p
// h_mem], [phi_t ...], [psi_t ...]). `mem` is empty without memory. Which is formed how:
//   J = [f_x f_z; g_x g_z]          forward mode, chunks of Chunk columns (a declared band or
//                                   pattern gets the same values, gathered from J)
//   [f_p f_mem; g_p g_mem]          forward mode over the np + memory columns
//   event_jacobian row k            forward mode over [t, x, z, p, mem], component k kept
//   reset_jacobian D                forward mode over [t, x, z, p, mem] through transition()
//   parameter_reset_jacobian E      forward mode through reset_parameters()
//   constraint_time_derivative g_t  forward mode over t, when g takes t as T
// No Jacobian is formed by finite differences (g_t is, by the events module, when g takes a
// double t). A failure (a nonzero code, a value or
// derivative that is not finite, an exception) is returned as a code (the model's, 1, or -1)
// and described by last_failure().

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "esdirk/ad/dual.hpp"
#include "esdirk/ad/forward_jacobian.hpp"
#include "esdirk/events/hybrid_problem.hpp"

namespace esdirk::ad {

namespace hybrid_detail {
using In = std::span<const double>;
using Out = std::span<double>;
}  // namespace hybrid_detail

/// True if the hybrid model has the templated constraints g (checked for T = double).
template <class Model>
concept HybridHasConstraints = requires(Model& m, hybrid_detail::In in, hybrid_detail::Out out) {
  { m.g(0, 0.0, in, in, in, in, out) };
};
/// True if the model's g takes t as its scalar type (`T t` or a template of its own), so that
/// g_t comes from one forward pass over t (checked for Dual<1>).
template <class Model>
concept HybridConstraintsReadTime = requires(Model& m, std::span<const Dual<1>> in, std::span<Dual<1>> out) {
  { m.g(0, Dual<1>{}, in, in, in, in, out) };
};
template <class Model>
concept HybridHasEvents = requires(Model& m, hybrid_detail::In in, hybrid_detail::Out out) {
  { m.events(0, 0.0, in, in, in, in, out) };
};
template <class Model>
concept HybridHasTransition = requires(Model& m, const TransitionCause& c, hybrid_detail::In in,
                                       hybrid_detail::Out out, int& mode) {
  { m.transition(0, c, 0.0, in, in, in, in, mode, out) };
};
template <class Model>
concept HybridHasParameterReset = requires(Model& m, const TransitionCause& c, hybrid_detail::In in,
                                           hybrid_detail::Out out) {
  { m.reset_parameters(0, c, 0.0, in, in, in, in, out) };
};
template <class Model>
concept HybridHasModes = requires(const Model& m) {
  { m.has_mode(0) } -> std::convertible_to<bool>;
};

/// What went wrong in the last failed call of a HybridModelProblem.
struct HybridModelFailure {
  const char* function = "";  ///< "f/g", "events", "transition", "reset_parameters"
  const char* formed = "";    ///< "J", "[f_p f_mem; g_p g_mem]", "event Jacobian", ... or "value"
  int code = 0;               ///< the code returned (the model's, 1 non-finite, -1 exception)
  int row = -1;               ///< the output row at fault (-1: none)
  int column = -1;            ///< the input column of [t, x, z, p, mem] at fault (-1: the value)
  double t = 0.0;
  std::string what;           ///< the exception's message, if one was thrown
  /// One sentence, e.g. "the derivative of transition's output 1 with respect to input 4 of
  /// [t, x, z, p, mem] is not finite at t = 0.5 (forming the reset Jacobian)".
  std::string describe() const {
    std::string s;
    if (!what.empty())
      s = "the model's " + std::string(function) + " threw '" + what + "'";
    else if (row < 0)
      s = "the model's " + std::string(function) + " returned " + std::to_string(code);
    else if (column < 0)
      s = "the model's " + std::string(function) + " output " + std::to_string(row) + " is not finite";
    else
      s = "the derivative of the model's " + std::string(function) + " output " + std::to_string(row) +
          " with respect to input " + std::to_string(column) + " of [t, x, z, p, mem] is not finite";
    return s + " at t = " + std::to_string(t) + " (forming " + formed + ")";
  }
};

template <class Model, int Chunk = 8>
class HybridModelProblem : public HybridProblem {
 public:
  /// Throws std::invalid_argument as HybridProblem does, and if nz > 0 without g or ne > 0
  /// without events in the model.
  HybridModelProblem(int nx, int nz, int np, int n_events, bool memory = false, Model model = Model{})
      : HybridProblem(nx, nz, np, n_events, memory),
        model_(std::move(model)),
        inputs_(1 + nx + nz + np + (memory ? nx + nz : 0)),
        jacobians_(inputs_, std::max({nx + nz, n_events, np, 1})),
        point_(static_cast<std::size_t>(inputs_)),
        scratch_(static_cast<std::size_t>(std::max(n_events, 1) * inputs_)) {
    if (nz > 0 && !HybridHasConstraints<Model>)
      throw std::invalid_argument("ad::HybridModelProblem: nz > 0 but the model has no g");
    if (n_events > 0 && !HybridHasEvents<Model>)
      throw std::invalid_argument("ad::HybridModelProblem: ne > 0 but the model has no events");
  }

  Model& model() { return model_; }
  const Model& model() const { return model_; }
  const HybridModelFailure& last_failure() const { return failure_; }

  bool has_mode(int mode) const override {
    if constexpr (HybridHasModes<Model>) return model_.has_mode(mode);
    else return true;
  }

  // --- Dynamics ---------------------------------------------------------------------------------
  int evaluate(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory, Vector f,
               Vector g) override {
    const int code = guarded("f/g", "value", t, [&] { return dynamics<double>(mode, t, x, z, p, memory, f, g); });
    if (code != 0) return code;
    for (std::size_t i = 0; i < f.size(); ++i)
      if (!std::isfinite(f[i])) return value_failure("f/g", "value", static_cast<int>(i), t);
    for (std::size_t i = 0; i < g.size(); ++i)
      if (!std::isfinite(g[i])) return value_failure("f/g", "value", nx() + static_cast<int>(i), t);
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
               MatrixRef J) override {
    return dynamics_columns(mode, t, x, z, p, memory, 1, nx() + nz(), J, "J");
  }
  /// g_t exactly (forward mode over t) when g takes t as T; otherwise the events module
  /// differences g in t (a g with `double t` may depend on t in ways AD cannot see).
  bool has_constraint_time_derivative() const override { return HybridConstraintsReadTime<Model>; }
  int constraint_time_derivative(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                                 ConstVector memory, Vector g_t) override {
    if constexpr (HybridConstraintsReadTime<Model>) {
      const auto in = [](ConstVector v, std::vector<Dual<1>>& to) {
        to.assign(v.begin(), v.end());  // sized at the first call, kept
        return std::span<const Dual<1>>(to);
      };
      time_out_.resize(static_cast<std::size_t>(nz()));
      const Dual<1> tt(t, {1.0});
      const int code = guarded("f/g", "g_t", t, [&] {
        return model_.g(mode, tt, in(x, time_x_), in(z, time_z_), in(p, time_p_), in(memory, time_m_),
                        std::span<Dual<1>>(time_out_));
      });
      if (code != 0) return code;
      for (std::size_t i = 0; i < g_t.size(); ++i) {
        g_t[i] = time_out_[i].d[0];
        if (!std::isfinite(g_t[i]) || !std::isfinite(time_out_[i].v)) {
          begin_failure("f/g", "g_t", t, 1).row = nx() + static_cast<int>(i);
          failure_.column = 0;
          return 1;
        }
      }
      return 0;
    } else {
      return HybridProblem::constraint_time_derivative(mode, t, x, z, p, memory, g_t);
    }
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
                         MatrixRef Jp) override {
    return dynamics_columns(mode, t, x, z, p, memory, 1 + nx() + nz(), np() + memory_size(), Jp,
                            "[f_p f_mem; g_p g_mem]");
  }
  bool has_sparse_jacobian() const override { return jacobian_structure().pattern != nullptr; }
  /// The declared pattern's values, gathered from the dense J (formed in a workspace sized at
  /// the first call).
  int sparse_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
                      SparseMatrixRef J) override {
    const int n = nx() + nz();
    dense_.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    const int code = jacobian(mode, t, x, z, p, memory, {dense_.data(), n, n, n});
    if (code != 0) return code;
    const int* pointers = J.column_pointers();
    const int* rows = J.row_indices();
    for (int j = 0; j < n; ++j)
      for (int k = pointers[j]; k < pointers[j + 1]; ++k)
        J.values[k] = dense_[static_cast<std::size_t>(rows[k]) + static_cast<std::size_t>(j) * static_cast<std::size_t>(n)];
    return 0;
  }

  // --- Events -----------------------------------------------------------------------------------
  int events(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
             Vector h) override {
    if constexpr (HybridHasEvents<Model>) {
      const int code = guarded("events", "value", t, [&] { return model_.events(mode, t, x, z, p, memory, h); });
      if (code != 0) return code;
      for (std::size_t i = 0; i < h.size(); ++i)
        if (!std::isfinite(h[i])) return value_failure("events", "value", static_cast<int>(i), t);
      return 0;
    } else {
      return HybridProblem::events(mode, t, x, z, p, memory, h);
    }
  }
  bool has_event_jacobian() const override { return event_count() > 0 && HybridHasEvents<Model>; }
  int event_jacobian(int mode, int k, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
                     Vector row) override {
    if constexpr (HybridHasEvents<Model>) {
      const int ne = event_count();
      MatrixRef D{scratch_.data(), ne, inputs_, ne};
      const int code = all_columns("events", "the event Jacobian", t, x, z, p, memory, ne, D, [&](auto u, auto out) {
        const auto [tt, xs, zs, ps, ms] = split(u);
        return model_.events(mode, tt, xs, zs, ps, ms, out);
      });
      if (code != 0) return code;
      for (int j = 0; j < inputs_; ++j) row[static_cast<std::size_t>(j)] = D(k, j);
      return 0;
    } else {
      return HybridProblem::event_jacobian(mode, k, t, x, z, p, memory, row);
    }
  }

  // --- Transitions ------------------------------------------------------------------------------
  int transition(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p,
                 ConstVector memory, int& next_mode, Vector x_plus) override {
    if constexpr (HybridHasTransition<Model>) {
      const int code = guarded("transition", "value", t, [&] {
        return model_.transition(mode, cause, t, x, z, p, memory, next_mode, x_plus);
      });
      if (code != 0) return code;
      for (std::size_t i = 0; i < x_plus.size(); ++i)
        if (!std::isfinite(x_plus[i])) return value_failure("transition", "value", static_cast<int>(i), t);
      return 0;
    } else {
      return HybridProblem::transition(mode, cause, t, x, z, p, memory, next_mode, x_plus);
    }
  }
  bool has_reset_jacobian() const override { return true; }
  int reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                     ConstVector p, ConstVector memory, MatrixRef D) override {
    return all_columns("transition", "the reset Jacobian", t, x, z, p, memory, nx(), D, [&](auto u, auto out) {
      const auto [tt, xs, zs, ps, ms] = split(u);
      std::copy(xs.begin(), xs.end(), out.begin());  // x_plus holds x- on entry
      if constexpr (HybridHasTransition<Model>) {
        int next_mode = mode;
        return model_.transition(mode, cause, tt, xs, zs, ps, ms, next_mode, out);
      } else {
        (void)tt, (void)zs, (void)ps, (void)ms;
        return 0;
      }
    });
  }

  bool has_parameter_reset() const override { return HybridHasParameterReset<Model> && np() > 0; }
  int reset_parameters(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                       ConstVector p, ConstVector memory, Vector p_plus) override {
    if constexpr (HybridHasParameterReset<Model>) {
      const int code = guarded("reset_parameters", "value", t, [&] {
        return model_.reset_parameters(mode, cause, t, x, z, p, memory, p_plus);
      });
      if (code != 0) return code;
      for (std::size_t i = 0; i < p_plus.size(); ++i)
        if (!std::isfinite(p_plus[i])) return value_failure("reset_parameters", "value", static_cast<int>(i), t);
      return 0;
    } else {
      return HybridProblem::reset_parameters(mode, cause, t, x, z, p, memory, p_plus);
    }
  }
  bool has_parameter_reset_jacobian() const override { return has_parameter_reset(); }
  int parameter_reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                               ConstVector p, ConstVector memory, MatrixRef E) override {
    if constexpr (HybridHasParameterReset<Model>) {
      return all_columns("reset_parameters", "the parameter reset Jacobian", t, x, z, p, memory, np(), E,
                         [&](auto u, auto out) {
                           const auto [tt, xs, zs, ps, ms] = split(u);
                           std::copy(ps.begin(), ps.end(), out.begin());  // p_plus holds p- on entry
                           return model_.reset_parameters(mode, cause, tt, xs, zs, ps, ms, out);
                         });
    } else {
      return HybridProblem::parameter_reset_jacobian(mode, cause, t, x, z, p, memory, E);
    }
  }

 private:
  // The model's f and g over T (g only when nz > 0).
  template <class T>
  int dynamics(int mode, double t, std::span<const T> x, std::span<const T> z, std::span<const T> p,
               std::span<const T> memory, std::span<T> f, std::span<T> g) {
    int code = model_.f(mode, t, x, z, p, memory, f);
    if constexpr (HybridHasConstraints<Model>) {
      if (code == 0 && nz() > 0) {
        // A g written with `T t` cannot take a double t beside T states: t as a constant T.
        if constexpr (requires { model_.g(mode, t, x, z, p, memory, g); })
          code = model_.g(mode, t, x, z, p, memory, g);
        else
          code = model_.g(mode, T(t), x, z, p, memory, g);
      }
    }
    return code;
  }

  // [t, x, z, p, mem] of one flat input vector, as the model's arguments.
  template <class T>
  auto split(std::span<const T> u) const {
    const auto nxs = static_cast<std::size_t>(nx()), nzs = static_cast<std::size_t>(nz()),
               nps = static_cast<std::size_t>(np()), nms = static_cast<std::size_t>(memory_size());
    return std::tuple<T, std::span<const T>, std::span<const T>, std::span<const T>, std::span<const T>>(
        u[0], u.subspan(1, nxs), u.subspan(1 + nxs, nzs), u.subspan(1 + nxs + nzs, nps),
        u.subspan(1 + nxs + nzs + nps, nms));
  }
  void load_point(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory) {
    auto at = point_.begin();
    *at++ = t;
    at = std::copy(x.begin(), x.end(), at);
    at = std::copy(z.begin(), z.end(), at);
    at = std::copy(p.begin(), p.end(), at);
    std::copy(memory.begin(), memory.end(), at);
  }

  // Columns [first, first + count) of d[f; g] / d[t, x, z, p, mem].
  int dynamics_columns(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory, int first,
                       int count, MatrixRef D, const char* formed) {
    load_point(t, x, z, p, memory);
    const int n = nx() + nz();
    const int code = run("f/g", formed, t, [&] {
      return jacobians_.columns(
          [&](auto u, auto out) {
            const auto [tt, xs, zs, ps, ms] = split(u);
            (void)tt;
            return dynamics(mode, t, xs, zs, ps, ms, out.subspan(0, static_cast<std::size_t>(nx())),
                            out.subspan(static_cast<std::size_t>(nx()), static_cast<std::size_t>(nz())));
          },
          point_, n, first, count, D);
    });
    return code;
  }

  // Every column of d out / d[t, x, z, p, mem] (outputs rows).
  template <class Fn>
  int all_columns(const char* function, const char* formed, double t, ConstVector x, ConstVector z, ConstVector p,
                  ConstVector memory, int outputs, MatrixRef D, Fn&& fn) {
    load_point(t, x, z, p, memory);
    return run(function, formed, t, [&] { return jacobians_.columns(fn, point_, outputs, 0, inputs_, D); });
  }

  // A forward-mode call with its failures recorded.
  template <class Call>
  int run(const char* function, const char* formed, double t, Call&& call) {
    const int code = guarded(function, formed, t, call);
    if (code != 0 && failure_.what.empty()) {
      failure_.row = jacobians_.failed_row();
      failure_.column = jacobians_.failed_column();
    }
    return code;
  }
  template <class Call>
  int guarded(const char* function, const char* formed, double t, Call&& call) {
    try {
      const int code = call();
      if (code != 0) begin_failure(function, formed, t, code);
      return code;
    } catch (const std::exception& e) {
      begin_failure(function, formed, t, -1).what = e.what();
      return -1;
    }
  }
  HybridModelFailure& begin_failure(const char* function, const char* formed, double t, int code) {
    failure_.function = function;
    failure_.formed = formed;
    failure_.code = code;
    failure_.row = failure_.column = -1;
    failure_.t = t;
    failure_.what.clear();
    return failure_;
  }
  int value_failure(const char* function, const char* formed, int row, double t) {
    begin_failure(function, formed, t, 1).row = row;
    return 1;
  }

  Model model_;
  int inputs_;  // 1 + nx + nz + np + memory_size(): [t, x, z, p, mem]
  ForwardJacobian<Chunk> jacobians_;
  std::vector<double> point_, scratch_, dense_;
  std::vector<Dual<1>> time_x_, time_z_, time_p_, time_m_, time_out_;  // g_t's pass
  HybridModelFailure failure_;
};

}  // namespace esdirk::ad
