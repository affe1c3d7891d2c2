#pragma once
// The gradient of an objective term written once as a template (doc/ad-guide.md, "Objectives"):
// an ObjectiveGradient for AdjointObjective::terminal and ::running, HybridObjective::terminal,
// or any callback with that signature, by chunked forward mode over [x, z, p]:
//
//     struct Cost {
//       template <class T>   // value: `rows` entries, one per objective row
//       int operator()(double t, std::span<const T> x, std::span<const T> z,
//                      std::span<const T> p, std::span<T> value) const;
//     };
//     objective.terminal = esdirk::ad::objective_gradient(nx, nz, np, rows, Cost{});
//
// The callable writes dC/dx (nx x rows), dC/dz (nz x rows) and dC/dp (np x rows), one column
// per row, exactly; it returns the objective's code, 1 if a value or derivative is not
// finite, -1 if the objective threw. Copies share one workspace (sized at creation): use one
// gradient per thread.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "esdirk/ad/forward_jacobian.hpp"
#include "esdirk/matrix.hpp"

namespace esdirk::ad {

template <class Objective, int Chunk = 8>
class ObjectiveGradientOf {
 public:
  ObjectiveGradientOf(int nx, int nz, int np, int rows, Objective objective)
      : state_(std::make_shared<State>(nx, nz, np, rows, std::move(objective))) {}

  int operator()(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef dx, MatrixRef dz,
                 MatrixRef dp) const {
    State& s = *state_;
    const auto nxs = x.size(), nzs = z.size(), nps = p.size();
    std::copy(x.begin(), x.end(), s.point.begin());
    std::copy(z.begin(), z.end(), s.point.begin() + static_cast<std::ptrdiff_t>(nxs));
    std::copy(p.begin(), p.end(), s.point.begin() + static_cast<std::ptrdiff_t>(nxs + nzs));
    const int inputs = static_cast<int>(nxs + nzs + nps);
    const ConstVector point(s.point.data(), nxs + nzs + nps);
    MatrixRef D{s.gradient.data(), s.rows, std::max(inputs, 1), s.rows};
    int code = 0;
    try {
      code = s.jacobians.columns(
          [&](auto u, auto value) {
            return s.objective(t, u.subspan(0, nxs), u.subspan(nxs, nzs), u.subspan(nxs + nzs, nps), value);
          },
          point, s.rows, 0, inputs, D);
    } catch (const std::exception&) {
      return -1;
    }
    if (code != 0) return code;
    for (int r = 0; r < s.rows; ++r) {
      for (std::size_t i = 0; i < nxs; ++i) dx(static_cast<int>(i), r) = D(r, static_cast<int>(i));
      for (std::size_t i = 0; i < nzs; ++i) dz(static_cast<int>(i), r) = D(r, static_cast<int>(nxs + i));
      for (std::size_t i = 0; i < nps; ++i) dp(static_cast<int>(i), r) = D(r, static_cast<int>(nxs + nzs + i));
    }
    return 0;
  }

 private:
  struct State {
    State(int nx, int nz, int np, int rows_, Objective o)
        : objective(std::move(o)), rows(rows_), jacobians(nx + nz + np, rows_),
          point(static_cast<std::size_t>(nx + nz + np)),
          gradient(static_cast<std::size_t>(rows_) * static_cast<std::size_t>(std::max(nx + nz + np, 1))) {}
    Objective objective;
    int rows;
    ForwardJacobian<Chunk> jacobians;
    std::vector<double> point, gradient;
  };
  std::shared_ptr<State> state_;
};

/// The ObjectiveGradient of a templated objective term (see above).
template <int Chunk = 8, class Objective>
ObjectiveGradientOf<Objective, Chunk> objective_gradient(int nx, int nz, int np, int rows, Objective objective) {
  return ObjectiveGradientOf<Objective, Chunk>(nx, nz, np, rows, std::move(objective));
}

}  // namespace esdirk::ad
