#pragma once
// Measurement files for estimation: plain CSV, one measurement time per line,
//
//     # experiment, time, y_1, ..., y_ny, sigma_1, ..., sigma_ny
//     0, 0.0, 1.5776, 8.32, ..., 0.01, ...
//
// '#' starts a comment line; experiments are numbered 0, 1, ... in order and their times
// increase. Every inconsistency is reported with the file name and line.

#include <string>
#include <vector>

#include "esdirk/export.hpp"

namespace esdirk::multishoot {

struct ESDIRK_API MeasurementSeries {
  std::vector<double> times;  ///< increasing
  std::vector<double> data;   ///< times.size() * ny, row by row
  std::vector<double> sigma;  ///< same shape, > 0
};

/// Reads the experiments of a measurement file with ny measured states. Throws
/// std::runtime_error with "file:line: what" for a missing file, a wrong number of columns, a
/// value that is not a finite number, experiments out of order, times that do not increase, a
/// sigma <= 0, or an experiment with fewer than two times.
ESDIRK_API std::vector<MeasurementSeries> read_measurements(const std::string& path, int ny);

/// Writes experiments in the format read_measurements reads (17 significant digits).
ESDIRK_API void write_measurements(const std::string& path,
                                   const std::vector<MeasurementSeries>& series, int ny,
                                   const std::string& header_comment = {});

}  // namespace esdirk::multishoot
