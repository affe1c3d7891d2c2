#include "esdirk/multishoot/measurements.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace esdirk::multishoot {
namespace {

// The shortest text that reads back as the same double ("0.1", "1e+300"), for messages.
std::string shortest(double v) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return error == std::errc{} ? std::string(buffer, end) : std::string("?");
}

bool blank(char c) { return c == ' ' || c == '\t'; }

// Reads the lines of one input and builds the series; every error names the line and the
// column (1-based, in bytes) where the problem starts.
class Reader {
 public:
  Reader(int ny, const std::string& name) : ny_(ny), name_(name) {
    if (ny < 1) throw std::invalid_argument("read_measurements: ny must be >= 1 (got " + std::to_string(ny) + ")");
    columns_ = 2 + 2 * static_cast<std::size_t>(ny);
  }

  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw std::runtime_error(name_ + ":" + std::to_string(line_) + ":" + std::to_string(column) + ": " + what);
  }

  // One line without its '\n'.
  void line(std::string_view text) {
    ++line_;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
      fail(nul + 1, "a NUL byte (the file is not text)");
    std::size_t first = 0;
    while (first < text.size() && blank(text[first])) ++first;
    if (first == text.size() || text[first] == '#') return;
    values_.clear();
    starts_.clear();
    std::size_t begin = 0;
    for (;;) {
      const std::size_t comma = text.find(',', begin);
      const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
      if (values_.size() == columns_)
        fail(begin + 1, "more than the " + std::to_string(columns_) + " columns expected (experiment, time, " +
                            std::to_string(ny_) + " values, " + std::to_string(ny_) + " sigmas)");
      field(text.substr(begin, end - begin), begin);
      if (comma == std::string_view::npos) break;
      begin = comma + 1;
    }
    if (values_.size() != columns_)
      fail(text.size() + 1, "expected " + std::to_string(columns_) + " columns (experiment, time, " +
                                std::to_string(ny_) + " values, " + std::to_string(ny_) + " sigmas), found " +
                                std::to_string(values_.size()));
    store();
  }

  std::vector<MeasurementSeries> finish() {
    if (series_.empty()) throw std::runtime_error(name_ + ": no measurements in the file");
    for (std::size_t e = 0; e < series_.size(); ++e)
      if (series_[e].times.size() < 2)
        throw std::runtime_error(name_ + ": experiment " + std::to_string(e) +
                                 " has fewer than two measurement times");
    return std::move(series_);
  }

  int line_number() const { return line_; }

 private:
  // One field, `at` its offset in the line: a whole finite decimal number, blanks around it.
  void field(std::string_view text, std::size_t at) {
    std::size_t b = 0, e = text.size();
    while (b < e && blank(text[b])) ++b;
    while (e > b && blank(text[e - 1])) --e;
    const std::size_t column = at + b + 1;
    const std::string where = "column " + std::to_string(values_.size() + 1);
    if (b == e) fail(at + 1, where + " is blank (a number is expected)");
    std::string_view number = text.substr(b, e - b);
    if (number.size() > 1 && number[0] == '+' && number[1] != '-' && number[1] != '+') number.remove_prefix(1);
    double v = 0.0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), v);
    const std::string quoted = "'" + std::string(text.substr(b, e - b)) + "'";
    if (error == std::errc::result_out_of_range)
      fail(column, where + " (" + quoted + ") is outside the range of a double");
    if (error != std::errc{} || end != number.data() + number.size())
      fail(column, where + " (" + quoted + ") is not a number");
    if (!std::isfinite(v)) fail(column, where + " (" + quoted + ") is not a finite number");
    values_.push_back(v);
    starts_.push_back(column);
  }

  void store() {
    const double id = values_[0];
    const double next = static_cast<double>(series_.size());
    if (id != std::floor(id) || id < 0)
      fail(starts_[0], "the experiment number " + shortest(id) + " is not a non-negative integer");
    // Compared as doubles: 1e300 or 2^64 must not be cast to a size (it was read as 0).
    if (series_.empty() && id != 0.0)
      fail(starts_[0], "the first experiment is " + shortest(id) + ": experiments are numbered 0, 1, ...");
    if (id != next && id != next - 1.0)
      fail(starts_[0], "experiment " + shortest(id) + " follows experiment " + shortest(next - 1.0) +
                           ": experiments must be numbered 0, 1, ... and listed one after the other");
    if (id == next) series_.emplace_back();
    MeasurementSeries& s = series_.back();
    const double t = values_[1];
    if (!s.times.empty() && !(t > s.times.back()))
      fail(starts_[1], "time " + shortest(t) + " does not increase (previous " + shortest(s.times.back()) + ")");
    for (int i = 0; i < ny_; ++i) {
      const std::size_t c = 2 + static_cast<std::size_t>(ny_ + i);
      if (!(values_[c] >= min_sigma))
        fail(starts_[c], "sigma_" + std::to_string(i + 1) + " = " + shortest(values_[c]) +
                             (values_[c] > 0.0 ? " is below the smallest standard deviation taken (" +
                                                     shortest(min_sigma) + ")"
                                               : " is not positive"));
    }
    s.times.push_back(t);
    s.data.insert(s.data.end(), values_.begin() + 2, values_.begin() + 2 + ny_);
    s.sigma.insert(s.sigma.end(), values_.begin() + 2 + ny_, values_.end());
  }

  int ny_;
  std::string name_;
  std::size_t columns_ = 0;
  int line_ = 0;
  std::vector<double> values_;       // the fields of the current line
  std::vector<std::size_t> starts_;  // their columns
  std::vector<MeasurementSeries> series_;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::size_t measurement_line_limit(int ny) {
  return 64 + 64 * (2 + 2 * static_cast<std::size_t>(ny < 1 ? 1 : ny));
}

