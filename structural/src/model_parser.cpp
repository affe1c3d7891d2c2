#include "esdirk/structural/model_parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <unordered_map>

#include "utf8.hpp"

namespace esdirk::structural {

namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '.';
}

struct RawOccurrence {
  std::string name;
  int order = 0;
  SourceLocation at;
};

struct RawEquation {
  std::string name;
  SourceLocation at;
  std::string guard;
  SourceLocation guard_at;
  std::vector<RawOccurrence> occurrences;
};

// Scans one line; positions are 0-based internally, reported 1-based.
class LineScanner {
 public:
  LineScanner(std::string_view line, const std::string& file, int number)
      : line_(line), file_(file), number_(number) {
    // A '#' starts a comment.
    auto hash = line_.find('#');
    if (hash != std::string_view::npos) line_ = line_.substr(0, hash);
  }
  void skip_blanks() {
    while (pos_ < line_.size() &&
           (std::isspace(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == ',')) {
      ++pos_;
    }
  }
  bool at_end() {
    skip_blanks();
    return pos_ >= line_.size();
  }
  SourceLocation here() const { return {file_, number_, static_cast<int>(pos_) + 1}; }
  [[noreturn]] void fail(const std::string& message) const { throw ParseError(here(), message); }
  SourceLocation at(std::size_t position) const {
    return {file_, number_, static_cast<int>(position) + 1};
  }
  std::string name(const char* what) {
    skip_blanks();
    if (pos_ >= line_.size()) fail(std::string("expected ") + what + " at end of line");
    if (!is_name_start(line_[pos_])) {
      fail(std::string("expected ") + what + ", found '" + std::string(1, line_[pos_]) + "'");
    }
    std::size_t start = pos_;
    while (pos_ < line_.size() && is_name_char(line_[pos_])) ++pos_;
    if (pos_ - start > static_cast<std::size_t>(max_name_length)) {
      throw LimitExceeded(at(start), "a name of " + std::to_string(pos_ - start) +
                                         " bytes; the limit is " +
                                         std::to_string(max_name_length));
    }
    return std::string(line_.substr(start, pos_ - start));
  }
  bool peek(char c) {
    skip_blanks();
    return pos_ < line_.size() && line_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  // Occurrence: NAME followed by primes or by ^k.
  RawOccurrence occurrence() {
    skip_blanks();
    RawOccurrence o;
    o.at = here();
    o.name = name("a variable");
    std::size_t order_at = pos_;
    if (pos_ < line_.size() && line_[pos_] == '\'') {
      while (pos_ < line_.size() && line_[pos_] == '\'') ++pos_;
      check_order(std::to_string(pos_ - order_at), pos_ - order_at, order_at);
      o.order = static_cast<int>(pos_ - order_at);
    } else if (pos_ < line_.size() && line_[pos_] == '^') {
      ++pos_;
      std::size_t start = pos_;
      while (pos_ < line_.size() && std::isdigit(static_cast<unsigned char>(line_[pos_]))) ++pos_;
      if (start == pos_) fail("expected a derivative order (a non-negative integer) after '^'");
      std::string digits(line_.substr(start, pos_ - start));
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
      // More digits than the limit has cannot be within it (and may not fit any integer).
      std::size_t value = digits.size() > 9 ? std::string::npos : std::stoul(digits);
      check_order(digits.size() > 40 ? digits.substr(0, 40) + "..." : digits, value, start);
      o.order = static_cast<int>(value);
    }
    if (pos_ < line_.size() && !std::isspace(static_cast<unsigned char>(line_[pos_])) &&
        line_[pos_] != ',') {
      fail("unexpected '" + std::string(1, line_[pos_]) + "' after variable '" + o.name + "'");
    }
    return o;
  }
  void check_order(const std::string& shown, std::size_t order, std::size_t position) const {
    if (order > static_cast<std::size_t>(max_derivative_order)) {
      throw LimitExceeded(at(position), "derivative order " + shown + " exceeds the limit " +
                                            std::to_string(max_derivative_order));
    }
  }
  // The guard text runs from here to the ':' that ends the equation head.
  std::string until_colon(SourceLocation& at) {
    skip_blanks();
    at = here();
    auto colon = line_.find(':', pos_);
    if (colon == std::string_view::npos) fail("expected ':' after the guard");
    std::string text(line_.substr(pos_, colon - pos_));
    pos_ = colon;
    return text;
  }

 private:
  std::string_view line_;
  const std::string& file_;
  int number_;
  std::size_t pos_ = 0;
};

class ModelParser {
 public:
  explicit ModelParser(const std::string& file) : file_(file) {}

  Model parse(std::string_view text) {
    if (text.size() > max_model_text_size) {
      throw LimitExceeded({file_, 1, 1}, "the model text is longer than the limit of " +
                                             std::to_string(max_model_text_size) + " bytes");
    }
    check_utf8(text);
    int number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      statement(LineScanner(line, file_, ++number));
      start = end + 1;
    }
    return resolve();
  }

 private:
  // Names may hold any non-ASCII character, and reports (JSON above all) must stay UTF-8, so
  // the whole text must be well-formed UTF-8; the first bad byte is reported.
  void check_utf8(std::string_view text) const {
    std::size_t bad = utf8::first_invalid(text);
    if (bad == std::string_view::npos) return;
    std::size_t line_start = text.rfind('\n', bad);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + line_start, '\n'));
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[bad]));
    throw ParseError({file_, line, static_cast<int>(bad - line_start) + 1},
                     std::string("the text is not valid UTF-8 (byte ") + hex + ")");
  }

  void statement(LineScanner s) {
    if (s.at_end()) return;
    SourceLocation at = s.here();
    std::string keyword = s.name("a statement");
    if (keyword == "model") {
      if (named_) throw ParseError(at, "the model name is given twice");
      named_ = true;
      model_.name = s.name("the model name");
    } else if (keyword == "time") {
      std::string kind = s.name("'continuous' or 'discrete'");
      if (kind == "continuous") {
        model_.time = TimeDomain::continuous;
      } else if (kind == "discrete") {
        model_.time = TimeDomain::discrete;
      } else {
        throw ParseError(at, "time must be 'continuous' or 'discrete', not '" + kind + "'");
      }
    } else if (keyword == "modes") {
      if (model_.modes_declared_at.line == 0) model_.modes_declared_at = at;
      do {
        SourceLocation where = s.here();
        std::string n = s.name("a mode variable");
        if (mode_index_.count(n)) {
          throw ParseError(where, "mode variable '" + n + "' is declared twice");
        }
        if (model_.mode_variables.size() == static_cast<std::size_t>(max_mode_variables)) {
          throw LimitExceeded(where, "too many mode variables (more than " +
                                         std::to_string(max_mode_variables) +
                                         " cannot be enumerated)");
        }
        mode_index_.emplace(n, static_cast<int>(model_.mode_variables.size()));
        model_.mode_variables.push_back(n);
      } while (!s.at_end());
      return;
    } else if (keyword == "variables" || keyword == "dependent" || keyword == "free" ||
               keyword == "existential") {
      VariableRole role = keyword == "free"          ? VariableRole::free
                          : keyword == "existential" ? VariableRole::existential
                                                     : VariableRole::dependent;
      do {
        s.skip_blanks();
        SourceLocation where = s.here();
        std::string n = s.name("a variable name");
        auto [previous, fresh] =
            variable_index_.emplace(n, static_cast<int>(model_.variables.size()));
        if (!fresh) {
          throw ParseError(where, "variable '" + n + "' is declared twice (first at " +
                                      model_.variables[previous->second].declared_at.to_string() +
                                      ")");
        }
        model_.variables.push_back({n, role, where});
      } while (!s.at_end());
      return;
    } else if (keyword == "equation") {
      RawEquation e;
      s.skip_blanks();
      e.at = s.here();
      e.name = s.name("an equation name");
      if (!s.peek(':')) {
        SourceLocation if_at = s.here();
        std::string word = s.name("'if' or ':'");
        if (word != "if") throw ParseError(if_at, "expected 'if' or ':' after the equation name");
        e.guard = s.until_colon(e.guard_at);
      }
      s.expect(':');
      while (!s.at_end()) e.occurrences.push_back(s.occurrence());
      raw_.push_back(std::move(e));
      return;
    } else {
      throw ParseError(at, "unknown statement '" + keyword +
                               "' (expected model, time, modes, variables, free, existential or "
                               "equation)");
    }
    if (!s.at_end()) s.fail("unexpected text after the statement");
  }

  Model resolve() {
    auto mode_index = [this](std::string_view n) {
      auto it = mode_index_.find(std::string(n));
      return it == mode_index_.end() ? -1 : it->second;
    };
    // Per variable, its occurrence in the equation being resolved (-1: none yet); reset after
    // each equation only where it was set, so resolving is linear in the text.
    std::vector<int> slot(model_.variables.size(), -1);
    for (const RawEquation& raw : raw_) {
      Equation e;
      e.name = raw.name;
      e.defined_at = raw.at;
      if (!raw.guard.empty() || raw.guard_at.line > 0) {
        e.guard = Guard::parse(raw.guard, mode_index, raw.guard_at);
      }
      for (const RawOccurrence& o : raw.occurrences) {
        auto found = variable_index_.find(o.name);
        if (found == variable_index_.end()) {
          throw ParseError(o.at, "unknown variable '" + o.name + "' in equation '" + raw.name +
                                     "' (declare it with 'variables', 'free' or 'existential')");
        }
        int v = found->second;
        if (slot[v] < 0) {
          slot[v] = static_cast<int>(e.occurrences.size());
          e.occurrences.push_back({v, {o.order}, o.at});
        } else {
          e.occurrences[slot[v]].orders.push_back(o.order);
        }
      }
      for (Occurrence& o : e.occurrences) {
        slot[o.variable] = -1;
        std::sort(o.orders.begin(), o.orders.end());
        o.orders.erase(std::unique(o.orders.begin(), o.orders.end()), o.orders.end());
      }
      model_.equations.push_back(std::move(e));
    }
    if (model_.equations.empty()) {
      throw ParseError({file_, 1, 1},
                       "the model has no equations (an empty model cannot be "
                       "analysed)");
    }
    validate_model(model_);
    return model_;
  }

  std::string file_;
  Model model_;
  bool named_ = false;
  std::vector<RawEquation> raw_;
  // Name lookups in constant time: declaring n names must not cost n^2.
  std::unordered_map<std::string, int> variable_index_;
  std::unordered_map<std::string, int> mode_index_;
};

}  // namespace

Model parse_model(std::string_view text, const std::string& source_name) {
  return ModelParser(source_name).parse(text);
}

Model read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError({path, 1, 1}, "cannot open the model file");
  // Read at most one byte more than the limit, so that an endless or huge file (a device, a
  // pipe) is refused by parse_model instead of filling the memory.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= max_model_text_size && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  // Report the file name as given, so messages stay free of machine-specific prefixes.
  return parse_model(text, path);
}

}  // namespace esdirk::structural
