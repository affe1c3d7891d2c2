#include "program_slice.hpp"

#include <algorithm>

namespace esdirk::sbml::detail {
namespace {

// The operand slots an instruction reads (program.hpp: select reads three, the binary
// operations two, everything else one).
int operand_count(Op op) {
  switch (op) {
    case Op::select: return 3;
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::pow: case Op::pow_const:
    case Op::lt: case Op::gt: case Op::le: case Op::ge: case Op::eq: case Op::ne:
    case Op::logical_and: case Op::logical_or: case Op::logical_xor: case Op::min:
    case Op::max: case Op::rem: case Op::quotient:
      return 2;
    default: return 1;
  }
}

void mark_operands(const Instruction& in, std::vector<char>& needed) {
  const int operands[3] = {in.a, in.b, in.c};
  for (int k = 0; k < operand_count(in.op); ++k) needed[static_cast<std::size_t>(operands[k])] = 1;
}

int slot_bound(const Program& program) {
  int bound = 0;
  for (const Instruction& in : program.code) bound = std::max({bound, in.dst + 1, in.a + 1, in.b + 1, in.c + 1});
  return bound;
}

}  // namespace

// Backwards over the concatenated instructions: an instruction is kept when a later kept one
// (or an output) reads its destination before it is written again; its operands are then read.
Program slice(std::span<const Program* const> parts, std::span<const int> outputs) {
  int bound = 0;
  for (const Program* p : parts) bound = std::max(bound, slot_bound(*p));
  for (int o : outputs) bound = std::max(bound, o + 1);
  std::vector<char> needed(static_cast<std::size_t>(bound), 0);
  for (int o : outputs) needed[static_cast<std::size_t>(o)] = 1;
  std::vector<Instruction> kept;
  for (auto part = parts.rbegin(); part != parts.rend(); ++part)
    for (auto in = (*part)->code.rbegin(); in != (*part)->code.rend(); ++in) {
      if (!needed[static_cast<std::size_t>(in->dst)]) continue;
      needed[static_cast<std::size_t>(in->dst)] = 0;
      mark_operands(*in, needed);
      kept.push_back(*in);
    }
  std::reverse(kept.begin(), kept.end());
  return Program{std::move(kept)};
}

std::vector<int> inputs_read(const Program& program, std::span<const int> outputs, int input_count) {
  int bound = std::max(slot_bound(program), input_count);
  for (int o : outputs) bound = std::max(bound, o + 1);
  std::vector<char> needed(static_cast<std::size_t>(bound), 0);
  for (int o : outputs) needed[static_cast<std::size_t>(o)] = 1;
  for (auto in = program.code.rbegin(); in != program.code.rend(); ++in) {
    if (!needed[static_cast<std::size_t>(in->dst)]) continue;
    needed[static_cast<std::size_t>(in->dst)] = 0;
    mark_operands(*in, needed);
  }
  std::vector<int> inputs;
  for (int i = 0; i < input_count; ++i)
    if (needed[static_cast<std::size_t>(i)]) inputs.push_back(i);
  return inputs;
}

}  // namespace esdirk::sbml::detail
