#pragma once
// Reverse-mode automatic differentiation by a small tape (doc/ad-guide.md, "Reverse mode").
//
// While a Tape is recording (Tape::Recording, one per thread), every operation on Var appends
// one node: the indices of its (at most two) operands and the partial derivatives with respect
// to them. A sweep from the last node to the first then gives the vector-Jacobian product
// w^T (d outputs / d inputs) for any weights w in one pass over the nodes, whatever the number
// of inputs: what the adjoint needs for w^T [f_p; g_p] with many parameters.
//
// A Var that is not on the tape (index -1) is a constant; operations on constants only record
// nothing. The tape's storage grows to the largest recording and is kept (clear() does not
// free), so repeated recordings of one model do not allocate.

#include <compare>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include "esdirk/ad/scalar_functions.hpp"

namespace esdirk::ad {

class Tape {
 public:
  struct Node {
    int a = -1, b = -1;       ///< operand nodes (-1: none)
    double da = 0.0, db = 0.0;  ///< partial derivatives with respect to them
  };

  /// Makes `tape` the recording tape of this thread for the lifetime of the object (nests:
  /// the previous one comes back).
  class Recording {
   public:
    explicit Recording(Tape& tape) : previous_(active_) { active_ = &tape; }
    ~Recording() { active_ = previous_; }
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

   private:
    Tape* previous_;
  };

  /// The recording tape of this thread, or null.
  static Tape* active() { return active_; }

  void clear() { nodes_.clear(); }
  void reserve(std::size_t nodes) { nodes_.reserve(nodes); }
  int size() const { return static_cast<int>(nodes_.size()); }
  std::size_t capacity() const { return nodes_.capacity(); }

  /// Appends a node; returns its index.
  int push(int a, double da, int b, double db) {
    nodes_.push_back({a, b, da, db});
    return static_cast<int>(nodes_.size()) - 1;
  }
  /// An input: a node without operands.
  int input() { return push(-1, 0.0, -1, 0.0); }

  /// The reverse sweep: on entry `adjoints` (size() values) holds the weights of the output
  /// nodes and zeros elsewhere; on return the adjoint of every node, inputs included.
  void sweep(std::span<double> adjoints) const {
    for (int k = size() - 1; k >= 0; --k) {
      const double w = adjoints[static_cast<std::size_t>(k)];
      if (w == 0.0) continue;
      const Node& node = nodes_[static_cast<std::size_t>(k)];
      if (node.a >= 0) adjoints[static_cast<std::size_t>(node.a)] += node.da * w;
      if (node.b >= 0) adjoints[static_cast<std::size_t>(node.b)] += node.db * w;
    }
  }

 private:
  std::vector<Node> nodes_;
  static inline thread_local Tape* active_ = nullptr;
};

/// A reverse-mode scalar: its value and its node on the recording tape (-1: a constant).
class Var {
 public:
  double v = 0.0;
  int index = -1;

  constexpr Var() = default;
  constexpr Var(double value) : v(value) {}  // NOLINT(google-explicit-constructor): constants
  /// A new input on the recording tape (there must be one).
  static Var input(double value) { return Var(value, Tape::active()->input()); }

  constexpr double value() const { return v; }

  static Var unary(const Var& a, double value, double dvalue) {
    if (a.index < 0) return Var(value);
    return Var(value, Tape::active()->push(a.index, dvalue, -1, 0.0));
  }
  static Var binary(const Var& a, const Var& b, double value, double da, double db) {
    if (a.index < 0) return unary(b, value, db);
    if (b.index < 0) return unary(a, value, da);
    return Var(value, Tape::active()->push(a.index, da, b.index, db));
  }

  friend Var operator+(const Var& a) { return a; }
  friend Var operator-(const Var& a) { return unary(a, -a.v, -1.0); }
  friend Var operator+(const Var& a, const Var& b) { return binary(a, b, a.v + b.v, 1.0, 1.0); }
  friend Var operator-(const Var& a, const Var& b) { return binary(a, b, a.v - b.v, 1.0, -1.0); }
  friend Var operator*(const Var& a, const Var& b) { return binary(a, b, a.v * b.v, b.v, a.v); }
  friend Var operator/(const Var& a, const Var& b) {
    const double inverse = 1.0 / b.v, q = a.v * inverse;
    return binary(a, b, q, inverse, -q * inverse);
  }
  friend Var operator+(const Var& a, double b) { return unary(a, a.v + b, 1.0); }
  friend Var operator+(double a, const Var& b) { return unary(b, a + b.v, 1.0); }
  friend Var operator-(const Var& a, double b) { return unary(a, a.v - b, 1.0); }
  friend Var operator-(double a, const Var& b) { return unary(b, a - b.v, -1.0); }
  friend Var operator*(const Var& a, double b) { return unary(a, a.v * b, b); }
  friend Var operator*(double a, const Var& b) { return unary(b, a * b.v, a); }
  friend Var operator/(const Var& a, double b) { return unary(a, a.v / b, 1.0 / b); }
  friend Var operator/(double a, const Var& b) {
    const double q = a / b.v;
    return unary(b, q, -q / b.v);
  }

  Var& operator+=(const Var& b) { return *this = *this + b; }
  Var& operator-=(const Var& b) { return *this = *this - b; }
  Var& operator*=(const Var& b) { return *this = *this * b; }
  Var& operator/=(const Var& b) { return *this = *this / b; }
  Var& operator+=(double b) { return *this = *this + b; }
  Var& operator-=(double b) { return *this = *this - b; }
  Var& operator*=(double b) { return *this = *this * b; }
  Var& operator/=(double b) { return *this = *this / b; }

  friend bool operator==(const Var& a, const Var& b) { return a.v == b.v; }
  friend bool operator==(const Var& a, double b) { return a.v == b; }
  friend std::partial_ordering operator<=>(const Var& a, const Var& b) { return a.v <=> b.v; }
  friend std::partial_ordering operator<=>(const Var& a, double b) { return a.v <=> b; }

 private:
  Var(double value, int node) : v(value), index(node) {}
};

template <>
struct is_scalar<Var> : std::true_type {};

}  // namespace esdirk::ad
