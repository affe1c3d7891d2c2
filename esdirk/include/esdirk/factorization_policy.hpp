#pragma once
// When keeping the last step's Jacobian and LU pays (Options::factorization_policy, automatic):
// the cost model of doc/integrator-theory.md section 8a.

#include "esdirk/export.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/stage_linear_system.hpp"

namespace esdirk {

/// What one step's fresh Jacobian and factorization cost against one Newton iteration, in
/// multiply-adds, from the sizes the back-end reports (no timing: the decision, and with it
/// the run, is the same on every machine and in every binding).
struct ReuseCosts {
  double jacobian =
      0.0;  ///< forming J: nnz(J) analytic, colours x one model evaluation by differences
  double factorization = 0.0;  ///< nnz(M) + 0.75 flops (forming and factoring M)
  double iteration = 0.0;  ///< one model evaluation + one back-substitution, nnz(J) + nnz(L + U)
};

/// The factorization cost the automatic policy decides by: a property of the problem's declared
/// Jacobian structure, the same whichever back-end factors it, so that dense, band and KLU runs
/// of one problem decide alike and give the same bits. Without a pattern the dense LU
/// (n^2 entries, 2/3 n^3 flops); with a pattern or bandwidths the band LU of its bandwidths kl,
/// ku (n (2 kl + ku + 1) factor entries with the pivoting fill, 2 n kl (kl + ku) flops), capped by
/// the dense one, and nnz(J) entries of M. The band count is an upper bound of a fill-reducing
/// ordering's (KLU's) fill, so a sparse problem errs towards keeping. Throws
/// std::invalid_argument for n < 0.
ESDIRK_API FactorizationCost structural_factorization_cost(const JacobianStructure& structure, int n);

/// The costs of a problem of n unknowns whose J has `jacobian_entries` entries, given the
/// factorization's own sizes; `difference_evaluations` model evaluations per J (its colours),
/// 0 for an analytic J. A model evaluation is taken to cost max(nnz(J), n): a model touches each
/// entry of its Jacobian about once (a callback that costs more makes a difference J dearer
/// still, so the rule then errs towards forming J). Throws std::invalid_argument for negative
/// sizes.
ESDIRK_API ReuseCosts reuse_costs(const FactorizationCost& factorization, double jacobian_entries,
                                  int n, int difference_evaluations);

/// True if a fresh J alone costs more than `ratio` Newton iterations: keeping J for the next
/// step, with a new LU every step, then saves more than the extra iterations a stale J costs
/// (measured 4.5-5.8 per step on the small dense problems with the fresh-Jacobian Newton test,
/// 1-1.3 on the grids; doc/integrator-theory.md section 8a). A tie forms J.
ESDIRK_API bool jacobian_reuse_pays(const ReuseCosts& costs, double ratio);
/// True if the factorization alone costs more than `ratio` Newton iterations: the kept J's LU
/// then also serves the next steps (while h gamma moves by at most 30 %). Small dense systems
/// keep one LU per step. A tie factors.
ESDIRK_API bool lu_reuse_pays(const ReuseCosts& costs, double ratio);

}  // namespace esdirk
