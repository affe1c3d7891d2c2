#pragma once
// The compiled SBML model as a HybridProblem: one mode; f, g and the event functions from the
// programs over a slot array (values over double, exact derivatives over ad::Dual<8>); the
// transitions run SBML's event execution (sbml_events.cpp), over double for x+ and p+ and over
// ad::Dual<8> for their exact Jacobians. Sized at construction; no allocation in any callback.

#include <vector>

#include "compiled_model.hpp"
#include "esdirk/ad/dual.hpp"
#include "esdirk/events/hybrid_problem.hpp"

namespace esdirk::sbml::detail {

class SbmlProblem : public HybridProblem {
 public:
  explicit SbmlProblem(const CompiledModel& model);

  int evaluate(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
               Vector f, Vector g) override;
  bool has_jacobian() const override { return true; }
  int jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
               MatrixRef J) override;
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                         ConstVector memory, MatrixRef Jp) override;
  int events(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector memory,
             Vector h) override;
  bool has_event_jacobian() const override { return true; }
  int event_jacobian(int mode, int k, double t, ConstVector x, ConstVector z, ConstVector p,
                     ConstVector memory, Vector row) override;
  int transition(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                 ConstVector p, ConstVector memory, int& next_mode, Vector x_plus) override;
  /// D = dx+/d(t, x, z, p): the event execution over dual numbers (exact).
  bool has_reset_jacobian() const override { return true; }
  int reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                     ConstVector p, ConstVector memory, MatrixRef D) override;
  bool has_parameter_reset() const override { return np() > 0 && !model_.events.empty(); }
  int reset_parameters(int mode, const TransitionCause& cause, double t, ConstVector x,
                       ConstVector z, ConstVector p, ConstVector memory, Vector p_plus) override;
  /// E = dp+/d(t, x, z, p): the same execution over dual numbers.
  bool has_parameter_reset_jacobian() const override { return true; }
  int parameter_reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x,
                               ConstVector z, ConstVector p, ConstVector memory, MatrixRef E) override;

  /// SBML's events at t0: those with initialValue = false whose trigger is true, then those
  /// their executions make true, until none is (x0, p0 updated). Nonzero if they never end.
  int fire_initial_events(double t0, std::vector<double>& x0, const std::vector<double>& z0,
                          std::vector<double>& p0);
  /// The exact chain through the same events at t0: `seed` ((nx + np) x ns, the columns
  /// d(x0, p0)/dθ before them) becomes the derivative after them, by the execution over dual
  /// numbers whose directions are the seed's columns, 8 at a time. Nonzero as above.
  int initial_events_derivative(double t0, const std::vector<double>& x0, const std::vector<double>& z0,
                                const std::vector<double>& p0, MatrixRef seed);
  /// Runs the dynamics program at (t, x, z, p); the values are then in slots().
  void load(double t, ConstVector x, ConstVector z, ConstVector p);
  const std::vector<double>& slots() const { return slots_; }
  /// Runs the dynamics program over duals whose directions k = 0 .. count-1 are the columns
  /// first + k of Sx (nx x ns), Sz (nz x ns; may be empty) and P (np x ns): the derivatives of
  /// every slot along those columns, in dual_slots().
  void load_directions(double t, ConstVector x, ConstVector z, ConstVector p, ConstMatrixRef Sx,
                       ConstMatrixRef Sz, ConstMatrixRef P, int first, int count);
  /// The same with unit directions on the inputs x, z, p (input index first + k, in that order).
  void load_unit_directions(double t, ConstVector x, ConstVector z, ConstVector p, int first, int count);
  const std::vector<ad::Dual<8>>& dual_slots() const { return dual_; }
  const CompiledModel& model() const { return model_; }

 private:
  using Dual = ad::Dual<8>;
  struct Entry {
    int event;
    int slot;          // pending execution slot, -1 for an immediate execution
    int values_at;     // offset into entry_values of values taken at trigger time, -1: none
  };
  // The event execution's workspace over a scalar T (double for the values, Dual for their
  // derivatives): the arguments (t, x, z, p), which the execution updates in place, its own slot
  // array and the queue. The discrete choices read values only, so both scalars take the same.
  template <class T>
  struct Execution {
    T t = T(0.0);
    std::vector<T> slots, x, z, p, values, old_size, entry_values;
    std::vector<double> h_start;
    std::vector<char> truth_start;
    std::vector<Entry> queue;
    std::size_t values_used = 0;
  };
  // The arguments of a transition, kept to recognize the same call again.
  struct ExecutionKey {
    std::vector<double> inputs;
    std::vector<int> fired;
    int time_event = -1;
    bool valid = false;
    bool matches(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p) const;
    void store(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p);
  };
  template <class T>
  void size_execution(Execution<T>& w) const;
  void load_dual(double t, ConstVector x, ConstVector z, ConstVector p);
  template <class T>
  int execute(Execution<T>& w, const TransitionCause* cause, double t) const;
  template <class T>
  T& latch(Execution<T>& w, const EventCode& e) const;
  template <class T>
  bool trigger_value(Execution<T>& w, std::size_t e) const;
  template <class T>
  int fire(Execution<T>& w, std::size_t e) const;
  template <class T>
  void drop_non_persistent(Execution<T>& w, std::size_t e) const;
  template <class T>
  int scan_triggers(Execution<T>& w) const;
  template <class T>
  T run_scalar(Execution<T>& w, const Program& program, int slot) const;
  template <class T>
  void reload(Execution<T>& w) const;
  int execute_events(const TransitionCause* cause, double t, ConstVector x, ConstVector z, ConstVector p);
  int execute_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p);
  int reset_jacobians_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p);

  const CompiledModel& model_;
  std::vector<double> slots_;
  std::vector<Dual> dual_;
  Execution<double> exec_;
  Execution<Dual> exec_dual_;
  std::vector<double> rows_, rows_point_;  // the event rows formed at the last point asked for
  std::vector<char> row_ready_;           // per event function: its row at rows_point_ is formed
  // The arguments of the last execution at a transition (exec_ holds its result) and of the
  // last reset Jacobians (dx+ and dp+ by input 1 + nx + nz + np, column-major).
  ExecutionKey executed_, differentiated_;
  std::vector<double> reset_dx_, reset_dp_;
};

}  // namespace esdirk::sbml::detail
