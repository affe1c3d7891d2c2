// f, g, the event functions and their exact derivatives from the compiled programs.
#include "sbml_problem.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace esdirk::sbml::detail {

SbmlProblem::SbmlProblem(const CompiledModel& model)
    : HybridProblem(model.nx, model.nz, model.np, model.ne), model_(model) {
  slots_.assign(static_cast<std::size_t>(model.slot_count), 0.0);
  dual_.assign(static_cast<std::size_t>(model.slot_count), Dual(0.0));
  for (const auto& [slot, value] : model.constants) {
    slots_[static_cast<std::size_t>(slot)] = value;
    dual_[static_cast<std::size_t>(slot)] = Dual(value);
  }
  size_execution(exec_);
  size_execution(exec_dual_);
  const std::size_t inputs = static_cast<std::size_t>(1 + model.nx + model.nz + model.np);
  rows_.assign(static_cast<std::size_t>(model.ne) * inputs, 0.0);
  // No point yet: a time no call can ask for.
  rows_point_.assign(inputs, 0.0);
  rows_point_[0] = std::numeric_limits<double>::quiet_NaN();
  row_ready_.assign(static_cast<std::size_t>(model.ne), 0);
  for (ExecutionKey* key : {&executed_, &differentiated_}) {
    key->inputs.assign(inputs, 0.0);
    key->fired.assign(static_cast<std::size_t>(model.ne), 0);
  }
  reset_dx_.assign(static_cast<std::size_t>(model.nx) * inputs, 0.0);
  reset_dp_.assign(static_cast<std::size_t>(model.np) * inputs, 0.0);
}

void SbmlProblem::load(double t, ConstVector x, ConstVector z, ConstVector p) {
  double* s = slots_.data();
  s[0] = t;
  std::copy(x.begin(), x.end(), s + model_.x_offset);
  std::copy(z.begin(), z.end(), s + model_.z_offset);
  std::copy(p.begin(), p.end(), s + model_.p_offset);
  run(model_.dynamics, s);
}

void SbmlProblem::load_dual(double t, ConstVector x, ConstVector z, ConstVector p) {
  Dual* s = dual_.data();
  s[0] = Dual(t);
  for (std::size_t i = 0; i < x.size(); ++i) s[static_cast<std::size_t>(model_.x_offset) + i] = Dual(x[i]);
  for (std::size_t i = 0; i < z.size(); ++i) s[static_cast<std::size_t>(model_.z_offset) + i] = Dual(z[i]);
  for (std::size_t i = 0; i < p.size(); ++i) s[static_cast<std::size_t>(model_.p_offset) + i] = Dual(p[i]);
}

void SbmlProblem::load_directions(double t, ConstVector x, ConstVector z, ConstVector p, ConstMatrixRef Sx,
                                  ConstMatrixRef Sz, ConstMatrixRef P, int first, int count) {
  load_dual(t, x, z, p);
  for (int k = 0; k < count; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    for (int i = 0; i < nx(); ++i) dual_[static_cast<std::size_t>(model_.x_offset + i)].d[kk] = Sx(i, first + k);
    if (Sz.data)
      for (int i = 0; i < nz(); ++i) dual_[static_cast<std::size_t>(model_.z_offset + i)].d[kk] = Sz(i, first + k);
    for (int i = 0; i < np(); ++i) dual_[static_cast<std::size_t>(model_.p_offset + i)].d[kk] = P(i, first + k);
  }
  run(model_.dynamics, dual_.data());
}

void SbmlProblem::load_unit_directions(double t, ConstVector x, ConstVector z, ConstVector p, int first, int count) {
  load_dual(t, x, z, p);
  for (int k = 0; k < count; ++k) dual_[static_cast<std::size_t>(model_.x_offset + first + k)].d[static_cast<std::size_t>(k)] = 1.0;
  run(model_.dynamics, dual_.data());
}

int SbmlProblem::evaluate(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector, Vector f,
                          Vector g) {
  load(t, x, z, p);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = slots_[static_cast<std::size_t>(model_.f_slots[i])];
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = slots_[static_cast<std::size_t>(model_.g_slots[i])];
  for (double v : f)
    if (!std::isfinite(v)) return 1;
  for (double v : g)
    if (!std::isfinite(v)) return 1;
  return 0;
}

// Chunked forward mode: 8 input slots seeded per pass of the dynamics program.
int SbmlProblem::jacobian(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector, MatrixRef J) {
  load_dual(t, x, z, p);
  const int n = nx() + nz();
  for (int first = 0; first < n; first += 8) {
    const int count = std::min(8, n - first);
    for (int k = 0; k < count; ++k) dual_[static_cast<std::size_t>(model_.x_offset + first + k)].d[static_cast<std::size_t>(k)] = 1.0;
    run(model_.dynamics, dual_.data());
    for (int i = 0; i < n; ++i) {
      const Dual& out = dual_[static_cast<std::size_t>(i < nx() ? model_.f_slots[static_cast<std::size_t>(i)]
                                                                : model_.g_slots[static_cast<std::size_t>(i - nx())])];
      for (int k = 0; k < count; ++k) J(i, first + k) = out.d[static_cast<std::size_t>(k)];
    }
    for (int k = 0; k < count; ++k) dual_[static_cast<std::size_t>(model_.x_offset + first + k)].d[static_cast<std::size_t>(k)] = 0.0;
  }
  return 0;
}

