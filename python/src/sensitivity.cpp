#include "bindings.hpp"

namespace esdirk::python {

void register_sensitivity(py::module_& m) { (void)m; }

}  // namespace esdirk::python
