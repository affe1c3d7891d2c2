#pragma once
// Runge-Kutta tableaus of any structure (explicit, DIRK, ESDIRK, fully implicit) and their
// partitioned pairs (A, b; A~, b) for adjoint systems (Tran & Leok §3.2, §4.2;
// doc/geometric-adjoint-theory.md).
//
//     auto gauss = esdirk::geometric::gauss_legendre(3);        // order 6, self-partnered
//     auto pair = esdirk::geometric::symplectic_pair(gauss);    // A~ from (A, b), checked
//     pair.symplecticity_defect;                                // max |b_i a~_ij + b_j a_ji - b_i
//     b_j|

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/tableau.hpp"

namespace esdirk::geometric {

/// A Butcher tableau (A, b, c) of any structure.
struct ESDIRK_API RkTableau {
  std::string name;
  int stages = 0;
  int order = 0;          ///< classical order of the method (b)
  std::vector<double> a;  ///< row-major stages x stages, a[i*stages + j]
  std::vector<double> b;  ///< weights
  std::vector<double> c;  ///< nodes: stage i is evaluated at t + c_i h

  double A(int i, int j) const { return a[static_cast<std::size_t>(i) * stages + j]; }
  /// Throws std::invalid_argument if the sizes do not match `stages` or an entry is not
  /// finite. The nodes need not be the row sums (Lobatto IIIB(2) has c = (0, 1) and rows
  /// summing to 1/2): stage i is evaluated at t + c_i h as given.
  void validate() const;
  /// a_sj = b_j and c_s = 1: the last stage is the step's end (stage constraints hold at q1).
  bool stiffly_accurate() const;
  /// Some b_i == 0: no partner with the same weights exists (Tran & Leok).
  bool has_zero_weight() const;
  /// a_ij = 0 for j > i (explicit, DIRK, ESDIRK): stages are solved one after the other.
  bool lower_triangular() const;
};

/// A partitioned pair: the method for q (A, b, c) and the coefficients A~ for p, with the same
/// weights b. symplectic_pair() makes A~ the symplectic partner; prk_pair() takes any A~ (for
/// contrast runs such as backward Euler on both q and p) and reports how far it is from one.
struct PrkPair {
  std::string name;
  RkTableau method;
  std::vector<double> partner;        ///< A~, row-major stages x stages
  double symplecticity_defect = 0.0;  ///< max_ij |b_i a~_ij + b_j a_ji - b_i b_j|
  /// The defect is within rounding: <= 4 ulp of max(1, max |b_i b_j|) (test T1).
  bool symplectic() const {
    double scale = 1.0;
    for (double bi : method.b)
      for (double bj : method.b) scale = std::max(scale, std::abs(bi * bj));
    return symplecticity_defect <= 4 * std::numeric_limits<double>::epsilon() * scale;
  }
};

/// The symplectic pair of `method`: A~ = b_j - b_j a_ji / b_i (esdirk/partner_tableau.hpp).
/// Throws std::invalid_argument for an invalid tableau or a zero weight (the normalized form
/// does not exist; the geometric integrators' unnormalized form still works, see
/// AdjointForm).
ESDIRK_API PrkPair symplectic_pair(const RkTableau& method);
/// A pair with a given A~ (any coefficients; the defect is computed and reported).
ESDIRK_API PrkPair prk_pair(const RkTableau& method, std::vector<double> partner, std::string name);

// Built-in families. Gauss, Radau IIA and Lobatto IIIA are computed as collocation methods
// from their nodes (a_ij = int_0^{c_i} l_j, b_j = int_0^1 l_j; Tran & Leok Remark 3.3) in long
// double; Lobatto IIIB from the simplifying condition D(s). tests/geometric checks each
// against the order conditions and the tables of Hairer-Wanner.

/// Gauss-Legendre collocation, s = 1..4 stages, order 2s (symplectic: A~ = A).
ESDIRK_API RkTableau gauss_legendre(int stages);
/// Radau IIA, s = 1..3 stages, order 2s - 1, stiffly accurate (s = 1 is backward Euler).
ESDIRK_API RkTableau radau_iia(int stages);
/// Lobatto IIIA, s = 2..4 stages, order 2s - 2, stiffly accurate (partner: Lobatto IIIB).
ESDIRK_API RkTableau lobatto_iiia(int stages);
/// Lobatto IIIB, s = 2..4 stages, order 2s - 2.
ESDIRK_API RkTableau lobatto_iiib(int stages);
/// Backward Euler (a = b = c = 1).
ESDIRK_API RkTableau backward_euler();
/// The library's ESDIRK methods (esdirk::Tableau) as general tableaus (for a run's method,
/// Integrator::method() or Options::resolved_method()).
ESDIRK_API RkTableau from_esdirk(const Tableau& tableau);
/// Explicit midpoint rule (b = (0, 1): a zero weight), order 2.
ESDIRK_API RkTableau explicit_midpoint();
/// The classical explicit Runge-Kutta method of order 4.
ESDIRK_API RkTableau classical_rk4();
/// Alexander's two-stage SDIRK of order 2 (gamma = 1 - 1/sqrt(2)), stiffly accurate.
ESDIRK_API RkTableau sdirk2();

/// PGHVI-1 of Tran & Leok §3.2.2: backward Euler for q with the partner A~ = 0 (explicit Euler
/// for p), the symplectic Euler pair.
ESDIRK_API PrkPair pghvi1();
/// BE-1 of Tran & Leok §3.2.2: backward Euler for both q and p (A~ = A = 1), not symplectic
/// (defect 1): the contrast method of the pendulum example.
ESDIRK_API PrkPair backward_euler_both();

/// A family member by name: "gauss1".."gauss4", "radau1".."radau3", "lobatto_iiia2".."4",
/// "lobatto_iiib2".."4", "backward_euler", "esdirk12", "esdirk23", "esdirk34",
/// "explicit_midpoint", "rk4", "sdirk2". Throws std::invalid_argument for another name.
ESDIRK_API RkTableau tableau_by_name(const std::string& name);
/// The names tableau_by_name knows.
ESDIRK_API std::vector<std::string> tableau_names();

}  // namespace esdirk::geometric
