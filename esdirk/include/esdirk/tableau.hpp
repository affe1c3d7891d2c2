#pragma once
// Butcher tableaux of the ESDIRK family (explicit first stage, singly diagonal, stiffly accurate).
// ESDIRK34 is the method of Kristensen et al. 2005; ESDIRK12 and ESDIRK23 are its sisters, used to
// test the order machinery.

#include <string>
#include <vector>
#include "esdirk/export.hpp"

namespace esdirk {

struct ESDIRK_API Tableau {
  std::string name;
  int stages = 0;
  int order = 0;           ///< order of the propagated solution (b)
  int embedded_order = 0;  ///< order of the embedded solution (b-hat)
  double gamma = 0.0;      ///< the diagonal a_ii, i >= 2
  std::vector<double> a;   ///< row-major stages x stages, a[i*stages + j]
  std::vector<double> b;
  std::vector<double> b_hat;
  std::vector<double> c;
  /// kappa of the calibrated tolerance rule (Options::internal_rtol), measured on the reference
  /// problems so that their global error is about rtol.
  double tolerance_factor = 1.0;

  double A(int i, int j) const { return a[static_cast<std::size_t>(i) * stages + j]; }
  /// d = b - b_hat, the weights of the error estimate e = h sum d_i f_i.
  double d(int i) const { return b[i] - b_hat[i]; }
  /// Exponent denominator of the step-size controller: (order of the estimated error) =
  /// min(order, embedded_order) + 1.
  int controller_order() const;

  /// Checks the structure this code relies on (explicit first stage, constant diagonal,
  /// stiff accuracy, c_i = sum_j a_ij) and throws std::invalid_argument if it fails.
  void validate() const;

  static Tableau esdirk34();
  static Tableau esdirk23();
  static Tableau esdirk12();
  /// Kennedy & Carpenter's ESDIRK4(3)6L[2]SA: order 4, embedded order 3, 6 stages, gamma = 1/4.
  static Tableau esdirk436();
  /// Kennedy & Carpenter's ESDIRK5(4)7L[2]SA: order 5, embedded order 4, 7 stages, gamma = 23/125.
  static Tableau esdirk547();
  /// A member by its name: "ESDIRK34", "ESDIRK436", "ESDIRK547", "ESDIRK23" or "ESDIRK12".
  /// Throws std::invalid_argument for any other name, listing the known ones (and for "auto",
  /// which is a MethodChoice, not a method).
  static Tableau named(const std::string& name);
};

}  // namespace esdirk
