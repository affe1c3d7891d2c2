// Inconsistent estimation problems and measurement files: each a clear message.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include "esdirk/multishoot/estimation.hpp"
#include "esdirk/multishoot/measurements.hpp"

namespace ms = esdirk::multishoot;

namespace {

std::string read_error(const std::string& text, int ny = 1) {
  const std::string path = "multishoot_bad_input.csv";
  std::ofstream(path) << text;
  try {
    ms::read_measurements(path, ny);
  } catch (const std::runtime_error& e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

ms::EstimationProblem small_problem() {
  ms::EstimationProblem p;
  p.nx = 1;
  p.nz = 0;
  p.np = 1;
  p.measured = {0};
  ms::Experiment x;
  x.times = {0.0, 1.0, 2.0};
  x.data = {1.0, 0.5, 0.25};
  x.sigma = {0.1, 0.1, 0.1};
  x.nodes = {1.0, 0.5, 0.25};
  p.experiments.push_back(x);
  return p;
}

std::string validate_error(const ms::EstimationProblem& p) {
  try {
    p.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(a_good_file_reads_back_what_was_written) {
  ms::MeasurementSeries s;
  s.times = {0.0, 0.5, 1.25};
  s.data = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  s.sigma = {0.1, 0.2, 0.1, 0.2, 0.1, 0.2};
  ms::write_measurements("multishoot_good.csv", {s, s}, 2, "two experiments");
  const auto back = ms::read_measurements("multishoot_good.csv", 2);
  std::remove("multishoot_good.csv");
  BOOST_TEST(back.size() == 2u);
  BOOST_TEST(back[1].times == s.times, boost::test_tools::per_element());
  BOOST_TEST(back[1].data == s.data, boost::test_tools::per_element());
  BOOST_TEST(back[0].sigma == s.sigma, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(inconsistent_measurement_files_name_the_line_and_the_problem) {
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, 2.0\n"), ":2:12: expected 4 columns"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 0.0, 2.0, 0.1\n"), ":2:4: time 0 does not increase"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, abc, 0.1\n"), ":2:9: column 3 ('abc') is not a number"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, 1.0, 0\n"), "is not positive"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1, 1, 1\n2, 0, 1, 1\n"),
                      "experiment 2 follows experiment 0"));
  BOOST_TEST(contains(read_error("# only a comment\n"), "no measurements"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n1, 0.0, 1.0, 0.1\n1, 1.0, 1.0, 0.1\n"),
                      "experiment 0 has fewer than two measurement times"));
  BOOST_TEST(contains(read_error("0, 0.0, nan, 0.1\n"), "not a finite number"));
  try {
    ms::read_measurements("no_such_measurement_file.csv", 1);
    BOOST_FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "cannot open"));
  }
}

// Issue 27: the reader took what it could not read exactly. Each case is refused with the line
// and the column where the problem starts.
BOOST_AUTO_TEST_CASE(a_blank_field_is_refused_not_read_as_zero) {
  const std::string e = read_error("0, 0.0, 1.0, 0.1\n0, 1.0, , 0.1\n");
  BOOST_TEST(contains(e, ":2:8: column 3 is blank"), e);
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0,\t, 0.1\n"), ":2:8: column 3 is blank"));
}

BOOST_AUTO_TEST_CASE(a_trailing_comma_is_refused_not_ignored) {
  const std::string e = read_error("0, 0.0, 1.0, 0.1,\n0, 1.0, 1.0, 0.1\n");
  BOOST_TEST(contains(e, ":1:18: more than the 4 columns"), e);
}

BOOST_AUTO_TEST_CASE(a_nul_byte_is_refused_not_a_field_end) {
  const std::string e = read_error(std::string("0, 0.0, 1.0, 0.1\n0, 1.5\0" "7, 1.0, 0.1\n", 31));
  BOOST_TEST(contains(e, ":2:7: a NUL byte"), e);
}

BOOST_AUTO_TEST_CASE(an_experiment_number_beyond_the_size_range_is_refused_not_read_as_0) {
  // 1e300 and 2^64 were cast to a size_t (undefined; experiment 0 in practice).
  const std::string huge = read_error("0, 0.0, 1.0, 0.1\n1e300, 1.0, 1.0, 0.1\n");
  BOOST_TEST(contains(huge, ":2:1: experiment 1e+300 follows experiment 0"), huge);
  const std::string two64 = read_error("0, 0.0, 1.0, 0.1\n18446744073709551616, 1.0, 1.0, 0.1\n");
  BOOST_TEST(contains(two64, ":2:1: experiment 18446744073709551616 follows experiment 0"), two64);
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0.5, 1.0, 1.0, 0.1\n"), "0.5 is not a non-negative integer"));
}

BOOST_AUTO_TEST_CASE(a_first_experiment_other_than_0_says_so) {
  // It said "experiment 1 follows experiment 18446744073709551615".
  const std::string e = read_error("1, 0.0, 1.0, 0.1\n1, 1.0, 1.0, 0.1\n");
  BOOST_TEST(contains(e, ":1:1: the first experiment is 1: experiments are numbered 0, 1, ..."), e);
}

BOOST_AUTO_TEST_CASE(times_in_messages_keep_their_digits) {
  // "%f" printed "time 0.000000 does not increase (previous 0.000000)".
  const std::string e = read_error("0, 2e-7, 1.0, 0.1\n0, 1.5e-7, 1.0, 0.1\n");
  BOOST_TEST(contains(e, ":2:4: time 1.5e-07 does not increase (previous 2e-07)"), e);
  const std::string close = read_error("0, 0.1, 1.0, 0.1\n0, 0.1, 1.0, 0.1\n");
  BOOST_TEST(contains(close, "time 0.1 does not increase (previous 0.1)"), close);
}

BOOST_AUTO_TEST_CASE(numbers_outside_the_double_range_are_refused) {
  BOOST_TEST(contains(read_error("0, 0.0, 1e400, 0.1\n0, 1.0, 1.0, 0.1\n"), ":1:9: column 3 ('1e400') is outside the range"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, 0x10, 0.1\n"), ":2:9: column 3 ('0x10') is not a number"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, 1.0 2.0, 0.1\n"), "('1.0 2.0') is not a number"));
  BOOST_TEST(contains(read_error("0, 0.0, inf, 0.1\n0, 1.0, 1.0, 0.1\n"), "is not a finite number"));
}

