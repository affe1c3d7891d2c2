// The ILU(0) kernels one vector at a time against one pass for a group of vectors (the forward
// sensitivities' directions, doc/linear-solvers-guide.md, "All directions in one pass"): the
// stage matrix M = I - h gamma J of the 2-D Brusselator at its initial state, factored
// incompletely; per repetition one preconditioner solve and one product M v for each of
// `--vectors` vectors, either vector by vector or all in one call. Prints microseconds per
// repetition for both, and checks that both give the same bits.
//
//   bench_vector_groups [--sides 40,100] [--vectors 3] [--repeat 2000] [--h-gamma 0.08]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "internal/incomplete_lu_preconditioner.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Result {
  double one_at_a_time_us = 0.0, grouped_us = 0.0;
  bool same_bits = true;
};

Result measure(int side, int vectors, int repeat, double h_gamma) {
  const brusselator_mol::Model2d model(side);
  const esdirk::SparsityPattern pattern = model.pattern();
  const int n = pattern.size();
  const std::vector<double> y = model.initial_state(), p = model.nominal_parameters();
  std::vector<double> j_values(static_cast<std::size_t>(pattern.nonzeros()));
  for (int j = 0; j < n; ++j)
    for (int k = pattern.column_pointers()[j]; k < pattern.column_pointers()[j + 1]; ++k)
      j_values[static_cast<std::size_t>(k)] = model.entry(y.data(), p.data(), pattern.row_indices()[k], j);
  esdirk::internal::IncompleteLuPreconditioner ilu(n, pattern);
  ilu.arrange_rows(j_values.data());
  if (ilu.factor(j_values.data(), h_gamma) != 0) {
    std::fprintf(stderr, "bench_vector_groups: ILU(0) has a zero pivot\n");
    std::exit(1);
  }
  const auto un = static_cast<std::size_t>(n), uv = static_cast<std::size_t>(vectors);
  std::vector<double> start(un * uv), single(un * uv), grouped(un * uv), single_out(un * uv), grouped_out(un * uv);
  for (std::size_t i = 0; i < start.size(); ++i) start[i] = std::sin(0.37 * static_cast<double>(i)) + 0.5;
  single = grouped = start;
  std::vector<double*> in(uv), out(uv);
  std::vector<const double*> const_in(uv);
  Result result;
  // Alternating halves, so that a change of the machine's load hits both alike.
  for (int half = 0; half < 2; ++half) {
    auto t0 = Clock::now();
    for (int r = 0; r < repeat / 2; ++r)
      for (std::size_t c = 0; c < uv; ++c) {
        ilu.solve(single.data() + c * un, false);
        ilu.multiply(single.data() + c * un, single_out.data() + c * un, h_gamma);
      }
    auto t1 = Clock::now();
    for (std::size_t c = 0; c < uv; ++c) {
      in[c] = grouped.data() + c * un;
      const_in[c] = in[c];
      out[c] = grouped_out.data() + c * un;
    }
    for (int r = 0; r < repeat / 2; ++r) {
      ilu.solve(in.data(), vectors, false);
      ilu.multiply(const_in.data(), out.data(), vectors, h_gamma);
    }
    auto t2 = Clock::now();
    result.one_at_a_time_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
    result.grouped_us += std::chrono::duration<double, std::micro>(t2 - t1).count();
  }
  result.one_at_a_time_us /= 2 * (repeat / 2);
  result.grouped_us /= 2 * (repeat / 2);
  result.same_bits = std::memcmp(single.data(), grouped.data(), single.size() * sizeof(double)) == 0 &&
                     std::memcmp(single_out.data(), grouped_out.data(), single_out.size() * sizeof(double)) == 0;
  return result;
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> values;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) values.push_back(std::atoi(item.c_str()));
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sides = {40, 100};
  int vectors = 3, repeat = 2000;
  double h_gamma = 0.08;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--help") {
      std::puts("bench_vector_groups [--sides 40,100] [--vectors 3] [--repeat 2000] [--h-gamma 0.08]\n"
                "ILU(0) solve + product per vector: one vector at a time against one pass for all\n"
                "(2-D Brusselator stage matrix; microseconds per repetition of all vectors).");
      return 0;
    }
    if (arg == "--sides" && has_value) sides = parse_list(argv[++a]);
    else if (arg == "--vectors" && has_value) vectors = std::atoi(argv[++a]);
    else if (arg == "--repeat" && has_value) repeat = std::atoi(argv[++a]);
    else if (arg == "--h-gamma" && has_value) h_gamma = std::atof(argv[++a]);
    else {
      std::fprintf(stderr, "bench_vector_groups: unknown argument %s (see --help)\n", arg.c_str());
      return 2;
    }
  }
  if (vectors < 1 || repeat < 2 || sides.empty()) {
    std::fprintf(stderr, "bench_vector_groups: needs --vectors >= 1, --repeat >= 2 and a side\n");
    return 2;
  }
  bool all_same = true;
  std::printf("side      n  vectors  one at a time [us]  one pass [us]  speed-up\n");
  for (const int side : sides) {
    const Result r = measure(side, vectors, repeat, h_gamma);
    all_same = all_same && r.same_bits;
    std::printf("%4d %6d %8d %19.1f %14.1f %9.2f%s\n", side, 2 * side * side, vectors, r.one_at_a_time_us,
                r.grouped_us, r.one_at_a_time_us / r.grouped_us, r.same_bits ? "" : "  (bits differ)");
  }
  if (!all_same) return 1;
  std::puts("all checks passed");
  return 0;
}
