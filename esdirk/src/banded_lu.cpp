// Banded back-end of the stage linear system: LAPACK's dgbtrf/dgbtrs on M stored in LAPACK's
// band layout (kl extra rows on top for the fill-in of partial pivoting).

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "internal/structured_lu.hpp"

extern "C" {
void dgbtrf_(const int* m, const int* n, const int* kl, const int* ku, double* ab, const int* ldab,
             int* ipiv, int* info);
void dgbtrs_(const char* trans, const int* n, const int* kl, const int* ku, const int* nrhs,
             const double* ab, const int* ldab, const int* ipiv, double* b, const int* ldb,
             int* info, std::size_t trans_len);
}

namespace esdirk::internal {
namespace {

class BandedLu final : public StructuredLu {
 public:
  BandedLu(int nx, int nz, const JacobianStructure& s)
      : nx_(nx), n_(nx + nz), kl_(s.lower), ku_(s.upper), ldab_(2 * s.lower + s.upper + 1) {
    if (s.pattern == nullptr || s.pattern->size() != n_)
      throw std::invalid_argument("banded linear solver: the structure needs an n x n pattern");
    if (s.pattern->lower_bandwidth() > kl_ || s.pattern->upper_bandwidth() > ku_)
      throw std::invalid_argument("banded linear solver: the pattern has bandwidths (" +
                                  std::to_string(s.pattern->lower_bandwidth()) + ", " +
                                  std::to_string(s.pattern->upper_bandwidth()) +
                                  "), wider than the declared (" + std::to_string(kl_) + ", " +
                                  std::to_string(ku_) + ")");
    ab_.assign(static_cast<std::size_t>(ldab_) * n_, 0.0);
    pivots_.assign(static_cast<std::size_t>(n_), 0);
    // Where each pattern entry lands in the band array.
    const auto& ptr = s.pattern->column_pointers();
    const auto& rows = s.pattern->row_indices();
    position_.resize(rows.size());
    for (int j = 0; j < n_; ++j)
      for (int k = ptr[j]; k < ptr[j + 1]; ++k)
        position_[k] = static_cast<std::size_t>(kl_ + ku_ + rows[k] - j) +
                       static_cast<std::size_t>(j) * ldab_;
  }

  int factor(const JacobianMatrix& J, double h_gamma) override {
    std::fill(ab_.begin(), ab_.end(), 0.0);
    const int* ptr = J.pattern().column_pointers().data();
    const int* rows = J.pattern().row_indices().data();
    const double* v = J.values();
    for (int j = 0; j < n_; ++j)
      for (int k = ptr[j]; k < ptr[j + 1]; ++k)
        ab_[position_[k]] = rows[k] < nx_ ? -h_gamma * v[k] : v[k];
    for (int i = 0; i < nx_; ++i) ab_[static_cast<std::size_t>(kl_ + ku_) + static_cast<std::size_t>(i) * ldab_] += 1.0;
    int info = 0;
    dgbtrf_(&n_, &n_, &kl_, &ku_, ab_.data(), &ldab_, pivots_.data(), &info);
    return info;  // > 0: U(info, info) is exactly zero
  }

  void solve(MatrixRef B, bool transpose) const override {
    if (B.cols == 0) return;
    const char trans = transpose ? 'T' : 'N';
    const int ldb = std::max(1, B.ld);
    int info = 0;
    dgbtrs_(&trans, &n_, &kl_, &ku_, &B.cols, ab_.data(), &ldab_, pivots_.data(), B.data, &ldb,
            &info, 1);
  }

  std::size_t bytes() const override {
    return ab_.size() * sizeof(double) + pivots_.size() * sizeof(int) +
           position_.size() * sizeof(std::size_t);
  }

  FactorizationCost cost() const override {
    const double n = n_, kl = kl_, ku = ku_;
    return {n * (kl + ku + 1.0), n * (2.0 * kl + ku + 1.0), 2.0 * n * kl * (kl + ku)};
  }

 private:
  int nx_, n_, kl_, ku_, ldab_;
  std::vector<double> ab_;
  std::vector<int> pivots_;
  std::vector<std::size_t> position_;
};

}  // namespace

std::unique_ptr<StructuredLu> make_banded_lu(int nx, int nz, const JacobianStructure& structure) {
  return std::make_unique<BandedLu>(nx, nz, structure);
}

}  // namespace esdirk::internal