std::vector<MeasurementSeries> parse_measurements(std::string_view text, int ny, const std::string& name) {
  Reader reader(ny, name);
  const std::size_t limit = measurement_line_limit(ny);
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (line.size() > limit)
      throw std::runtime_error(name + ":" + std::to_string(reader.line_number() + 1) + ":" +
                               std::to_string(limit + 1) + ": the line is longer than " + std::to_string(limit) +
                               " bytes (64 per column)");
    reader.line(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return reader.finish();
}

std::vector<MeasurementSeries> read_measurements(const std::string& path, int ny) {
  Reader reader(ny, path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(path + ": is a directory, not a measurement file");
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error(path + ": cannot open the measurement file (" + std::strerror(errno) + ")");
  // Streamed: memory is the series read plus one line, whose length is capped, so an endless
  // input without newlines (/dev/zero, a binary file) ends at the limit.
  const std::size_t limit = measurement_line_limit(ny);
  std::string line;
  char chunk[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(chunk, 1, sizeof chunk, file.get());
    if (got == 0) {
      if (std::ferror(file.get()))
        throw std::runtime_error(path + ": cannot read the measurement file (" + std::strerror(errno) + ")");
      break;
    }
    std::string_view rest(chunk, got);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      const std::string_view piece = rest.substr(0, end);
      if (line.size() + piece.size() > limit)
        throw std::runtime_error(path + ":" + std::to_string(reader.line_number() + 1) + ":" +
                                 std::to_string(limit + 1) + ": the line is longer than " +
                                 std::to_string(limit) + " bytes (64 per column)");
      line.append(piece);
      if (end == std::string_view::npos) break;
      reader.line(line);
      line.clear();
      rest.remove_prefix(end + 1);
    }
  }
  if (!line.empty()) reader.line(line);
  return reader.finish();
}

void write_measurements(const std::string& path, const std::vector<MeasurementSeries>& series,
                        int ny, const std::string& header_comment) {
  if (ny < 1) throw std::invalid_argument("write_measurements: ny must be >= 1 (got " + std::to_string(ny) + ")");
  const auto uny = static_cast<std::size_t>(ny);
  for (std::size_t e = 0; e < series.size(); ++e) {
    const MeasurementSeries& s = series[e];
    if (s.data.size() != s.times.size() * uny || s.sigma.size() != s.times.size() * uny)
      throw std::invalid_argument("write_measurements: experiment " + std::to_string(e) + " has " +
                                  std::to_string(s.times.size()) + " times, " + std::to_string(s.data.size()) +
                                  " data values and " + std::to_string(s.sigma.size()) +
                                  " sigmas; expected times x ny = " + std::to_string(s.times.size() * uny) +
                                  " of each");
  }
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "w"));
  if (!file) throw std::runtime_error(path + ": cannot write the measurement file (" + std::strerror(errno) + ")");
  std::FILE* f = file.get();
  bool good = true;
  if (!header_comment.empty()) good = std::fprintf(f, "# %s\n", header_comment.c_str()) >= 0 && good;
  good = std::fprintf(f, "# experiment, time, y_1..y_%d, sigma_1..sigma_%d\n", ny, ny) >= 0 && good;
  for (std::size_t e = 0; e < series.size() && good; ++e)
    for (std::size_t k = 0; k < series[e].times.size() && good; ++k) {
      good = std::fprintf(f, "%zu, %.17g", e, series[e].times[k]) >= 0;
      for (std::size_t i = 0; i < uny; ++i) good = std::fprintf(f, ", %.17g", series[e].data[k * uny + i]) >= 0 && good;
      for (std::size_t i = 0; i < uny; ++i) good = std::fprintf(f, ", %.17g", series[e].sigma[k * uny + i]) >= 0 && good;
      good = std::fputc('\n', f) != EOF && good;
    }
  // The buffered data reaches the file only at the flush: a full device fails there.
  good = std::fflush(f) == 0 && !std::ferror(f) && good;
  int error = errno;
  const bool closed = std::fclose(file.release()) == 0;
  if (good && !closed) error = errno;
  if (!good || !closed)
    throw std::runtime_error(path + ": writing the measurement file failed (" + std::strerror(error) + ")");
}

}  // namespace esdirk::multishoot
