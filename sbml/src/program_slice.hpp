#pragma once
// Program slices: the instructions a set of output slots depends on, for evaluations that need
// only some outputs (the event functions without f and g, one event function's gradient). A
// slice runs the kept instructions in their order, so its values are bit for bit those of the
// whole program.

#include <span>
#include <vector>

#include "program.hpp"

namespace esdirk::sbml::detail {

/// The instructions of `parts` (run one after the other) that the slots `outputs` depend on.
Program slice(std::span<const Program* const> parts, std::span<const int> outputs);

/// The slots below `input_count` that the slots `outputs` depend on through `program` (a slot
/// read before it is written, or an output the program does not write): structurally, the
/// inputs whose derivatives can be nonzero, in increasing order.
std::vector<int> inputs_read(const Program& program, std::span<const int> outputs, int input_count);

}  // namespace esdirk::sbml::detail
