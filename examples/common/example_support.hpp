#pragma once
// Plots for the event examples: the program writes its samples as CSV and a short matplotlib
// script next to them, then runs python3 on it (only when asked with --plot DIR).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace plot_support {

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

/// Writes `script` to dir/name and runs it with python3 in dir. Returns the exit status.
inline int run_python(const std::string& dir, const std::string& name, const std::string& script) {
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return -1;
  std::fputs(script.c_str(), f);
  std::fclose(f);
  const std::string command = "cd '" + dir + "' && python3 '" + name + "'";
  return std::system(command.c_str());
}

}  // namespace plot_support
