#pragma once
// Everything of the structural-analysis module in one include. The facade is analysis.hpp
// (analyse(text) -> Analysis, text_report, json_report); the other headers are what its result
// holds and the exported steps it is built of.

#include "esdirk/structural/analysis.hpp"
#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/block_triangular.hpp"
#include "esdirk/structural/dulmage_mendelsohn.hpp"
#include "esdirk/structural/existential.hpp"
#include "esdirk/structural/guard.hpp"
#include "esdirk/structural/limits.hpp"
#include "esdirk/structural/matching.hpp"
#include "esdirk/structural/mode_analysis.hpp"
#include "esdirk/structural/model.hpp"
#include "esdirk/structural/model_parser.hpp"
#include "esdirk/structural/modes.hpp"
#include "esdirk/structural/numerical_check.hpp"
#include "esdirk/structural/offsets.hpp"
#include "esdirk/structural/parse_error.hpp"
#include "esdirk/structural/report.hpp"
#include "esdirk/structural/semi_explicit.hpp"
#include "esdirk/structural/sigma_method.hpp"
#include "esdirk/structural/signature_matrix.hpp"
