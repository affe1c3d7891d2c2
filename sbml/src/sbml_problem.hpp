#pragma once
// The compiled SBML model as a HybridProblem: one mode; f, g and the event functions from the
// programs over a slot array (values over double, exact derivatives over ad::Dual<8>); the
// transitions run SBML's event execution (sbml_events.cpp). Sized at construction; no
// allocation in evaluate().

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
  bool has_parameter_reset() const override { return np() > 0 && !model_.events.empty(); }
  int reset_parameters(int mode, const TransitionCause& cause, double t, ConstVector x,
                       ConstVector z, ConstVector p, ConstVector memory, Vector p_plus) override;

  /// SBML's events at t0: those with initialValue = false whose trigger is true, then those
  /// their executions make true, until none is (x0, p0 updated). Nonzero if they never end.
  int fire_initial_events(double t0, std::vector<double>& x0, const std::vector<double>& z0,
                          std::vector<double>& p0);
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
  void load_dual(double t, ConstVector x, ConstVector z, ConstVector p);
  int execute_events(const TransitionCause* cause, double t, ConstVector x, ConstVector z, ConstVector p);
  int execute_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p);
  bool same_execution(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p) const;
  double& latch(const EventCode& e);
  bool trigger_value(std::size_t e);
  int fire(std::size_t e);
  void drop_non_persistent(std::size_t e);
  int scan_triggers();
  double run_scalar(const Program& program, int slot);
  void reload();

  const CompiledModel& model_;
  std::vector<double> slots_;
  std::vector<Dual> dual_;
  // event execution workspace
  struct Entry {
    int event;
    int slot;          // pending execution slot, -1 for an immediate execution
    int values_at;     // offset into entry_values_ of values taken at trigger time, -1: none
  };
  std::vector<Entry> queue_;
  std::vector<double> entry_values_, x_work_, z_work_, p_work_, h_start_, values_;
  std::vector<double> old_size_;
  std::vector<double> rows_, rows_point_;  // the event rows formed at the last point asked for
  std::vector<char> row_ready_;           // per event function: its row at rows_point_ is formed
  std::vector<char> truth_start_;
  // The arguments of the last execution at a transition (x_work_, p_work_ hold its result).
  std::vector<double> executed_inputs_;
  std::vector<int> executed_fired_;
  int executed_time_event_ = -1;
  bool executed_valid_ = false;
  std::size_t values_used_ = 0;
  double t_work_ = 0.0;
};

}  // namespace esdirk::sbml::detail
