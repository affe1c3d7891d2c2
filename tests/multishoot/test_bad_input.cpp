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
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, 2.0\n"), ":2: expected 4 columns"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 0.0, 2.0, 0.1\n"), ":2: time 0"));
  BOOST_TEST(contains(read_error("0, 0.0, 1.0, 0.1\n0, 1.0, abc, 0.1\n"), "not a finite number"));
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
