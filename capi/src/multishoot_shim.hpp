#pragma once
// Internal to the C shim: the multiple-shooting handle (esdirk_multishoot.h), shared by its
// entry points (multishoot.cpp) and the method setters (method.cpp). Not installed.

#include <memory>
#include <string>

#include "esdirk/esdirk_multishoot.h"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "shim.hpp"

struct esdirk_multishoot : esdirk_capi::Messages {
  esdirk_problem* problem = nullptr;
  esdirk_int intervals = 0, threads = 1;
  esdirk::Options options;
  esdirk::RunningCost cost;
  // Made at first use after an option change.
  std::unique_ptr<esdirk::multishoot::IntervalEvaluator> evaluator;
  // The method the evaluator's intervals take ("auto" resolved), set with it.
  std::string method_in_use;
  esdirk::multishoot::IntervalInputs inputs;
  esdirk::multishoot::IntervalOutputs outputs;

  esdirk::multishoot::IntervalEvaluator& get() {
    if (!evaluator) {
      const esdirk_capi::CProblem& p = *problem->problem;
      evaluator = std::make_unique<esdirk::multishoot::IntervalEvaluator>(
          [&p] { return p.copy(); }, intervals, options, esdirk::SensitivityOptions{}, threads);
      if (cost) evaluator->set_running_cost(cost);
      method_in_use = options.resolved_method().name;
    }
    return *evaluator;
  }
};
