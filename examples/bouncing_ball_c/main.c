/* The bouncing ball of F. Schaefer, "Sensitivity Analysis of Hybrid Differential Equations" (a
 * GSoC 2021 post, "the post" below) through the C API: z' = v, v' = -g, an impact where z falls
 * through 0 (a terminal event, so the program sees it), the reset v+ = -gamma v-. Prints the
 * impact time tau (the post: 0.99005) and dz(t_end)/dz0 at t_end = 1.9 (the post: 0.84; 1 with the
 * event time held fixed) and checks them, with all four sensitivities, against the closed form
 * (the numbers examples/bouncing_ball prints from C++). */
#include <math.h>
#include <stdio.h>

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_options.h"
#include "common/example_help.h"

static const double z0 = 5.0, v0 = -0.1, gravity = 10.0, restitution = 0.8, t_end = 1.9;

/* States x = (z, v), parameters p = (g, gamma), one mode (0), no memory. */
static int flight(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                  const double* x, const double* z, const double* p, const double* mem, double* f,
                  double* g, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)mem, (void)g,
      (void)user_data;
  f[0] = x[1];
  f[1] = -p[0];
  return 0;
}

static int ground(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                  esdirk_int ne, double t, const double* x, const double* z, const double* p,
                  const double* mem, double* h, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)p,
      (void)mem, (void)user_data;
  h[0] = x[0];
  return 0;
}

static int impact(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                  esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                  const double* z, const double* p, const double* mem, int* next_mode,
                  double* x_plus, void* user_data) {
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm,
      (void)t, (void)z, (void)mem, (void)next_mode, (void)user_data;
  x_plus[0] = x[0];
  x_plus[1] = -p[1] * x[1];
  return 0;
}

/* D = [phi_t phi_z phi_v phi_g phi_gamma] (2 x 5). */
static int impact_jacobian(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                           esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                           const double* z, const double* p, const double* mem, double* D,
                           esdirk_int ldd, void* user_data) {
  int j;
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm,
      (void)t, (void)z, (void)mem, (void)user_data;
  for (j = 0; j < 5; ++j) D[j * ldd] = D[j * ldd + 1] = 0.0;
  D[1 * ldd + 0] = 1.0;
  D[2 * ldd + 1] = -p[1];
  D[4 * ldd + 1] = -x[1];
  return 0;
}

static int all_ok = 1;

static void check(int ok, const char* what, double value, double reference) {
  printf("  %-44s %16.10g  closed form %16.10g  %s\n", what, value, reference, ok ? "ok" : "WRONG");
  all_ok = all_ok && ok;
}

static int require(int status, const char* what, const esdirk_hybrid_solver* solver) {
  if (status < 0) {
    printf("%s failed: %s (%s)\nCHECK FAILED\n", what, esdirk_status_name(status),
           esdirk_hybrid_solver_last_error(solver));
    all_ok = 0;
  }
  return status;
}

/* The closed form after one impact: z(t) = u s - g s^2 / 2, s = t - tau, u = gamma S,
 * S = sqrt(v0^2 + 2 g z0), tau = (v0 + S) / g; q = (z0, v0, g, gamma). */
static double exact_z(const double q[4], double t) {
  const double S = sqrt(q[1] * q[1] + 2.0 * q[2] * q[0]), tau = (q[1] + S) / q[2];
  const double s = t - tau;
  return q[3] * S * s - 0.5 * q[2] * s * s;
}

