#pragma once
// What the C++ examples share: --help, CSV files, and plots drawn by a Python with matplotlib.
//
// The Python is the one CMake found when the examples were configured (examples/CMakeLists.txt:
// Debian's /usr/bin/python3 first, then others, each checked to import matplotlib), compiled in
// as ESDIRK_EXAMPLE_PYTHON; the environment variable ESDIRK_PLOT_PYTHON overrides it (empty:
// no plots). Without one, or when the script fails, the example prints one line and goes on:
// a plot is never a reason to fail, and the script's own messages go to a log file next to
// the CSV instead of the terminal.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef ESDIRK_EXAMPLE_PYTHON
#define ESDIRK_EXAMPLE_PYTHON ""
#endif

namespace example_support {

/// True when the command line asks for help (--help or -h anywhere); then `usage` has been
/// printed to stdout, and the caller returns 0.
inline bool print_help_if_asked(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(usage, stdout);
      return true;
    }
  return false;
}

/// Writes rows (the first row is the header) as CSV.
inline bool write_csv(const std::string& path, const std::vector<std::string>& header,
                      const std::vector<std::vector<double>>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  for (std::size_t i = 0; i < header.size(); ++i) std::fprintf(f, "%s%s", i ? "," : "", header[i].c_str());
  std::fprintf(f, "\n");
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) std::fprintf(f, "%s%.17g", i ? "," : "", row[i]);
    std::fprintf(f, "\n");
  }
  return std::fclose(f) == 0;
}

/// The Python that draws the plots, or "" for none.
inline std::string plot_python() {
  if (const char* python = std::getenv("ESDIRK_PLOT_PYTHON")) return python;
  return ESDIRK_EXAMPLE_PYTHON;
}

/// Runs the Python script `script` with the argument `dir` (the folder of the CSV files, where
/// the script writes its PNG files; its output goes to dir/<script name>.log) and prints one
/// line: the pictures written, or why there are none. Returns true if the script succeeded.
inline bool run_plot_script(const std::string& script, const std::string& dir,
                            const std::string& pictures) {
  const std::string python = plot_python();
  if (python.empty()) {
    std::printf("plots skipped: no Python with matplotlib was found when the examples were "
                "configured (Debian: python3-matplotlib; or set ESDIRK_PLOT_PYTHON)\n");
    return false;
  }
  const std::string name = script.substr(script.find_last_of('/') + 1);
  const std::string log = dir + "/" + name.substr(0, name.rfind(".py")) + ".log";
  const std::string command =
      "'" + python + "' '" + script + "' '" + dir + "' > '" + log + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::printf("plots skipped: %s could not draw them (its messages are in %s)\n", python.c_str(),
                log.c_str());
    return false;
  }
  std::printf("plots: %s in %s\n", pictures.c_str(), dir.c_str());
  return true;
}

/// Writes the script text `script` to dir/name and runs it as run_plot_script does.
inline bool plot(const std::string& dir, const std::string& name, const std::string& script,
                 const std::string& pictures) {
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f || std::fputs(script.c_str(), f) < 0 || std::fclose(f) != 0) {
    std::printf("plots skipped: cannot write %s\n", path.c_str());
    return false;
  }
  return run_plot_script(path, dir, pictures);
}

}  // namespace example_support
