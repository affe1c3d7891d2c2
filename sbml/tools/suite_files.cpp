#include "suite_files.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace esdirk::sbml_suite {

SuiteFormatError::SuiteFormatError(const std::string& what_file, std::size_t line,
                                   const std::string& why)
    : std::runtime_error(what_file + (line ? " line " + std::to_string(line) : std::string()) +
                         ": " + why),
      line_(line) {}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits text into lines (LF or CRLF); the last line may lack its newline.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      lines.push_back(text);
      break;
    }
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

// Comma-separated fields, each trimmed; "" gives no field, "a," gives "a" and "".
std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  if (trim(text).empty()) return fields;
  while (true) {
    const std::size_t comma = text.find(',');
    fields.push_back(trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return fields;
}

// The printable form of a piece of hostile text for an error message: at most 40 characters,
// control and non-ASCII bytes as \xNN, so a message never carries raw binary.
std::string quoted(std::string_view s) {
  std::string out = "'";
  const std::size_t shown = std::min<std::size_t>(s.size(), 40);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > shown) out += "...";
  return out + "'";
}

// An SBML id as the settings name it: letters, digits, underscores (submodel outputs use
// "sub__id"), not starting with a digit.
bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::vector<std::string> identifier_list(std::string_view value, const char* file, std::size_t line,
                                         const std::string& key) {
  std::vector<std::string> ids;
  for (std::string_view field : split_fields(value)) {
    if (!is_identifier(field))
      throw SuiteFormatError(file, line, key + ": " + quoted(field) + " is not an SBML id");
    if (std::find(ids.begin(), ids.end(), field) != ids.end())
      throw SuiteFormatError(file, line, key + ": " + quoted(field) + " listed twice");
    ids.emplace_back(field);
  }
  return ids;
}

double finite_nonnegative(std::string_view value, const char* file, std::size_t line,
                          const std::string& key) {
  const std::optional<double> x = parse_number(value);
  if (!x || !std::isfinite(*x) || *x < 0)
    throw SuiteFormatError(file, line, key + ": " + quoted(value) + " is not a finite number >= 0");
  return *x;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  bool negative = false;
  std::string_view body = text;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  const std::string word = lower(body);
  if (word == "inf" || word == "infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
  // from_chars would also take "infinity", "nan(...)" and hexadecimal forms in some spellings;
  // the suite writes only decimal numbers, so anything else is refused first.
  if (body.empty() ||
      !(std::isdigit(static_cast<unsigned char>(body.front())) || body.front() == '.'))
    return std::nullopt;
  if (!std::all_of(body.begin(), body.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
               c == '+' || c == '-';
      }))
    return std::nullopt;
  double value = 0;
  const auto [end, error] =
      std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
  if (error != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -value : value;
}

CaseSettings parse_settings(std::string_view text) {
  constexpr const char* file = "settings";
  CaseSettings settings;
  std::vector<std::string> seen;
  const std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t line = i + 1;
    const std::string_view content = trim(lines[i]);
    if (content.empty()) continue;
    const std::size_t colon = content.find(':');
    if (colon == std::string_view::npos)
      throw SuiteFormatError(file, line, quoted(content) + " is not 'key: value'");
    const std::string key = lower(trim(content.substr(0, colon)));
    const std::string_view value = trim(content.substr(colon + 1));
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw SuiteFormatError(file, line, "'" + key + "' given twice");
    if (key == "start" || key == "duration") {
      if (value.empty()) {
        seen.push_back(key);
        continue;
      }
      const std::optional<double> x = parse_number(value);
      if (!x || !std::isfinite(*x))
        throw SuiteFormatError(file, line, key + ": " + quoted(value) + " is not a finite number");
      if (key == "duration" && *x < 0)
        throw SuiteFormatError(file, line, "duration " + quoted(value) + " is negative");
      (key == "start" ? settings.start : settings.duration) = *x;
    } else if (key == "steps") {
      if (!value.empty()) {
        long steps = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), steps);
        if (error != std::errc() || end != value.data() + value.size() || steps < 1 ||
            steps > max_steps)
          throw SuiteFormatError(file, line,
                                 "steps: " + quoted(value) + " is not a whole number in 1.." +
                                     std::to_string(max_steps));
        settings.steps = steps;
      }
    } else if (key == "variables") {
      settings.variables = identifier_list(value, file, line, key);
    } else if (key == "amount") {
      settings.amount = identifier_list(value, file, line, key);
    } else if (key == "concentration") {
      settings.concentration = identifier_list(value, file, line, key);
    } else if (key == "absolute") {
      settings.absolute = finite_nonnegative(value, file, line, key);
    } else if (key == "relative") {
      settings.relative = finite_nonnegative(value, file, line, key);
    } else {
      throw SuiteFormatError(file, line, "unknown key " + quoted(key));
    }
    seen.push_back(key);
  }
  for (const char* required : {"variables", "absolute", "relative"})
    if (std::find(seen.begin(), seen.end(), required) == seen.end())
      throw SuiteFormatError(file, lines.size(), std::string("no '") + required + "' line");
  // The species lists name species among the variables, each in at most one of the lists.
  for (const std::string& id : settings.amount) {
    if (std::find(settings.variables.begin(), settings.variables.end(), id) ==
        settings.variables.end())
      throw SuiteFormatError(file, lines.size(), "amount: '" + id + "' is not a variable");
    if (std::find(settings.concentration.begin(), settings.concentration.end(), id) !=
        settings.concentration.end())
      throw SuiteFormatError(file, lines.size(),
                             "'" + id + "' is listed as amount and as concentration");
  }
  for (const std::string& id : settings.concentration)
    if (std::find(settings.variables.begin(), settings.variables.end(), id) ==
        settings.variables.end())
      throw SuiteFormatError(file, lines.size(), "concentration: '" + id + "' is not a variable");
  return settings;
}

