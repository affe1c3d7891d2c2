// esdirk-structural: structural analysis of a (multimode) DAE model file.
//
//   esdirk-structural [--json] MODEL_FILE
//
// Exit status: 0 well posed in every mode and mode change, 3 analysed but not well posed,
// 1 input error (message "file:line:column: error: ..."), 2 usage error.

#include <iostream>
#include <string>

#include "esdirk/structural/analysis.hpp"

namespace {

constexpr const char* usage =
    "usage: esdirk-structural [--json] MODEL_FILE\n"
    "Structural analysis of a (multimode) DAE: per mode the Sigma-method offsets, indices,\n"
    "latent equations, System Jacobian blocks, and per mode change the conflicts and the\n"
    "restart system. The model format is described in doc/structural-guide.md.\n";

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "esdirk-structural: unknown option '" << arg << "'\n" << usage;
      return 2;
    } else if (path.empty()) {
      path = arg;
    } else {
      std::cerr << "esdirk-structural: more than one model file given\n" << usage;
      return 2;
    }
  }
  if (path.empty()) {
    std::cerr << usage;
    return 2;
  }
  try {
    using namespace esdirk::structural;
    const Analysis analysis = analyse_file(path);
    std::cout << (json ? json_report(analysis) : text_report(analysis));
    return analysis.well_posed() ? 0 : 3;
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
}
