// esdirk-sbml-suite: runs SBML Test Suite semantic cases through esdirk's SBML importer and
// applies the suite's acceptance rule (doc/sbml-conformance.md).
//
//   esdirk-sbml-suite [options] CASES_DIR [CASE ...]
//
// Prints one line per case, in case order: "NNNNN pass", "NNNNN fail <largest violation and
// where, or what stopped it>", "NNNNN unsupported <feature>"; the last line is exactly
// "N passed, M failed, K unsupported". Exit status: 0 when no case failed (and --min-passed
// is met), 1 otherwise, 2 for a usage error or an unreadable case list.

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "suite_case.hpp"
#include "suite_files.hpp"

namespace {

namespace fs = std::filesystem;
using esdirk::sbml_suite::CaseOptions;
using esdirk::sbml_suite::CaseResult;
using esdirk::sbml_suite::Outcome;

constexpr const char* usage =
    "usage: esdirk-sbml-suite [options] CASES_DIR [CASE ...]\n"
    "Runs SBML Test Suite semantic cases (folders NNNNN of CASES_DIR; all of them when no CASE\n"
    "is named) and checks every reported value with the suite's rule\n"
    "|expected - computed| <= absolute + relative |expected|.\n"
    "options:\n"
    "  --jobs N            run N cases at once (threads; default 1)\n"
    "  --cases-file FILE   run the cases listed in FILE (one id per line, '#' comments)\n"
    "  --csv-out DIR       write each computed table to DIR/NNNNN.csv\n"
    "  --report FILE       write a tab-separated line per case: id, outcome, seconds,\n"
    "                      componentTags, testTags, detail (for scripts/sbml-conformance.sh)\n"
    "  --min-passed N      exit 1 also when fewer than N cases pass (a recorded floor)\n"
    "  --tolerance-factor X  solver tolerances = the case's times X (default 1e-3), never\n"
    "                      looser than the library's defaults\n";

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::pass:
      return "pass";
    case Outcome::fail:
      return "fail";
    case Outcome::unsupported:
      return "unsupported";
  }
  return "fail";
}

// Messages from libSBML may hold newlines and tabs; a case is one line.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

struct Arguments {
  std::string cases_dir;
  std::vector<std::string> cases;
  int jobs = 1;
  std::string csv_out;
  std::string report;
  long min_passed = -1;
  CaseOptions case_options;
};

// Parses a whole non-negative number; nullopt for anything else.
std::optional<long> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stol(text);
}

// Adds the case ids of a list file; throws std::runtime_error naming the bad line.
void read_case_list(const std::string& path, std::vector<std::string>& cases) {
  std::istringstream in(esdirk::sbml_suite::read_text_file(path, std::size_t{1} << 20));
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      const std::string id = esdirk::sbml_suite::normalize_case_id(word);
      if (id.empty())
        throw std::runtime_error(path + " line " + std::to_string(number) + ": '" +
                                 word.substr(0, 40) + "' is not a case number");
      cases.push_back(id);
    }
  }
}

// After the options: the folder checked, the case lists read (every NNNNN folder when none was
// named), the CSV folder made. False (with the message printed) when one of them fails.
bool complete_arguments(Arguments& args, const std::vector<std::string>& list_files) {
  if (!fs::is_directory(args.cases_dir)) {
    std::cerr << "esdirk-sbml-suite: " << args.cases_dir << " is not a folder\n";
    return false;
  }
  try {
    for (const std::string& file : list_files) read_case_list(file, args.cases);
  } catch (const std::exception& e) {
    std::cerr << "esdirk-sbml-suite: " << e.what() << '\n';
    return false;
  }
  if (args.cases.empty() && list_files.empty()) {
    // Every NNNNN folder, in order.
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(args.cases_dir, error)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory() && name.size() == 5 &&
          esdirk::sbml_suite::normalize_case_id(name) == name)
        args.cases.push_back(name);
    }
    std::sort(args.cases.begin(), args.cases.end());
  }
  if (!args.csv_out.empty()) {
    std::error_code error;
    fs::create_directories(args.csv_out, error);
    if (!fs::is_directory(args.csv_out)) {
      std::cerr << "esdirk-sbml-suite: cannot make the folder " << args.csv_out << '\n';
      return false;
    }
    args.case_options.keep_csv = true;
  }
  return true;
}