std::vector<double> time_course_times(const CaseSettings& settings) {
  if (!settings.start || !settings.duration || !settings.steps)
    throw SuiteFormatError("settings", 0, "a time course needs start, duration and steps");
  std::vector<double> times(static_cast<std::size_t>(*settings.steps) + 1);
  for (std::size_t i = 0; i < times.size(); ++i)
    times[i] = *settings.start +
               *settings.duration * static_cast<double>(i) / static_cast<double>(*settings.steps);
  return times;
}

ExpectedResults parse_results(std::string_view text,
                              const std::vector<std::string>& default_columns) {
  constexpr const char* file = "results";
  ExpectedResults results;
  const std::vector<std::string_view> lines = split_lines(text);
  bool have_columns = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t line = i + 1;
    if (trim(lines[i]).empty()) continue;
    const std::vector<std::string_view> fields = split_fields(lines[i]);
    if (!have_columns) {
      have_columns = true;
      // A header starts with a name, a data row with a number.
      if (!parse_number(fields.front())) {
        if (lower(fields.front()) != "time")
          throw SuiteFormatError(file, line,
                                 "the first column is " + quoted(fields.front()) + ", not time");
        for (std::size_t c = 1; c < fields.size(); ++c) {
          if (!is_identifier(fields[c]))
            throw SuiteFormatError(file, line,
                                   "column " + quoted(fields[c]) + " is not an SBML id");
          if (std::find(results.columns.begin(), results.columns.end(), fields[c]) !=
              results.columns.end())
            throw SuiteFormatError(file, line, "column " + quoted(fields[c]) + " given twice");
          results.columns.emplace_back(fields[c]);
        }
        continue;
      }
      results.columns = default_columns;
    }
    if (fields.size() != results.columns.size() + 1)
      throw SuiteFormatError(file, line,
                             std::to_string(fields.size()) + " values where the header has " +
                                 std::to_string(results.columns.size() + 1));
    const std::optional<double> t = parse_number(fields.front());
    if (!t || !std::isfinite(*t))
      throw SuiteFormatError(file, line,
                             "time " + quoted(fields.front()) + " is not a finite number");
    if (!results.times.empty() && !(*t > results.times.back()))
      throw SuiteFormatError(file, line, "time " + quoted(fields.front()) + " does not increase");
    results.times.push_back(*t);
    for (std::size_t c = 1; c < fields.size(); ++c) {
      const std::optional<double> x = parse_number(fields[c]);
      if (!x)
        throw SuiteFormatError(file, line,
                               "value " + quoted(fields[c]) + " of column '" +
                                   results.columns[c - 1] + "' is not a number");
      results.values.push_back(*x);
    }
  }
  if (results.times.empty()) throw SuiteFormatError(file, lines.size(), "no data rows");
  return results;
}

CaseDescription parse_description(std::string_view text) {
  CaseDescription description;
  // The tags are "key: a, b" lines inside the leading (* ... *) comment; what follows it is
  // Mathematica code, which may contain anything.
  const std::size_t close = text.find("*)");
  if (close != std::string_view::npos) text = text.substr(0, close);
  std::vector<std::string> seen;
  const std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view content = trim(lines[i]);
    const std::size_t colon = content.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key(trim(content.substr(0, colon)));
    const std::string_view value = trim(content.substr(colon + 1));
    std::vector<std::string>* list = nullptr;
    if (key == "componentTags") list = &description.component_tags;
    if (key == "testTags") list = &description.test_tags;
    if (key == "packagesPresent") list = &description.packages;
    if (key != "testType" && list == nullptr) continue;
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw SuiteFormatError("description", i + 1, "'" + key + "' given twice");
    seen.push_back(key);
    if (key == "testType") {
      description.test_type = std::string(value);
      continue;
    }
    for (std::string_view tag : split_fields(value))
      if (!tag.empty()) list->emplace_back(tag);
  }
  return description;
}

std::string format_results(const std::vector<std::string>& columns,
                           const std::vector<double>& times, const std::vector<double>& values) {
  if (values.size() != times.size() * columns.size())
    throw std::invalid_argument("format_results: values are not times x columns");
  std::ostringstream out;
  out << "time";
  for (const std::string& c : columns) out << ',' << c;
  out << '\n';
  char buf[32];
  const auto put = [&](double x) {
    if (std::isnan(x)) {
      out << "NaN";
    } else if (std::isinf(x)) {
      out << (x > 0 ? "INF" : "-INF");
    } else {
      std::snprintf(buf, sizeof buf, "%.17g", x);
      out << buf;
    }
  };
  for (std::size_t r = 0; r < times.size(); ++r) {
    put(times[r]);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out << ',';
      put(values[r * columns.size() + c]);
    }
    out << '\n';
  }
  return out.str();
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw std::runtime_error(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return text;
}

}  // namespace esdirk::sbml_suite
