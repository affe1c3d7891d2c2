#pragma once
// Measurement files for estimation: plain CSV, one measurement time per line,
//
//     # experiment, time, y_1, ..., y_ny, sigma_1, ..., sigma_ny
//     0, 0.0, 1.5776, 8.32, ..., 0.01, ...
//
// '#' starts a comment line; experiments are numbered 0, 1, ... in order and their times
// increase. The reader takes exactly what is written or refuses with "file:line:col: what":
// every field must be a whole finite decimal number (spaces and tabs around it allowed), so a
// blank field, a trailing comma, a NUL byte, a number out of the double range, an experiment
// number that is not the next one are errors, never a silent 0 or a dropped column.

#include <string>
#include <string_view>
#include <vector>

#include "esdirk/export.hpp"

namespace esdirk::multishoot {

struct MeasurementSeries {
  std::vector<double> times;  ///< increasing
  std::vector<double> data;   ///< times.size() * ny, row by row
  std::vector<double> sigma;  ///< same shape, in [min_sigma, inf)
};

/// The smallest standard deviation taken: 1/sigma^2 must be a finite double (a sigma of 1e-320
/// was read and the estimation then failed in its line search).
inline constexpr double min_sigma = 1e-150;

/// The longest line read: 64 bytes plus 64 per column (2 + 2 ny columns). A longer line (an
/// input without newlines, say) is refused when the limit is reached, before it is stored.
ESDIRK_API std::size_t measurement_line_limit(int ny);

/// Reads the experiments of a measurement file with ny measured states. Throws
/// std::runtime_error with "file:line:col: what" for a missing file or a directory, a field
/// that is blank or not a finite number, a wrong number of columns, experiments out of order,
/// times that do not increase, a sigma below min_sigma, a NUL byte, a line beyond
/// measurement_line_limit(ny), or an experiment with fewer than two times; std::invalid_argument
/// for ny < 1. Memory: the series read plus one line.
ESDIRK_API std::vector<MeasurementSeries> read_measurements(const std::string& path, int ny);

/// The same for text in memory; `name` stands for the file name in the messages.
ESDIRK_API std::vector<MeasurementSeries> parse_measurements(std::string_view text, int ny,
                                                             const std::string& name = "<text>");

/// Writes experiments in the format read_measurements reads (17 significant digits, so that
/// the numbers read back are the same doubles). Throws std::invalid_argument for ny < 1 or a
/// series whose data or sigma is not times.size() * ny long, std::runtime_error naming the
/// file and the system's reason if the file cannot be opened or a write fails (a full disk:
/// nothing is reported as written that was not).
ESDIRK_API void write_measurements(const std::string& path,
                                   const std::vector<MeasurementSeries>& series, int ny,
                                   const std::string& header_comment = {});

}  // namespace esdirk::multishoot
