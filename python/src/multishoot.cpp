#include "bindings.hpp"

namespace esdirk::python {

void register_multishoot(py::module_& m) { (void)m; }

}  // namespace esdirk::python