BOOST_AUTO_TEST_CASE(a_sigma_whose_inverse_square_overflows_is_refused) {
  // 1e-320 was accepted and the estimation then failed in its line search.
  const std::string e = read_error("0, 0.0, 1.0, 1e-320\n0, 1.0, 1.0, 0.1\n");
  BOOST_TEST(contains(e, ":1:14: sigma_1 = 1e-320 is below the smallest standard deviation taken (1e-150)"), e);
  ms::EstimationProblem p = small_problem();
  p.experiments[0].sigma[1] = 1e-200;
  BOOST_TEST(contains(validate_error(p), "sigma[1] = 1e-200 is not a finite number >= 1e-150"));
}

BOOST_AUTO_TEST_CASE(a_directory_is_not_a_measurement_file) {
  // It read as "no measurements".
  try {
    ms::read_measurements(".", 1);
    BOOST_FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), ".: is a directory, not a measurement file"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_line_without_end_is_refused_at_the_line_limit) {
  // A newline-free input grew without limit (519 MB, then "no measurements"). 4 MB of digits:
  // refused once the line passes the limit, with the first line's number.
  const std::string path = "multishoot_endless_line.csv";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string digits(1 << 16, '7');
    for (int i = 0; i < 64; ++i) out << digits;
  }
  try {
    ms::read_measurements(path, 1);
    BOOST_FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), ":1:" + std::to_string(ms::measurement_line_limit(1) + 1) +
                                      ": the line is longer than " +
                                      std::to_string(ms::measurement_line_limit(1)) + " bytes"),
               e.what());
  }
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(text_in_memory_reads_as_the_file_does) {
  const auto series = ms::parse_measurements("# c\n0, 0, 1, 0.5\r\n0, +1.5, -2, 1e-3\n\n1, 0, 3, 1\n1, 2, 4, 1", 1);
  BOOST_TEST(series.size() == 2u);
  BOOST_TEST(series[0].times == std::vector<double>({0.0, 1.5}), boost::test_tools::per_element());
  BOOST_TEST(series[0].data == std::vector<double>({1.0, -2.0}), boost::test_tools::per_element());
  BOOST_TEST(series[1].sigma == std::vector<double>({1.0, 1.0}), boost::test_tools::per_element());
  BOOST_CHECK_THROW(ms::parse_measurements("0, 0, 1, 0.5\n0, 1, 1", 1), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(a_failed_write_is_reported_not_lost) {
  // Writing to a full device returned normally and lost the data.
  ms::MeasurementSeries s;
  s.times = {0.0, 1.0};
  s.data = {1.0, 2.0};
  s.sigma = {0.1, 0.1};
  if (std::ifstream("/dev/full")) {
    try {
      ms::write_measurements("/dev/full", {s}, 1);
      BOOST_FAIL("expected an exception");
    } catch (const std::runtime_error& e) {
      BOOST_TEST(contains(e.what(), "/dev/full: writing the measurement file failed (No space left on device)"),
                 e.what());
    }
  }
  BOOST_CHECK_THROW(ms::write_measurements("no_such_folder/m.csv", {s}, 1), std::runtime_error);
  s.sigma.pop_back();  // the wrong shape: it read past the vector
  BOOST_CHECK_THROW(ms::write_measurements("multishoot_never.csv", {s}, 1), std::invalid_argument);
  BOOST_CHECK_THROW(ms::write_measurements("multishoot_never.csv", {}, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(inconsistent_estimation_problems_name_the_experiment) {
  BOOST_TEST(validate_error(small_problem()).empty());
  ms::EstimationProblem p = small_problem();
  p.experiments[0].data.pop_back();
  BOOST_TEST(contains(validate_error(p), "experiment 0: has 2 data values, expected 3"));
  p = small_problem();
  p.experiments[0].times[2] = 1.0;
  BOOST_TEST(contains(validate_error(p), "increasing"));
  p = small_problem();
  p.experiments[0].sigma[1] = -1.0;
  BOOST_TEST(contains(validate_error(p), "sigma[1]"));
  p = small_problem();
  p.measured = {3};
  BOOST_TEST(contains(validate_error(p), "measured state index 3"));
  p = small_problem();
  p.experiments[0].nodes.push_back(0.0);
  BOOST_TEST(contains(validate_error(p), "node-state guesses"));
}

BOOST_AUTO_TEST_SUITE_END()
