// libFuzzer target: esdirk_structural_sigma, the C API's Σ-method on arrays. The bytes give
// the sizes and the (equation, variable, order) entries, including out-of-range indices and
// large orders. On success the offsets are checked against the definition: c >= 0,
// d_x - c_f >= σ_fx on every entry, and for a square system Σd - Σc equal to the weight of a
// maximum-weight perfect matching found by brute force.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include "esdirk/esdirk.h"

namespace {

// Reads bytes in order; zeros once the input is exhausted.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return at_ >= size_; }
  std::uint8_t next() { return at_ < size_ ? data_[at_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// A signed index mostly in range, sometimes just outside it.
esdirk_int index(std::uint8_t b, esdirk_int n) {
  if (b == 0xff) return -1;
  if (b == 0xfe) return n;
  return static_cast<esdirk_int>(b % n);
}

// An order mostly small, sometimes near or beyond the limit, sometimes negative.
esdirk_int order(Bytes& in) {
  const std::uint8_t b = in.next();
  if (b < 0xf0) return b % 8;
  if (b == 0xf0) return 10000;
  if (b == 0xf1) return 10001;
  if (b == 0xf2) return -1;
  if (b == 0xf3) return std::numeric_limits<esdirk_int>::max();
  return (b - 0xf0) * 1000 + in.next();
}

// Largest Σσ over perfect matchings of a square system (σ = -1 for no entry), or -1 if none.
std::int64_t brute_force_weight(const std::vector<std::vector<esdirk_int>>& sigma) {
  const std::size_t n = sigma.size();
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::int64_t best = -1;
  do {
    std::int64_t w = 0;
    bool ok = true;
    for (std::size_t f = 0; f < n && ok; ++f) {
      ok = sigma[f][perm[f]] >= 0;
      w += sigma[f][perm[f]];
    }
    if (ok) best = std::max(best, w);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const esdirk_int ne = 1 + in.next() % 7;
  const esdirk_int nv = 1 + in.next() % 7;
  std::vector<esdirk_int> eq, var, ord;
  while (!in.done() && eq.size() < 64) {
    eq.push_back(index(in.next(), ne));
    var.push_back(index(in.next(), nv));
    ord.push_back(order(in));
  }
  const auto n = static_cast<esdirk_int>(eq.size());
  std::vector<esdirk_int> c(ne, -7), d(nv, -7);
  esdirk_int max_c = -7, pryce = -7;
  std::int64_t dof = -7;
  const int status = esdirk_structural_sigma(ne, nv, n, eq.data(), var.data(), ord.data(),
                                             c.data(), d.data(), &max_c, &pryce, &dof);
  bool valid_input = true;
  for (esdirk_int k = 0; k < n; ++k) {
    valid_input = valid_input && eq[k] >= 0 && eq[k] < ne && var[k] >= 0 && var[k] < nv &&
                  ord[k] >= 0 && ord[k] <= 10000;
  }
  if (!valid_input) {
    if (status != ESDIRK_INVALID_ARGUMENT) std::abort();
    return 0;
  }
  std::vector<std::vector<esdirk_int>> sigma(ne, std::vector<esdirk_int>(nv, -1));
  for (esdirk_int k = 0; k < n; ++k) sigma[eq[k]][var[k]] = std::max(sigma[eq[k]][var[k]], ord[k]);
  if (status == ESDIRK_STRUCTURALLY_SINGULAR) {
    // Only possible when no complete matching exists (square) or some variable is absent.
    if (ne == nv && brute_force_weight(sigma) >= 0) std::abort();
    return 0;
  }
  if (status != ESDIRK_SUCCESS) std::abort();
  if (*std::min_element(c.begin(), c.end()) < 0) std::abort();
  if (max_c != *std::max_element(c.begin(), c.end())) std::abort();
  for (esdirk_int f = 0; f < ne; ++f) {
    for (esdirk_int x = 0; x < nv; ++x) {
      if (sigma[f][x] >= 0 && d[x] - c[f] < sigma[f][x]) std::abort();
    }
  }
  const std::int64_t dual = std::accumulate(d.begin(), d.end(), std::int64_t{0}) -
                            std::accumulate(c.begin(), c.end(), std::int64_t{0});
  if (dual != dof) std::abort();
  if (ne == nv && dual != brute_force_weight(sigma)) std::abort();
  return 0;
}
