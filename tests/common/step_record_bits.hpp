#pragma once
// Bit-for-bit comparison of step records, for the replay tests (core and events): a replay is
// exact only if every stored number has the same bits (+0 and -0 differ, a NaN equals itself).
#include <bit>
#include <cstdint>
#include <vector>

#include "esdirk/step_record.hpp"

namespace test_bits {

inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t q = 0; q < a.size(); ++q)
    if (!same_bits(a[q], b[q])) return false;
  return true;
}

inline bool same_bits(const esdirk::DenseMatrix& a, const esdirk::DenseMatrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (int j = 0; j < a.cols(); ++j)
    for (int i = 0; i < a.rows(); ++i)
      if (!same_bits(a(i, j), b(i, j))) return false;
  return true;
}

// Everything a record holds.
inline bool same_record(const esdirk::StepRecord& a, const esdirk::StepRecord& b) {
  return a.index == b.index && same_bits(a.t, b.t) && same_bits(a.h, b.h) && same_bits(a.t_end, b.t_end) &&
         same_bits(a.h_gamma, b.h_gamma) && same_bits(a.X, b.X) && same_bits(a.Z, b.Z) && same_bits(a.F, b.F) &&
         same_bits(a.G, b.G) && same_bits(a.stage_times, b.stage_times) && same_bits(a.stage_start, b.stage_start);
}

}  // namespace test_bits
