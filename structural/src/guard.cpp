#include "esdirk/structural/guard.hpp"

#include <cctype>

#include "esdirk/structural/limits.hpp"

namespace esdirk::structural {

namespace {
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         static_cast<unsigned char>(c) >= 0x80;
}
}  // namespace

// Recursive descent over the grammar in guard.hpp; builds nodes bottom-up. Only '(' and '!'
// recurse, and `depth_` bounds them, so the parser's stack use is bounded too.
class GuardParser {
 public:
  GuardParser(std::string_view text, const std::function<int(std::string_view)>& index,
              const SourceLocation& where)
      : text_(text), index_(index), where_(where) {}

  Guard parse() {
    if (text_.size() > static_cast<std::size_t>(max_guard_length)) {
      fail_limit("the guard has " + std::to_string(text_.size()) + " bytes; the limit is " +
                 std::to_string(max_guard_length));
    }
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
  SourceLocation here() const {
    SourceLocation at = where_;
    if (at.line > 0) at.column += static_cast<int>(pos_);
    return at;
  }
  [[noreturn]] void fail(const std::string& message) const { throw ParseError(here(), message); }
  [[noreturn]] void fail_limit(const std::string& message) const {
    throw LimitExceeded(here(), message);
  }
  // Entered for each '(' and '!'; the matching leave() follows the nested factor.
  void enter() {
    if (++depth_ > max_guard_depth) {
      fail_limit("the guard nests '(' and '!' more than " + std::to_string(max_guard_depth) +
                 " deep");
    }
  }
  void leave() { --depth_; }
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
      enter();
      ++pos_;
      int inner = factor();
      leave();
      return add({Guard::Kind::negation, true, -1, inner, -1});
    }
    if (c == '(') {
      enter();
      ++pos_;
      int inner = disjunction();
      skip();
      if (pos_ == text_.size() || text_[pos_] != ')') fail("missing ')' in guard");
      ++pos_;
      leave();
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
  int depth_ = 0;
  Guard guard_;
};

Guard Guard::parse(std::string_view text, const std::function<int(std::string_view)>& mode_index,
                   const SourceLocation& where) {
  return GuardParser(text, mode_index, where).parse();
}

bool Guard::evaluate(const std::vector<bool>& mode) const {
  if (nodes_.empty()) return true;
  // One forward pass: every child precedes its parent (see guard.hpp).
  std::vector<char> value(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    switch (n.kind) {
      case Kind::constant:
        value[i] = n.value;
        break;
      case Kind::variable:
        value[i] = mode.at(n.variable);
        break;
      case Kind::negation:
        value[i] = !value[n.left];
        break;
      case Kind::conjunction:
        value[i] = value[n.left] && value[n.right];
        break;
      case Kind::disjunction:
        value[i] = value[n.left] || value[n.right];
        break;
    }
  }
  return value.back();
}

// Precedence of a node's text: 1 for '|', 2 for '&', 3 for the rest; a child is parenthesized
// when its precedence is below what its parent needs ('!' needs 3, '&' 2, '|' 1). Built in one
// forward pass; a parent takes over its left child's text, so a long chain costs linear time.
std::string Guard::to_string(const std::vector<std::string>& names) const {
  if (nodes_.empty()) return "true";
  std::vector<std::string> text(nodes_.size());
  std::vector<int> precedence(nodes_.size(), 3);
  auto operand = [&](int child, int needed) {
    std::string s = std::move(text[child]);
    return precedence[child] < needed ? "(" + s + ")" : s;
  };
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    switch (n.kind) {
      case Kind::constant:
        text[i] = n.value ? "true" : "false";
        break;
      case Kind::variable:
        text[i] = names.at(n.variable);
        break;
      case Kind::negation:
        text[i] = "!" + operand(n.left, 3);
        break;
      case Kind::conjunction:
      case Kind::disjunction: {
        const bool conjunction = n.kind == Kind::conjunction;
        precedence[i] = conjunction ? 2 : 1;
        text[i] = operand(n.left, precedence[i]);
        text[i] += conjunction ? " & " : " | ";
        text[i] += operand(n.right, precedence[i]);
        break;
      }
    }
  }
  return std::move(text.back());
}

}  // namespace esdirk::structural
