#include "esdirk/matrix.hpp"

namespace esdirk {

void MatrixRef::fill(double value) const {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) (*this)(i, j) = value;
}

}  // namespace esdirk
