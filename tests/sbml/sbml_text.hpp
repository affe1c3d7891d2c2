#pragma once
// Small SBML Level 3 Version 2 documents for the tests, written inline.
#include <string>

namespace sbml_text {

inline std::string document(const std::string& model_body) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="m">)" + model_body + R"(
  </model>
</sbml>)";
}

inline std::string math(const std::string& content) {
  return R"(<math xmlns="http://www.w3.org/1998/Math/MathML">)" + content + "</math>";
}

}  // namespace sbml_text
