#pragma once
// What the hybrid solver keeps of one event.

#include <vector>

#include "esdirk/matrix.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

struct EventRecord {
  double t = 0.0;                ///< t*, the event time
  double bracket = 0.0;          ///< width of the final bracket of the root finder (0: time event)
  int mode_before = 0;
  int mode_after = 0;
  int time_event = -1;           ///< index into HybridOptions::time_events, -1 for a state event
  int primary = -1;              ///< the state-event component whose root defines t* (and tau)
  bool initial = false;          ///< an initial event (HybridOptions::initial_events) at t0
  /// 0: an event of its own (a crossing, a time event, an initial event); n >= 1: the n-th
  /// event of a cascade at the same instant, set off by the transition before it (its
  /// `primary` is the component that fired; its time moves as the first event's:
  /// doc/events-theory.md, D5).
  int cascade = 0;
  std::vector<int> fired;        ///< per component: +1 rising, -1 falling, 0 not fired
  int iterations = 0;            ///< root-finder iterations
  double dh_dt = 0.0;            ///< D_h = h_t + h_x x' + h_z z' at t*- (with sensitivities)
  std::vector<double> x_minus, z_minus, x_plus, z_plus;  ///< left and right limits
  std::vector<double> p_minus, p_plus;  ///< the parameters before and after (np)
  /// With sensitivities: tau = dt*/dtheta (1 x ns), and the state sensitivities either side.
  std::vector<double> tau;
  DenseMatrix sx_minus, sx_plus;
  DenseMatrix sz_minus, sz_plus;  ///< the algebraic sensitivities either side (nz x ns)
};

}  // namespace esdirk