int SbmlProblem::parameter_jacobian(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                                    MatrixRef Jp) {
  load_dual(t, x, z, p);
  const int n = nx() + nz();
  for (int first = 0; first < np(); first += 8) {
    const int count = std::min(8, np() - first);
    for (int k = 0; k < count; ++k) dual_[static_cast<std::size_t>(model_.p_offset + first + k)].d[static_cast<std::size_t>(k)] = 1.0;
    run(model_.dynamics, dual_.data());
    for (int i = 0; i < n; ++i) {
      const Dual& out = dual_[static_cast<std::size_t>(i < nx() ? model_.f_slots[static_cast<std::size_t>(i)]
                                                                : model_.g_slots[static_cast<std::size_t>(i - nx())])];
      for (int k = 0; k < count; ++k) Jp(i, first + k) = out.d[static_cast<std::size_t>(k)];
    }
    for (int k = 0; k < count; ++k) dual_[static_cast<std::size_t>(model_.p_offset + first + k)].d[static_cast<std::size_t>(k)] = 0.0;
  }
  return 0;
}

// Only the instructions the event functions need (not f and g): the solver calls this at every
// sample of every step and while it locates an event.
int SbmlProblem::events(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector, Vector h) {
  double* s = slots_.data();
  s[0] = t;
  std::copy(x.begin(), x.end(), s + model_.x_offset);
  std::copy(z.begin(), z.end(), s + model_.z_offset);
  std::copy(p.begin(), p.end(), s + model_.p_offset);
  run(model_.event_values, s);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = slots_[static_cast<std::size_t>(model_.h_slots[k])];
  return 0;
}

// Row [h_t, h_x, h_z, h_p]: the inputs are the slots 0 .. p_offset + np - 1 in this order.
// The solver asks for the rows one component at a time (the fired ones, those near zero), often
// several times at one point: a row is formed when first asked for at a point, by forward
// sweeps over its own slice (the instructions its value needs), seeded on the inputs it reads
// only, and kept for that point. The entries of the inputs it does not read are zero.
int SbmlProblem::event_jacobian(int, int k, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                                Vector row) {
  const std::size_t n = static_cast<std::size_t>(1 + nx() + nz() + np());
  const bool same = rows_point_[0] == t && std::equal(x.begin(), x.end(), rows_point_.begin() + 1) &&
                    std::equal(z.begin(), z.end(), rows_point_.begin() + 1 + x.size()) &&
                    std::equal(p.begin(), p.end(), rows_point_.begin() + 1 + x.size() + z.size());
  if (!same) {
    rows_point_[0] = t;
    std::copy(x.begin(), x.end(), rows_point_.begin() + 1);
    std::copy(z.begin(), z.end(), rows_point_.begin() + 1 + static_cast<std::ptrdiff_t>(x.size()));
    std::copy(p.begin(), p.end(), rows_point_.begin() + 1 + static_cast<std::ptrdiff_t>(x.size() + z.size()));
    std::fill(row_ready_.begin(), row_ready_.end(), 0);
  }
  const auto kk = static_cast<std::size_t>(k);
  double* out = rows_.data() + kk * n;
  if (!row_ready_[kk]) {
    const std::vector<int>& inputs = model_.event_row_inputs[kk];
    const Program& program = model_.event_row_programs[kk];
    std::fill(out, out + n, 0.0);
    for (int i : inputs) dual_[static_cast<std::size_t>(i)] = Dual(rows_point_[static_cast<std::size_t>(i)]);
    const std::size_t h_slot = static_cast<std::size_t>(model_.h_slots[kk]);
    for (std::size_t first = 0; first < inputs.size(); first += 8) {
      const std::size_t count = std::min<std::size_t>(8, inputs.size() - first);
      for (std::size_t j = 0; j < count; ++j) dual_[static_cast<std::size_t>(inputs[first + j])].d[j] = 1.0;
      run(program, dual_.data());
      for (std::size_t j = 0; j < count; ++j) out[inputs[first + j]] = dual_[h_slot].d[j];
      for (std::size_t j = 0; j < count; ++j) dual_[static_cast<std::size_t>(inputs[first + j])].d[j] = 0.0;
    }
    row_ready_[kk] = 1;
  }
  std::copy_n(out, n, row.begin());
  return 0;
}

}  // namespace esdirk::sbml::detail
