/* The status table and the statistics through C: every row of esdirk/status_codes.def has its
 * ESDIRK_ constant, name and message; the codes are distinct and their signs follow their
 * kind; the statistics struct is filled only up to the caller's struct_size; every counter of
 * the library can be read by name. */
#include <stdint.h>
#include <string.h>

/* esdirk_solver_get_statistics is deprecated (counters by name replace it) but kept for one
 * release: its versioned struct is still tested here. */
#define ESDIRK_NO_DEPRECATION_WARNINGS
#include "check.h"
#include "esdirk/esdirk.h"

static int decay(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)g, (void)user_data;
  f[0] = -x[0];
  return 0;
}

/* One entry per row, made from the table by the preprocessor. */
struct row {
  const char* kind;
  const char* name;
  int code;
  const char* message;
};
#define ESDIRK_STATUS(kind, name, C_NAME, value, message) {#kind, #name, ESDIRK_##C_NAME, message},
static const struct row rows[] = {
#include "esdirk/status_codes.def"
};
#undef ESDIRK_STATUS
enum { row_count = sizeof rows / sizeof rows[0] };

static void test_every_status_code(void) {
  int i, j;
  CHECK(row_count >= 19);
  for (i = 0; i < row_count; ++i) {
    const struct row* r = &rows[i];
    CHECK(strcmp(esdirk_status_name(r->code), r->name) == 0);
    CHECK(strcmp(esdirk_status_message(r->code), r->message) == 0);
    CHECK(strlen(r->message) > 0 && r->message[strlen(r->message) - 1] != '.');
    if (!strcmp(r->kind, "success"))
      CHECK(r->code == 0);
    else if (!strcmp(r->kind, "stop"))
      CHECK(r->code > 0);
    else
      CHECK(r->code < 0); /* failure, analysis, misuse: `status < 0` tests for failure */
    for (j = 0; j < i; ++j) {
      CHECK(rows[j].code != r->code);
      CHECK(strcmp(rows[j].name, r->name) != 0);
    }
  }
  /* The values C callers may have compiled in never change. */
  CHECK(ESDIRK_SUCCESS == 0 && ESDIRK_STOP_TIME_REACHED == 1 && ESDIRK_LISTENER_STOP == 2);
  CHECK(ESDIRK_TOO_MANY_STEPS == -1 && ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN == -9);
  CHECK(ESDIRK_STRUCTURALLY_SINGULAR == -10);
  CHECK(ESDIRK_NULL_ARGUMENT == -101 && ESDIRK_BUFFER_TOO_SMALL == -106);
  CHECK(strcmp(esdirk_status_name(12345), "unknown") == 0);
  CHECK(strcmp(esdirk_status_message(-12345), "unknown status") == 0);
  CHECK(strcmp(esdirk_status_name(ESDIRK_STOP_TIME_REACHED), "stop_time_reached") == 0);
  CHECK(strcmp(esdirk_status_name(ESDIRK_LISTENER_STOP), "listener_stop") == 0);
}

/* A struct as a program compiled against an older header knows it: the first three
 * counters. The guard after it must stay untouched. */
struct old_statistics {
  size_t struct_size;
  int64_t steps;
  int64_t accepted_steps;
  int64_t rejected_steps;
};

static void test_statistics_versions(esdirk_solver* solver) {
  esdirk_statistics current = ESDIRK_STATISTICS_INIT;
  CHECK_STATUS(esdirk_solver_get_statistics(solver, &current), ESDIRK_SUCCESS);
  CHECK(current.struct_size == sizeof(esdirk_statistics)); /* read, never written */
  CHECK(current.steps > 0 && current.accepted_steps > 0);

  /* Older, shorter struct: its counters are filled, nothing past struct_size is written. */
  union {
    struct {
      struct old_statistics s;
      unsigned char guard[sizeof(esdirk_statistics)];
    } old;
    esdirk_statistics alignment;
  } buffer;
  size_t k;
  memset(&buffer, 0xAB, sizeof buffer);
  buffer.old.s.struct_size = sizeof(struct old_statistics);
  CHECK_STATUS(esdirk_solver_get_statistics(solver, (esdirk_statistics*)(void*)&buffer.old.s),
               ESDIRK_SUCCESS);
  CHECK(buffer.old.s.struct_size == sizeof(struct old_statistics));
  CHECK(buffer.old.s.steps == current.steps);
  CHECK(buffer.old.s.accepted_steps == current.accepted_steps);
  CHECK(buffer.old.s.rejected_steps == current.rejected_steps);
  for (k = 0; k < sizeof buffer.old.guard; ++k) CHECK(buffer.old.guard[k] == 0xAB);

  /* A size that ends inside a counter: only whole counters are written. */
  memset(&buffer, 0xAB, sizeof buffer);
  buffer.old.s.struct_size = offsetof(struct old_statistics, accepted_steps) + 4;
  CHECK_STATUS(esdirk_solver_get_statistics(solver, (esdirk_statistics*)(void*)&buffer.old.s),
               ESDIRK_SUCCESS);
  CHECK(buffer.old.s.steps == current.steps);
  {
    const unsigned char* accepted = (const unsigned char*)&buffer.old.s.accepted_steps;
    for (k = 0; k < sizeof(int64_t); ++k) CHECK(accepted[k] == 0xAB);
  }

  /* A struct_size beyond this library's struct (a later header, or garbage from an
   * uninitialized struct) is refused and nothing is written: zero-filling up to it overwrote
   * the caller's stack (issue 27). A newer program reads newer counters by name. */
  {
    union {
      struct {
        esdirk_statistics s;
        int64_t newer[2];
        unsigned char guard[16];
      } newer;
      int64_t alignment;
    } big;
    memset(&big, 0xAB, sizeof big);
    big.newer.s.struct_size = sizeof big.newer.s + sizeof big.newer.newer;
    CHECK_STATUS(esdirk_solver_get_statistics(solver, &big.newer.s), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_solver_last_error(solver), "struct_size") != NULL);
    {
      const unsigned char* bytes = (const unsigned char*)&big.newer.s.steps;
      for (k = 0; k < sizeof big - offsetof(esdirk_statistics, steps); ++k) CHECK(bytes[k] == 0xAB);
    }
  }

  /* A struct left zeroed (struct_size never set) is refused with a message that says why. */
  {
    esdirk_statistics zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_STATUS(esdirk_solver_get_statistics(solver, &zeroed), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_solver_last_error(solver), "struct_size") != NULL);
    CHECK(zeroed.steps == 0);
  }
}

