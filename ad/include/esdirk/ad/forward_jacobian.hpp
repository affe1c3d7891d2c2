#pragma once
// The Jacobian of a vector function written once as a template, by chunked forward mode
// (doc/ad-guide.md): the engine behind the hybrid adapter's event, reset and parameter-reset
// Jacobians and the templated objectives. ModelProblem has its own, tuned for J of f and g.
//
//     out = fn(u),  fn(std::span<const T> u, std::span<T> out) -> int   (a generic lambda)
//
// columns(fn, u, first, count, D) writes D(i, j) = d out_i / d u_(first + j), j < count, by
// ceil(count / Chunk) evaluations of fn over Dual<Chunk>. The workspaces are sized in the
// constructor: no evaluation allocates.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "esdirk/ad/dual.hpp"
#include "esdirk/matrix.hpp"

namespace esdirk::ad {

template <int Chunk = 8>
class ForwardJacobian {
 public:
  using Scalar = Dual<Chunk>;

  /// Up to `inputs` inputs and `outputs` outputs per call.
  ForwardJacobian(int inputs, int outputs)
      : u_(static_cast<std::size_t>(std::max(inputs, 0))), out_(static_cast<std::size_t>(std::max(outputs, 0))) {}

  /// What went wrong in the last failed call: the output row and the input column (-1: the
  /// value itself is not finite, or fn returned a code).
  int failed_row() const { return failed_row_; }
  int failed_column() const { return failed_column_; }

  /// D(i, j) = d out_i / d u_(first + j) for i < outputs, j < count (u.size() inputs, at most
  /// the constructor's). Returns fn's nonzero code, 1 if a value or derivative is not finite,
  /// or 0.
  template <class Fn>
  int columns(Fn&& fn, ConstVector u, int outputs, int first, int count, MatrixRef D) {
    failed_row_ = failed_column_ = -1;
    const std::span<Scalar> in(u_.data(), u.size());
    const std::span<Scalar> out(out_.data(), static_cast<std::size_t>(outputs));
    for (std::size_t i = 0; i < u.size(); ++i) in[i] = Scalar(u[i]);
    for (int c0 = 0; c0 < count; c0 += Chunk) {
      const int lanes = std::min(Chunk, count - c0);
      for (int k = 0; k < lanes; ++k) in[static_cast<std::size_t>(first + c0 + k)].d[static_cast<std::size_t>(k)] = 1.0;
      const int code = fn(std::span<const Scalar>(in), out);
      for (int k = 0; k < lanes; ++k) in[static_cast<std::size_t>(first + c0 + k)].d[static_cast<std::size_t>(k)] = 0.0;
      if (code != 0) return code;
      for (int i = 0; i < outputs; ++i) {
        const Scalar& o = out[static_cast<std::size_t>(i)];
        if (!std::isfinite(o.v)) return fail(i, -1);
        for (int k = 0; k < lanes; ++k) {
          const double d = o.d[static_cast<std::size_t>(k)];
          if (!std::isfinite(d)) return fail(i, first + c0 + k);
          D(i, c0 + k) = d;
        }
      }
    }
    return 0;
  }

 private:
  int fail(int row, int column) {
    failed_row_ = row;
    failed_column_ = column;
    return 1;
  }

  std::vector<Scalar> u_, out_;
  int failed_row_ = -1, failed_column_ = -1;
};

}  // namespace esdirk::ad
