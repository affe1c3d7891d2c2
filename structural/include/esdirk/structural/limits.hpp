#pragma once
// The limits that keep every input of the structural analysis (model text, a C++ model, the
// C API's arrays) within time and memory that grow at most linearly with its size, or within
// the documented caps below. Exceeding one is reported as an error that names the size and the
// limit (doc/structural-guide.md, "Limits"; the reasons are in doc/hardening.md).

#include <cstddef>
#include <cstdint>

namespace esdirk::structural {

/// Largest derivative (or shift) order of an occurrence. Orders are data to the Σ-method, but
/// a model's offsets and its mode-change unfolding grow with them.
inline constexpr int max_derivative_order = 10000;

/// Largest number of equations, of variables and of edges of one bipartite graph, so that
/// every size, index and count fits an `int` with room to spare.
inline constexpr int max_graph_size = 1 << 26;

/// Largest number of latent equations (Σ_f c_f) of one system: the Σ-method lists each of
/// them (and as many consistency constraints), and a mode change unfolds each of them.
inline constexpr std::int64_t max_latent_equations = std::int64_t{1} << 20;

/// Largest work of the offset iteration, counted as rounds × (equations + edges). A chain can
/// need one round per equation; beyond this the Σ-method reports `too_large`.
inline constexpr std::int64_t max_offset_iteration_work = std::int64_t{1} << 28;

/// Largest number of mode variables: modes are enumerated, 2^k of them.
inline constexpr int max_mode_variables = 16;

/// Longest guard (bytes of text after `if`) and deepest nesting of '(' and '!' in a guard.
inline constexpr int max_guard_length = 4096;
inline constexpr int max_guard_depth = 64;

/// Longest name (model, variable, mode variable, equation), in bytes.
inline constexpr int max_name_length = 1024;

/// Largest model text, in bytes (columns and line numbers are `int`).
inline constexpr std::size_t max_model_text_size = std::size_t{1} << 28;

/// Budget of the analysis of a whole model, in work units of roughly one byte of report each,
/// on top of 16 times the model's own size (so one mode of any model fits): every mode and
/// every mode change costs 256 units plus the names of the unknowns; a mode also its active
/// equations times 1 + c_f and their occurrences, a mode change the same of its two modes.
/// Validating the guards costs 2^k × (equations + guard nodes). See analyse_model.
inline constexpr std::int64_t max_analysis_work = std::int64_t{1} << 24;

}  // namespace esdirk::structural
