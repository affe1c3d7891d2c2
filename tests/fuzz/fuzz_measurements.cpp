// libFuzzer target: the measurement reader and writer (esdirk/multishoot/measurements.hpp).
// The first byte picks ny (1 to 4); the rest is the file's text. What is checked:
//  - parse_measurements either returns series or throws std::runtime_error whose message
//    starts with the name and ":line:col: " (or "name: " for whole-file problems); no other
//    exception;
//  - the series read are consistent: every experiment has >= 2 increasing finite times,
//    times x ny finite data and sigmas >= min_sigma;
//  - reading the same bytes from a file (read_measurements, streamed in chunks) gives the
//    same series bit for bit, or the same message;
//  - writing the series and reading them back gives them bit for bit (the round trip);
//  - now and then the writer is pointed at /dev/full and must throw.
// Work per input: one parse of at most -max_len bytes, two small files written and read.

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/multishoot/measurements.hpp"

namespace ms = esdirk::multishoot;

namespace {

// Per-process scratch files (several fuzzers may run at once), in memory where the system
// has a tmpfs (a disk made the target I/O bound: a tenth of its speed).
const std::string& scratch(int which) {
  static const std::string folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  static const std::string names[2] = {
      folder + "/esdirk-fuzz-measurements-" + std::to_string(getpid()) + "-raw.csv",
      folder + "/esdirk-fuzz-measurements-" + std::to_string(getpid()) + "-written.csv"};
  return names[which];
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same(const std::vector<ms::MeasurementSeries>& a, const std::vector<ms::MeasurementSeries>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t e = 0; e < a.size(); ++e)
    if (!same_bits(a[e].times, b[e].times) || !same_bits(a[e].data, b[e].data) ||
        !same_bits(a[e].sigma, b[e].sigma))
      return false;
  return true;
}

void check_consistent(const std::vector<ms::MeasurementSeries>& series, int ny) {
  if (series.empty()) std::abort();
  const auto uny = static_cast<std::size_t>(ny);
  for (const ms::MeasurementSeries& s : series) {
    if (s.times.size() < 2 || s.data.size() != s.times.size() * uny || s.sigma.size() != s.data.size())
      std::abort();
    for (std::size_t k = 0; k < s.times.size(); ++k)
      if (!std::isfinite(s.times[k]) || (k > 0 && !(s.times[k] > s.times[k - 1]))) std::abort();
    for (double v : s.data)
      if (!std::isfinite(v)) std::abort();
    for (double v : s.sigma)
      if (!(v >= ms::min_sigma) || !std::isfinite(v)) std::abort();
  }
}

// "name:line:col: what" or "name: what".
void check_located(const std::string& message, const std::string& name) {
  if (message.compare(0, name.size() + 1, name + ":") != 0) std::abort();
  const char* rest = message.c_str() + name.size() + 1;
  if (*rest == ' ') return;  // a whole-file message
  char* end = nullptr;
  const long line = std::strtol(rest, &end, 10);
  if (line < 1 || *end != ':') std::abort();
  const long column = std::strtol(end + 1, &end, 10);
  if (column < 1 || std::strncmp(end, ": ", 2) != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int ny = 1 + data[0] % 4;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<ms::MeasurementSeries> series;
  std::string message;
  try {
    series = ms::parse_measurements(text, ny, "fuzz");
    check_consistent(series, ny);
  } catch (const std::runtime_error& e) {
    message = e.what();
    check_located(message, "fuzz");
  }
  // The file reader sees the same bytes in chunks: the same answer.
  {
    std::ofstream(scratch(0), std::ios::binary) << text;
    try {
      const auto from_file = ms::read_measurements(scratch(0), ny);
      if (!message.empty() || !same(from_file, series)) std::abort();
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      if (message.empty() || m.substr(scratch(0).size()) != message.substr(4)) std::abort();
    }
  }
  if (!message.empty()) return 0;
  // The round trip.
  ms::write_measurements(scratch(1), series, ny, "fuzz");
  if (!same(ms::read_measurements(scratch(1), ny), series)) std::abort();
  if (data[0] >= 0xf8) {
    bool threw = false;
    try {
      ms::write_measurements("/dev/full", series, ny);
    } catch (const std::runtime_error&) {
      threw = true;
    }
    if (!threw) std::abort();
  }
  return 0;
}
