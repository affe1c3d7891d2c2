// The C shim of the geometric module (esdirk_geometric.h).

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "esdirk/esdirk_geometric.h"
#include "esdirk/geometric/diagnostics.hpp"
#include "esdirk/geometric/geometric_adjoint.hpp"
#include "esdirk/partner_tableau.hpp"
#include "shim.hpp"

namespace g = esdirk::geometric;
using esdirk_capi::in;
using esdirk_capi::out;

struct esdirk_geometric : esdirk_capi::Messages {
  esdirk_problem* problem = nullptr;
  g::PrkPair pair;
  g::StepOptions options;
  std::unique_ptr<g::GeometricAdjoint> run;  // made at forward with the options of that moment
  bool complete = false;                     // a complete forward sweep
  std::vector<double> parameters;

  int from(esdirk::Status status) {
    if (status == esdirk::Status::success) {
      message.clear();
      return ESDIRK_SUCCESS;
    }
    message = run ? run->message() : std::string("failed");
    return esdirk_capi::to_c_status(status);
  }
};

namespace {

int make(esdirk_problem* problem, g::PrkPair pair, esdirk_geometric** geometric) noexcept {
  try {
    auto made = std::make_unique<esdirk_geometric>();
    made->problem = problem;
    made->pair = std::move(pair);
    made->parameters.assign(static_cast<std::size_t>(problem->problem->np()), 0.0);
    // The partner form needs every weight; the default form takes any tableau.
    *geometric = made.release();
    return ESDIRK_SUCCESS;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

g::PrkPair pair_of(const g::RkTableau& tableau) {
  if (!tableau.has_zero_weight()) return g::symplectic_pair(tableau);
  // No partner exists; the unnormalized form never reads these coefficients.
  return g::prk_pair(tableau, std::vector<double>(tableau.a.size(), 0.0),
                     tableau.name + " (no partner)");
}

}  // namespace

extern "C" {

esdirk_int esdirk_geometric_tableau_count(void) {
  try {
    return static_cast<esdirk_int>(g::tableau_names().size());
  } catch (...) {
    return 0;
  }
}

const char* esdirk_geometric_tableau_name(esdirk_int k) {
  // The names are static strings of the registry; copied once into a static list.
  static const std::vector<std::string> names = [] {
    try {
      return g::tableau_names();
    } catch (...) {
      return std::vector<std::string>{};
    }
  }();
  if (k < 0 || k >= static_cast<esdirk_int>(names.size())) return nullptr;
  return names[static_cast<std::size_t>(k)].c_str();
}

int esdirk_geometric_tableau_stages(const char* name, esdirk_int* stages) {
  if (!name || !stages) return ESDIRK_NULL_ARGUMENT;
  try {
    *stages = g::tableau_by_name(name).stages;
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_geometric_tableau(const char* name, esdirk_int stages, double* a, double* b, double* c,
                             esdirk_int* order) {
  if (!name || !a || !b || !c) return ESDIRK_NULL_ARGUMENT;
  try {
    const g::RkTableau t = g::tableau_by_name(name);
    if (t.stages != stages) return ESDIRK_INVALID_ARGUMENT;
    std::copy(t.a.begin(), t.a.end(), a);
    std::copy(t.b.begin(), t.b.end(), b);
    std::copy(t.c.begin(), t.c.end(), c);
    if (order) *order = t.order;
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_geometric_partner(esdirk_int stages, const double* a, const double* b, double* partner,
                             double* defect) {
  if (!a || !b || !partner) return ESDIRK_NULL_ARGUMENT;
  if (stages < 1 || stages > 4096) return ESDIRK_INVALID_ARGUMENT;
  try {
    const std::size_t s = static_cast<std::size_t>(stages);
    const std::vector<double> p = esdirk::partner_coefficients(stages, {a, s * s}, {b, s});
    std::copy(p.begin(), p.end(), partner);
    if (defect) *defect = esdirk::symplecticity_defect(stages, {a, s * s}, {b, s}, p);
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_geometric_create(esdirk_problem* problem, const char* tableau,
                            esdirk_geometric** geometric) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  *geometric = nullptr;
  if (!problem || !tableau) return ESDIRK_NULL_ARGUMENT;
  try {
    const std::string name = tableau;
    if (name == "pghvi1") return make(problem, g::pghvi1(), geometric);
    if (name == "be1") return make(problem, g::backward_euler_both(), geometric);
    return make(problem, pair_of(g::tableau_by_name(name)), geometric);
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_geometric_create_pair(esdirk_problem* problem, esdirk_int stages, const double* a,
                                 const double* b, const double* c, const double* partner,
                                 esdirk_geometric** geometric) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  *geometric = nullptr;
  if (!problem || !a || !b || !c) return ESDIRK_NULL_ARGUMENT;
  if (stages < 1 || stages > 4096) return ESDIRK_INVALID_ARGUMENT;
  try {
    const std::size_t s = static_cast<std::size_t>(stages);
    g::RkTableau t{"user tableau",
                   stages,
                   0,
                   std::vector<double>(a, a + s * s),
                   std::vector<double>(b, b + s),
                   std::vector<double>(c, c + s)};
    t.validate();
    if (partner)
      return make(problem,
                  g::prk_pair(t, std::vector<double>(partner, partner + s * s), "user pair"),
                  geometric);
    return make(problem, g::symplectic_pair(t), geometric);
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

void esdirk_geometric_free(esdirk_geometric** geometric) { esdirk_capi::free_handle(geometric); }

const char* esdirk_geometric_last_error(const esdirk_geometric* geometric) {
  return geometric ? geometric->text() : "NULL handle";
}

int esdirk_geometric_set_options(esdirk_geometric* geometric, double tolerance,
                                 esdirk_int max_iterations, int form) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    if (form != ESDIRK_GEOMETRIC_UNNORMALIZED && form != ESDIRK_GEOMETRIC_PARTNER)
      return geometric->fail(ESDIRK_INVALID_ARGUMENT,
                             "set_options: form must be ESDIRK_GEOMETRIC_UNNORMALIZED or _PARTNER");
    g::StepOptions o;
    o.tolerance = tolerance;
    o.max_iterations = max_iterations;
    o.form =
        form == ESDIRK_GEOMETRIC_PARTNER ? g::AdjointForm::partner : g::AdjointForm::unnormalized;
    o.validate();
    if (o.form == g::AdjointForm::partner && geometric->pair.method.has_zero_weight())
      return geometric->fail(ESDIRK_INVALID_ARGUMENT,
                             "set_options: the partner form needs every weight b_i != 0; " +
                                 geometric->pair.method.name + " has a zero weight");
    geometric->options = o;
    geometric->run.reset();
    geometric->complete = false;
    geometric->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_geometric_symplecticity_defect(const esdirk_geometric* geometric, double* defect) {
  if (!geometric || !defect) return ESDIRK_NULL_ARGUMENT;
  *defect = geometric->pair.symplecticity_defect;
  return ESDIRK_SUCCESS;
}

int esdirk_geometric_set_parameters(esdirk_geometric* geometric, const double* p, esdirk_int np) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    if (np != static_cast<esdirk_int>(geometric->parameters.size()))
      return geometric->fail(ESDIRK_INVALID_ARGUMENT,
                             "set_parameters: np does not match the problem");
    if (!esdirk_capi::vector_ok(p, np))
      return geometric->fail(ESDIRK_NULL_ARGUMENT, "set_parameters: p is NULL");
    std::copy(p, p + np, geometric->parameters.begin());
    if (geometric->run) geometric->run->set_parameters(geometric->parameters);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_geometric_forward(esdirk_geometric* geometric, const double* times, esdirk_int ntimes,
                             const double* q0, esdirk_int nx, const double* u0, esdirk_int nz) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    esdirk::Problem& problem = *geometric->problem->problem;
    if (nx != problem.nx() || nz != problem.nz() || ntimes < 2)
      return geometric->fail(ESDIRK_INVALID_ARGUMENT,
                             "forward: nx, nz must match the problem and ntimes >= 2");
    if (!times || !q0 || !esdirk_capi::vector_ok(u0, nz))
      return geometric->fail(ESDIRK_NULL_ARGUMENT, "forward: times, q0 or u0 is NULL");
    if (!geometric->run) {
      geometric->run =
          std::make_unique<g::GeometricAdjoint>(problem, geometric->pair, geometric->options);
      geometric->run->set_parameters(geometric->parameters);
    }
    geometric->complete = false;
    const esdirk::Status st = geometric->run->forward(in(times, ntimes), in(q0, nx), in(u0, nz));
    geometric->complete = st == esdirk::Status::success;
    return geometric->from(st);
  });
}

int esdirk_geometric_backward(esdirk_geometric* geometric, const double* pN, esdirk_int nx,
                              esdirk_geometric_running_fn running, void* user_data) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    if (!geometric->complete)
      return geometric->fail(ESDIRK_WRONG_CALL_ORDER, "backward: no complete forward sweep");
    const esdirk::Problem& problem = *geometric->problem->problem;
    if (nx != problem.nx())
      return geometric->fail(ESDIRK_INVALID_ARGUMENT, "backward: nx does not match the problem");
    if (!pN) return geometric->fail(ESDIRK_NULL_ARGUMENT, "backward: pN is NULL");
    g::RunningCost cost;
    if (running) {
      const esdirk_int nz = problem.nz();
      cost.gradient = [running, user_data, nx, nz](double t, esdirk::ConstVector q,
                                                   esdirk::ConstVector u, esdirk::Vector dq,
                                                   esdirk::Vector du) {
        return running(nx, nz, t, q.data(), nz ? u.data() : nullptr, dq.data(),
                       nz ? du.data() : nullptr, user_data);
      };
    }
    return geometric->from(geometric->run->backward(in(pN, nx), running ? &cost : nullptr));
  });
}

int esdirk_geometric_tangent(esdirk_geometric* geometric, const double* dq0, esdirk_int nx) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    if (!geometric->complete)
      return geometric->fail(ESDIRK_WRONG_CALL_ORDER, "tangent: no complete forward sweep");
    if (nx != geometric->problem->problem->nx())
      return geometric->fail(ESDIRK_INVALID_ARGUMENT, "tangent: nx does not match the problem");
    if (!dq0) return geometric->fail(ESDIRK_NULL_ARGUMENT, "tangent: dq0 is NULL");
    geometric->run->tangent(in(dq0, nx));
    geometric->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_geometric_steps(const esdirk_geometric* geometric, esdirk_int* steps) {
  if (!geometric || !steps) return ESDIRK_NULL_ARGUMENT;
  if (!geometric->complete) return ESDIRK_WRONG_CALL_ORDER;
  *steps = geometric->run->steps();
  return ESDIRK_SUCCESS;
}

int esdirk_geometric_get(const esdirk_geometric* geometric, esdirk_int n, double* t, double* q,
                         esdirk_int nx, double* u, esdirk_int nz, double* p, double* dq) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  if (!geometric->complete) return ESDIRK_WRONG_CALL_ORDER;
  const g::GeometricAdjoint& run = *geometric->run;
  if (n < 0 || n > run.steps()) return ESDIRK_INVALID_ARGUMENT;
  if ((q || p || dq) && nx != run.problem().nx()) return ESDIRK_INVALID_ARGUMENT;
  if (u && nz != run.problem().nz()) return ESDIRK_INVALID_ARGUMENT;
  if (t) *t = run.time(n);
  if (q) std::copy(run.state(n).begin(), run.state(n).end(), q);
  if (u) std::copy(run.algebraic(n).begin(), run.algebraic(n).end(), u);
  if (p) std::copy(run.adjoint_state(n).begin(), run.adjoint_state(n).end(), p);
  if (dq) std::copy(run.tangent_state(n).begin(), run.tangent_state(n).end(), dq);
  return ESDIRK_SUCCESS;
}

int esdirk_geometric_diagnostics(const esdirk_geometric* geometric, double* forward_defect,
                                 double* adjoint_defect, double* pairing_drift) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  if (!geometric->complete) return ESDIRK_WRONG_CALL_ORDER;
  if (forward_defect) *forward_defect = geometric->run->max_forward_defect();
  if (adjoint_defect) *adjoint_defect = geometric->run->max_adjoint_defect();
  if (pairing_drift) *pairing_drift = g::pairing_drift(*geometric->run).relative;
  return ESDIRK_SUCCESS;
}

int esdirk_geometric_one_step_defect(esdirk_geometric* geometric, double t, double h,
                                     const double* q0, const double* u_guess, const double* p1,
                                     double* defect) {
  if (!geometric) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::guarded(geometric, [&]() -> int {
    esdirk::Problem& problem = *geometric->problem->problem;
    const esdirk_int nx = problem.nx(), nz = problem.nz();
    if (!q0 || !p1 || !defect || !esdirk_capi::vector_ok(u_guess, nz))
      return geometric->fail(ESDIRK_NULL_ARGUMENT, "one_step_defect: a vector is NULL");
    g::TypeTwoStep step(problem, geometric->pair, geometric->options);
    step.set_parameters(geometric->parameters);
    const g::OneStepMap map = g::one_step_map(step, t, h, in(q0, nx), in(u_guess, nz), in(p1, nx));
    if (map.status != esdirk::Status::success)
      return geometric->fail(esdirk_capi::to_c_status(map.status),
                             "one_step_defect: " + step.message());
    *defect = map.defect;
    geometric->message.clear();
    return ESDIRK_SUCCESS;
  });
}

}  // extern "C"
