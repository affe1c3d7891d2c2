#include "esdirk/stage_linear_system.hpp"

namespace esdirk {

StageLinearSystem::StageLinearSystem(int nx, int nz)
{
  solver_.resize(nx, nz);
}

int StageLinearSystem::factor(ConstMatrixRef J, double h_gamma, long step_index) {
  step_index_ = step_index;
  return solver_.factor(J, h_gamma);
}

}  // namespace esdirk
