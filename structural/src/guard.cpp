#include "esdirk/structural/guard.hpp"

#include <cctype>

namespace esdirk::structural {

namespace {
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         static_cast<unsigned char>(c) >= 0x80;
}
}  // namespace

// Recursive descent over the grammar in guard.hpp; builds nodes bottom-up.
class GuardParser {
 public:
  GuardParser(std::string_view text, const std::function<int(std::string_view)>& index,
              const SourceLocation& where)
      : text_(text), index_(index), where_(where) {}

  Guard parse() {
    skip();
    if (pos_ == text_.size()) fail("empty guard after 'if'");
    int root = disjunction();
    skip();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "' in guard");
    // A guard that is literally `true` is stored as the empty (always) guard.
    if (guard_.nodes_[root].kind == Guard::Kind::constant && guard_.nodes_[root].value) {
      return Guard{};
    }
    return guard_;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    SourceLocation at = where_;
    if (at.line > 0) at.column += static_cast<int>(pos_);
    throw ParseError(at, message);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  int add(Guard::Node node) {
    guard_.nodes_.push_back(node);
    return static_cast<int>(guard_.nodes_.size()) - 1;
  }
  int disjunction() {
    int left = conjunction();
    for (skip(); pos_ < text_.size() && text_[pos_] == '|'; skip()) {
      ++pos_;
      int right = conjunction();
      left = add({Guard::Kind::disjunction, true, -1, left, right});
    }
    return left;
  }
  int conjunction() {
    int left = factor();
    for (skip(); pos_ < text_.size() && text_[pos_] == '&'; skip()) {
      ++pos_;
      int right = factor();
      left = add({Guard::Kind::conjunction, true, -1, left, right});
    }
    return left;
  }
  int factor() {
    skip();
    if (pos_ == text_.size()) fail("guard ends where a mode variable was expected");
    char c = text_[pos_];
    if (c == '!') {
      ++pos_;
      int inner = factor();
      return add({Guard::Kind::negation, true, -1, inner, -1});
    }
    if (c == '(') {
      ++pos_;
      int inner = disjunction();
      skip();
      if (pos_ == text_.size() || text_[pos_] != ')') fail("missing ')' in guard");
      ++pos_;
      return inner;
    }
    if (!is_name_char(c)) fail("unexpected '" + std::string(1, c) + "' in guard");
    std::size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    if (name == "true" || name == "false") {
      return add({Guard::Kind::constant, name == "true", -1, -1, -1});
    }
    int v = index_(name);
    if (v < 0) {
      pos_ = start;
      fail("unknown mode variable '" + std::string(name) + "' in guard (declare it with 'modes')");
    }
    return add({Guard::Kind::variable, true, v, -1, -1});
  }

  std::string_view text_;
  const std::function<int(std::string_view)>& index_;
  SourceLocation where_;
  std::size_t pos_ = 0;
  Guard guard_;
};

Guard Guard::parse(std::string_view text, const std::function<int(std::string_view)>& mode_index,
                   const SourceLocation& where) {
  return GuardParser(text, mode_index, where).parse();
}

bool Guard::evaluate(const std::vector<bool>& mode) const {
  return nodes_.empty() || evaluate(static_cast<int>(nodes_.size()) - 1, mode);
}

bool Guard::evaluate(int node, const std::vector<bool>& mode) const {
  const Node& n = nodes_[node];
  switch (n.kind) {
    case Kind::constant:
      return n.value;
    case Kind::variable:
      return mode.at(n.variable);
    case Kind::negation:
      return !evaluate(n.left, mode);
    case Kind::conjunction:
      return evaluate(n.left, mode) && evaluate(n.right, mode);
    case Kind::disjunction:
      return evaluate(n.left, mode) || evaluate(n.right, mode);
  }
  return false;
}

std::string Guard::to_string(const std::vector<std::string>& names) const {
  if (nodes_.empty()) return "true";
  return to_string(static_cast<int>(nodes_.size()) - 1, names, 0);
}

// Precedence: 0 top, 1 inside '|', 2 inside '&'; parentheses only where needed.
std::string Guard::to_string(int node, const std::vector<std::string>& names, int parent) const {
  const Node& n = nodes_[node];
  switch (n.kind) {
    case Kind::constant:
      return n.value ? "true" : "false";
    case Kind::variable:
      return names.at(n.variable);
    case Kind::negation: {
      std::string s = "!";
      s.append(to_string(n.left, names, 3));
      return s;
    }
    case Kind::conjunction: {
      std::string s = to_string(n.left, names, 2) + " & " + to_string(n.right, names, 2);
      return parent > 2 ? "(" + s + ")" : s;
    }
    case Kind::disjunction: {
      std::string s = to_string(n.left, names, 1) + " | " + to_string(n.right, names, 1);
      return parent > 1 ? "(" + s + ")" : s;
    }
  }
  return "";
}

}  // namespace esdirk::structural
