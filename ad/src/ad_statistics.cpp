#include "esdirk/ad/ad_statistics.hpp"

#include <cstdio>

#include "internal/format_number.hpp"

namespace esdirk::ad {

std::string AdStatistics::table() const {
  const struct {
    const char* name;
    long value;
  } rows[] = {{"ad_jacobians", jacobians},
              {"ad_coloured_jacobians", coloured_jacobians},
              {"ad_parameter_jacobians", parameter_jacobians},
              {"ad_jacobian_vector_products", jacobian_vector_products},
              {"ad_vector_jacobian_products", vector_jacobian_products},
              {"ad_tape_recordings", tape_recordings},
              {"ad_forward_passes", forward_passes},
              {"ad_structure_passes", structure_passes},
              {"ad_structure_updates", structure_updates},
              {"ad_failures", failures}};
  std::string out;
  char line[96];
  for (const auto& row : rows) {
    std::snprintf(line, sizeof line, "%-40s %12ld\n", row.name, row.value);
    out += line;
  }
  return out;
}

std::string ModelFailure::describe(const Problem& problem) const {
  using internal::format_number;
  if (kind == Kind::none) return {};
  const std::string fn(1, function);
  const std::string at = " at t = " + format_number(t);
  const std::string forming = std::string(" (forming ") + derivative + ")";
  switch (kind) {
    case Kind::returned_code:
      return "the model's " + fn + " returned " + std::to_string(code) + at + forming;
    case Kind::value_not_finite:
      return "the model's " + fn + " gave a non-finite " + problem.equation_name(row) + at + forming;
    case Kind::derivative_not_finite: {
      // A product (J v, v^T J) names the one side it knows: the equation or the argument.
      const std::string of = row >= 0 ? problem.equation_name(row) : std::string("f/g");
      const std::string variable = argument == 'p'   ? problem.parameter_name(column)
                                   : argument == 'x' ? problem.state_name(column)
                                                     : std::string("the direction");
      return "the derivative of the model's " + of + " with respect to " + variable + " is not finite" + at +
             forming;
    }
    case Kind::threw:
      return "the model's " + fn + " threw" + at + forming + ": " + what;
    case Kind::none: break;
  }
  return {};
}

}  // namespace esdirk::ad
