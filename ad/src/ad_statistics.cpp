#include "esdirk/ad/ad_statistics.hpp"

#include "internal/format_number.hpp"

namespace esdirk::ad {

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