static const char* const usage =
    "usage: bouncing_ball_c\n"
    "\n"
    "The bouncing ball through the C API: the impact time and the sensitivities of z(1.9), checked\n"
    "against the closed form.\n"
    "\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_print_help_if_asked(argc, argv, usage)) return 0;
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  const double x0[2] = {z0, v0}, p[2] = {gravity, restitution},
               q[4] = {z0, v0, gravity, restitution};
  const int terminal[1] = {1}, not_terminal[1] = {0}, falling[1] = {ESDIRK_EVENT_FALLING};
  double x[2], Sx[2 * 4], sx_minus[2 * 4], tau_dtheta[4], t = 0.0, dz_fixed[2 * 4];
  esdirk_event event = ESDIRK_EVENT_INIT;
  int64_t located = 0, iterations = 0;
  esdirk_int logged = 0;
  int status, k;
  const double S = sqrt(v0 * v0 + 2.0 * gravity * z0), tau_exact = (v0 + S) / gravity;

  if (esdirk_hybrid_problem_create(2, 0, 2, 1, 0, flight, NULL, &problem) != ESDIRK_SUCCESS ||
      esdirk_hybrid_problem_set_events(problem, ground, NULL) != ESDIRK_SUCCESS ||
      esdirk_hybrid_problem_set_transition(problem, impact, impact_jacobian) != ESDIRK_SUCCESS ||
      esdirk_hybrid_solver_create(problem, &solver) != ESDIRK_SUCCESS) {
    printf("setup failed\nCHECK FAILED\n");
    return 1;
  }
  esdirk_options* options = NULL; /* one options object serves every kind of handle */
  esdirk_options_create(&options);
  esdirk_options_set_tolerances(options, 1e-10, 1e-12);
  esdirk_hybrid_solver_set_options(solver, options);
  esdirk_options_free(&options);
  esdirk_hybrid_solver_set_event_directions(solver, falling, 1);
  esdirk_hybrid_solver_set_terminal(solver, terminal, 1);
  if (require(esdirk_hybrid_solver_initialize(solver, 0.0, 0, x0, 2, NULL, 0, p, 2, NULL, 0),
              "initialize", solver) < 0 ||
      require(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 4, 4, 4), "sensitivities",
              solver) < 0)
    return 1;
  /* The method the default "auto" resolved to at this rtol. */
  printf("Bouncing ball through the C API, %s, rtol = 1e-10\n\n", esdirk_hybrid_solver_method_name(solver));
  /* The terminal impact stops the run at tau (left limit); the next call applies the reset. */
  status = require(esdirk_hybrid_solver_integrate_sensitivities_to(solver, t_end, x, 2, NULL, 0, Sx,
                                                                   2, NULL, 0, 4, &t),
                   "integrate to the impact", solver);
  if (status < 0) return 1;
  check(status == ESDIRK_LISTENER_STOP, "stopped at the terminal impact (status 2)", status,
        ESDIRK_LISTENER_STOP);
  check(fabs(t - tau_exact) < 1e-12, "impact time tau (the post: 0.99005)", t, tau_exact);
  check(fabs(x[1] - (v0 - gravity * tau_exact)) < 1e-10, "v(tau-)", x[1], v0 - gravity * tau_exact);
  check(fabs(Sx[1]) < 1e-12, "dv/dz0 at t = tau-, fixed t", Sx[1], 0.0);
  status = require(esdirk_hybrid_solver_integrate_sensitivities_to(solver, t_end, x, 2, NULL, 0, Sx,
                                                                   2, NULL, 0, 4, &t),
                   "integrate to t_end", solver);
  if (status < 0) return 1;
  check(status == ESDIRK_SUCCESS && t == t_end, "reached t_end = 1.9 (status 0)", t, t_end);
  check(fabs(x[0] - exact_z(q, t_end)) < 1e-10, "z(t_end)", x[0], exact_z(q, t_end));
  for (k = 0; k < 4; ++k) {
    static const char* names[4] = {"dz(t_end)/dz0 (the post: 0.84)", "dz(t_end)/dv0", "dz(t_end)/dg",
                                   "dz(t_end)/dgamma"};
    double qp[4], qm[4], reference;
    const double h = 1e-5;
    int i;
    for (i = 0; i < 4; ++i) qp[i] = qm[i] = q[i];
    qp[k] += h;
    qm[k] -= h;
    reference = (exact_z(qp, t_end) - exact_z(qm, t_end)) / (2.0 * h); /* of the exact function */
    check(fabs(Sx[2 * k] - reference) < 1e-7 * fabs(reference), names[k], Sx[2 * k], reference);
  }
  check(fabs(Sx[0] - (restitution * gravity * (t_end - tau_exact) - restitution * S +
                      gravity * (t_end - tau_exact)) /
                         S) < 1e-9,
        "dz/dz0 = (gamma g s - gamma S + g s)/S", Sx[0],
        (restitution * gravity * (t_end - tau_exact) - restitution * S +
         gravity * (t_end - tau_exact)) /
            S);
  printf("  dz(t_end)/dz0 rounded to 2 digits: %.2f (the post: 0.84)\n", Sx[0]);
  all_ok = all_ok && floor(Sx[0] * 100.0 + 0.5) == 84.0;

  /* The event log and counters by name. */
  esdirk_hybrid_solver_get_event_count(solver, &located, &logged);
  check(located == 1 && logged == 1, "events located", (double)located, 1.0);
  if (require(esdirk_hybrid_solver_get_event(solver, 0, &event), "get_event", solver) < 0 ||
      require(esdirk_hybrid_solver_get_event_vectors(solver, 0, NULL, 1, tau_dtheta, 4, NULL, NULL,
                                                     2, NULL, NULL, 0),
              "get_event_vectors", solver) < 0 ||
      require(esdirk_hybrid_solver_get_counter(solver, "event_root_iterations", &iterations),
              "get_counter", solver) < 0)
    return 1;
  check(fabs(event.t - tau_exact) < 1e-12 && event.mode_before == 0 && event.mode_after == 0 &&
            event.primary == 0,
        "logged event time", event.t, tau_exact);
  check(fabs(tau_dtheta[0] - 1.0 / S) < 1e-10, "d tau/dz0 = 1/S", tau_dtheta[0], 1.0 / S);
  check(fabs(tau_dtheta[2] - (z0 / S - tau_exact) / gravity) < 1e-10, "d tau/dg = (z0/S - tau)/g",
        tau_dtheta[2], (z0 / S - tau_exact) / gravity);
  /* The post's -0.99995 is the total derivative along the moving event, s + f tau. */
  if (require(esdirk_hybrid_solver_get_event_sensitivities(solver, 0, sx_minus, NULL, 2, 4),
              "get_event_sensitivities", solver) < 0)
    return 1;
  check(fabs(sx_minus[1] - gravity * tau_dtheta[0] + gravity / S) < 1e-10,
        "d v(tau-)/dz0 = s + f tau (the post: -0.99995)", sx_minus[1] - gravity * tau_dtheta[0],
        -gravity / S);
  printf("  root-finder iterations (counter by name): %lld\n", (long long)iterations);

  /* The explicit (fixed-time) event of the post: no event-time sensitivity, dz/dz0 = 1. */
  esdirk_hybrid_solver_set_sensitivity_jumps(solver, 1, 0);
  esdirk_hybrid_solver_set_terminal(solver, not_terminal, 1);
  if (require(esdirk_hybrid_solver_initialize(solver, 0.0, 0, x0, 2, NULL, 0, p, 2, NULL, 0),
              "initialize", solver) < 0 ||
      require(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 4, 4, 4), "sensitivities",
              solver) < 0 ||
      require(esdirk_hybrid_solver_integrate_sensitivities_to(solver, t_end, x, 2, NULL, 0,
                                                              dz_fixed, 2, NULL, 0, 4, &t),
              "explicit event run", solver) < 0)
    return 1;
  check(fabs(dz_fixed[0] - 1.0) < 1e-9, "dz(t_end)/dz0, explicit event (the post: 1)", dz_fixed[0],
        1.0);

  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  all_ok = all_ok && solver == NULL && problem == NULL;
  printf("\n%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