// Returns the arguments, or an exit status (2: usage error, 0: --help).
std::optional<Arguments> parse_arguments(int argc, char** argv, int& exit_status) {
  Arguments args;
  exit_status = 2;
  std::vector<std::string> list_files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::cerr << "esdirk-sbml-suite: " << name << " needs a value\n" << usage;
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      exit_status = 0;
      return std::nullopt;
    } else if (arg == "--jobs") {
      const auto v = value("--jobs");
      if (!v) return std::nullopt;
      const std::optional<long> n = whole_number(*v);
      if (!n || *n < 1 || *n > 256) {
        std::cerr << "esdirk-sbml-suite: --jobs takes a number in 1..256\n";
        return std::nullopt;
      }
      args.jobs = static_cast<int>(*n);
    } else if (arg == "--csv-out" || arg == "--report" || arg == "--cases-file") {
      const auto v = value(arg.c_str());
      if (!v) return std::nullopt;
      if (arg == "--csv-out") args.csv_out = *v;
      if (arg == "--report") args.report = *v;
      if (arg == "--cases-file") list_files.push_back(*v);
    } else if (arg == "--min-passed") {
      const auto v = value("--min-passed");
      if (!v) return std::nullopt;
      const std::optional<long> n = whole_number(*v);
      if (!n) {
        std::cerr << "esdirk-sbml-suite: --min-passed takes a whole number\n";
        return std::nullopt;
      }
      args.min_passed = *n;
    } else if (arg == "--tolerance-factor") {
      const auto v = value("--tolerance-factor");
      if (!v) return std::nullopt;
      const std::optional<double> x = esdirk::sbml_suite::parse_number(*v);
      if (!x || !(*x > 0) || !(*x <= 1)) {
        std::cerr << "esdirk-sbml-suite: --tolerance-factor takes a number in (0, 1]\n";
        return std::nullopt;
      }
      args.case_options.tolerance_factor = *x;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "esdirk-sbml-suite: unknown option '" << arg << "'\n" << usage;
      return std::nullopt;
    } else if (args.cases_dir.empty()) {
      args.cases_dir = arg;
    } else {
      const std::string id = esdirk::sbml_suite::normalize_case_id(arg);
      if (id.empty()) {
        std::cerr << "esdirk-sbml-suite: '" << arg << "' is not a case number\n";
        return std::nullopt;
      }
      args.cases.push_back(id);
    }
  }
  if (args.cases_dir.empty()) {
    std::cerr << usage;
    return std::nullopt;
  }
  if (!complete_arguments(args, list_files)) return std::nullopt;
  exit_status = 0;
  return args;
}

// Runs the cases on `jobs` threads; `report` is called for each result in case order, as
// soon as it and every case before it are done.
template <class Report>
void run_all(const Arguments& args, Report report) {
  const std::size_t n = args.cases.size();
  const auto run_one = [&args](std::size_t i) {
    try {
      return esdirk::sbml_suite::run_case(args.cases_dir, args.cases[i], args.case_options);
    } catch (const std::exception& e) {  // run_case does not throw; memory may run out
      CaseResult result;
      result.id = args.cases[i];
      result.detail = std::string("exception: ") + e.what();
      return result;
    }
  };
  if (args.jobs <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) report(run_one(i));
    return;
  }
  std::vector<std::optional<CaseResult>> results(n);
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      CaseResult result = run_one(i);
      {
        const std::lock_guard lock(mutex);
        results[i] = std::move(result);
      }
      done.notify_one();
    }
  };
  std::vector<std::thread> threads;
  const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(args.jobs), n);
  for (std::size_t t = 0; t < count; ++t) threads.emplace_back(worker);
  for (std::size_t i = 0; i < n; ++i) {
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return results[i].has_value(); });
    CaseResult result = std::move(*results[i]);
    results[i].reset();
    lock.unlock();
    report(result);
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

int main(int argc, char** argv) {
  int exit_status = 0;
  const std::optional<Arguments> args = parse_arguments(argc, argv, exit_status);
  if (!args) return exit_status;

  std::ofstream report_file;
  if (!args->report.empty()) {
    report_file.open(args->report);
    if (!report_file) {
      std::cerr << "esdirk-sbml-suite: cannot write " << args->report << '\n';
      return 2;
    }
    report_file << "case\toutcome\tseconds\tcomponentTags\ttestTags\tdetail\n";
  }
  long passed = 0, failed = 0, unsupported = 0;
  bool csv_failed = false;
  run_all(*args, [&](const CaseResult& result) {
    const std::string detail = one_line(result.detail);
    std::cout << result.id << ' ' << outcome_name(result.outcome) << (detail.empty() ? "" : " ")
              << detail << '\n'
              << std::flush;
    (result.outcome == Outcome::pass   ? passed
     : result.outcome == Outcome::fail ? failed
                                       : unsupported)++;
    if (report_file.is_open()) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.4f", result.seconds);
      report_file << result.id << '\t' << outcome_name(result.outcome) << '\t' << seconds << '\t'
                  << join(result.component_tags) << '\t' << join(result.test_tags) << '\t' << detail
                  << '\n';
    }
    if (!args->csv_out.empty() && !result.computed_csv.empty()) {
      std::ofstream csv(fs::path(args->csv_out) / (result.id + ".csv"));
      csv << result.computed_csv;
      if (!csv) csv_failed = true;
    }
  });
  std::cout << passed << " passed, " << failed << " failed, " << unsupported << " unsupported\n";
  if (csv_failed)
    std::cerr << "esdirk-sbml-suite: could not write every file in " << args->csv_out << '\n';
  if (report_file.is_open() && !report_file.flush())
    std::cerr << "esdirk-sbml-suite: could not write " << args->report << '\n';
  if (args->min_passed >= 0 && passed < args->min_passed) {
    std::cerr << "esdirk-sbml-suite: " << passed << " passed, below the floor of "
              << args->min_passed << '\n';
    return 1;
  }
  return failed == 0 && !csv_failed ? 0 : 1;
}
