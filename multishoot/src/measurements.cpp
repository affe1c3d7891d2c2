#include "esdirk/multishoot/measurements.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace esdirk::multishoot {

std::vector<MeasurementSeries> read_measurements(const std::string& path, int ny) {
  if (ny < 1) throw std::invalid_argument("read_measurements: ny must be >= 1");
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot open the measurement file");
  std::vector<MeasurementSeries> series;
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(number) + ": " + what);
  };
  const std::size_t columns = 2 + 2 * static_cast<std::size_t>(ny);
  while (std::getline(file, line)) {
    ++number;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<double> values;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) {
      const char* begin = field.c_str();
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      while (end && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
      if (end == begin || (end && *end != '\0') || !std::isfinite(v))
        fail("column " + std::to_string(values.size() + 1) + " ('" + field +
             "') is not a finite number");
      values.push_back(v);
    }
    if (values.size() != columns)
      fail("expected " + std::to_string(columns) + " columns (experiment, time, " +
           std::to_string(ny) + " values, " + std::to_string(ny) + " sigmas), found " +
           std::to_string(values.size()));
    const double id = values[0];
    if (id != std::floor(id) || id < 0)
      fail("the experiment number " + std::to_string(id) + " is not a non-negative integer");
    const auto e = static_cast<std::size_t>(id);
    if (e == series.size())
      series.emplace_back();
    else if (e + 1 != series.size())
      fail("experiment " + std::to_string(e) + " follows experiment " +
           std::to_string(series.size() - 1) +
           ": experiments must be numbered 0, 1, ... and listed one after the other");
    MeasurementSeries& s = series.back();
    if (!s.times.empty() && !(values[1] > s.times.back()))
      fail("time " + std::to_string(values[1]) + " does not increase (previous " +
           std::to_string(s.times.back()) + ")");
    s.times.push_back(values[1]);
    for (int i = 0; i < ny; ++i) s.data.push_back(values[2 + static_cast<std::size_t>(i)]);
    for (int i = 0; i < ny; ++i) {
      const double sigma = values[2 + static_cast<std::size_t>(ny + i)];
      if (!(sigma > 0.0)) fail("sigma_" + std::to_string(i + 1) + " = " + std::to_string(sigma) + " is not positive");
      s.sigma.push_back(sigma);
    }
  }
  if (series.empty()) throw std::runtime_error(path + ": no measurements in the file");
  for (std::size_t e = 0; e < series.size(); ++e)
    if (series[e].times.size() < 2)
      throw std::runtime_error(path + ": experiment " + std::to_string(e) +
                               " has fewer than two measurement times");
  return series;
}

void write_measurements(const std::string& path, const std::vector<MeasurementSeries>& series,
                        int ny, const std::string& header_comment) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot write the measurement file");
  if (!header_comment.empty()) std::fprintf(f, "# %s\n", header_comment.c_str());
  std::fprintf(f, "# experiment, time, y_1..y_%d, sigma_1..sigma_%d\n", ny, ny);
  for (std::size_t e = 0; e < series.size(); ++e)
    for (std::size_t k = 0; k < series[e].times.size(); ++k) {
      std::fprintf(f, "%zu, %.17g", e, series[e].times[k]);
      for (int i = 0; i < ny; ++i) std::fprintf(f, ", %.17g", series[e].data[k * static_cast<std::size_t>(ny) + static_cast<std::size_t>(i)]);
      for (int i = 0; i < ny; ++i) std::fprintf(f, ", %.17g", series[e].sigma[k * static_cast<std::size_t>(ny) + static_cast<std::size_t>(i)]);
      std::fprintf(f, "\n");
    }
  std::fclose(f);
}

}  // namespace esdirk::multishoot
