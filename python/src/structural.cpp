#include "bindings.hpp"

namespace esdirk::python {

void register_structural(py::module_& m) { (void)m; }

}  // namespace esdirk::python
