// Small walks over the importer's expression tree.
#include "expression.hpp"

namespace esdirk::sbml::detail {

void collect_symbols(const Expr& e, std::vector<std::string>& out) {
  if (e.op == Op::symbol) out.push_back(e.name);
  for (const Expr& a : e.args) collect_symbols(a, out);
}

bool mentions(const Expr& e, const std::string& name) {
  if (e.op == Op::symbol && e.name == name) return true;
  for (const Expr& a : e.args)
    if (mentions(a, name)) return true;
  return false;
}

Expr substitute(const Expr& e, const std::string& from, const Expr& to) {
  if (e.op == Op::symbol && e.name == from) return to;
  Expr r = e;
  for (Expr& a : r.args) a = substitute(a, from, to);
  return r;
}

}  // namespace esdirk::sbml::detail
