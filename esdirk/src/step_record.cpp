#include "esdirk/step_record.hpp"

#include <algorithm>

namespace esdirk {
namespace {

// Copies a view into an owned matrix, reallocating only when the shape changes.
void copy_into(ConstMatrixRef from, DenseMatrix& to) {
  if (to.rows() != from.rows || to.cols() != from.cols) to.resize(from.rows, from.cols);
  for (int j = 0; j < from.cols; ++j)
    std::copy(from.column(j), from.column(j) + from.rows, to.column(j));
}

}  // namespace

void StepRecord::assign(const StepView& step) {
  index = step.index;
  t = step.t;
  h = step.h;
  t_end = step.t_end;
  h_gamma = step.h_gamma;
  stages = step.stages;
  copy_into(step.X, X);
  copy_into(step.Z, Z);
  copy_into(step.F, F);
  copy_into(step.G, G);
  stage_times.assign(step.stage_times, step.stage_times + step.stages);
  stage_start.assign(step.stage_start.begin(), step.stage_start.end());
}

StepView StepRecord::view() const {
  return {index, t,        h,        t_end,    h_gamma,           stages, X.cref(),
          Z.cref(), F.cref(), G.cref(), stage_times.data(), {},     nullptr, nullptr, stage_start};
}

}  // namespace esdirk