static void test_counters_by_name(esdirk_solver* solver) {
  esdirk_statistics s = ESDIRK_STATISTICS_INIT;
  int64_t value = -1;
  int count = 0;
  const char* name;
  CHECK_STATUS(esdirk_solver_get_statistics(solver, &s), ESDIRK_SUCCESS);
  /* Every counter the library has can be read by name, including any newer than the struct. */
  while ((name = esdirk_counter_name(count)) != NULL) {
    value = -1;
    CHECK_STATUS(esdirk_solver_get_counter(solver, name, &value), ESDIRK_SUCCESS);
    CHECK(value >= 0);
    ++count;
  }
  CHECK(count >= 16);
  CHECK(esdirk_counter_name(-1) == NULL);
  /* Every field of the struct is the counter of the same name. */
#define FIELD(field)                                                                 \
  do {                                                                               \
    value = -1;                                                                      \
    CHECK_STATUS(esdirk_solver_get_counter(solver, #field, &value), ESDIRK_SUCCESS); \
    CHECK(value == s.field);                                                         \
  } while (0)
  FIELD(steps);
  FIELD(accepted_steps);
  FIELD(rejected_steps);
  FIELD(function_evaluations);
  FIELD(fd_function_evaluations);
  FIELD(jacobian_evaluations);
  FIELD(lu_factorizations);
  FIELD(back_substitutions);
  FIELD(newton_iterations);
  FIELD(newton_failures);
  FIELD(callback_failures);
  FIELD(parameter_jacobian_evaluations);
  FIELD(sensitivity_solves);
  FIELD(events);
  FIELD(adjoint_steps);
  FIELD(checkpoints);
#undef FIELD
  /* The struct has exactly these fields after struct_size. */
  CHECK(sizeof(esdirk_statistics) == offsetof(esdirk_statistics, steps) + 16 * sizeof(int64_t));
  CHECK_STATUS(esdirk_solver_get_counter(solver, "no_such_counter", &value),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "no_such_counter") != NULL);
  CHECK_STATUS(esdirk_solver_get_counter(solver, NULL, &value), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps", NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_counter(NULL, "steps", &value), ESDIRK_NULL_ARGUMENT);
}

/* Normal stops: tout reached is 0, a stop time before tout is 1, in integrate_to and step. */
static void test_normal_stops(esdirk_solver* solver) {
  double x = 0.0, t = 0.0;
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 1.5), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 2.0, &x, 1, NULL, 0), ESDIRK_STOP_TIME_REACHED);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(t == 1.5);
  CHECK(strcmp(esdirk_solver_last_error(solver), "") == 0); /* a normal stop is no failure */
  /* One step at a time up to a stop time: 0 per step, 1 for the step that lands on it. */
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 1.6), ESDIRK_SUCCESS);
  {
    int status = ESDIRK_SUCCESS, steps = 0;
    while (status == ESDIRK_SUCCESS && steps < 1000) {
      status = esdirk_solver_step(solver, 5.0);
      ++steps;
    }
    CHECK_STATUS(status, ESDIRK_STOP_TIME_REACHED);
    CHECK_STATUS(esdirk_solver_get_state(solver, &t, &x, 1, NULL, 0), ESDIRK_SUCCESS);
    CHECK(t == 1.6);
  }
  CHECK_STATUS(esdirk_solver_clear_stop_time(solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 3.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
}

int main(void) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  const double x0 = 1.0;
  double x = 0.0;
  test_every_status_code();
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  test_normal_stops(solver);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 4.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  test_statistics_versions(solver);
  test_counters_by_name(solver);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return report();
}
