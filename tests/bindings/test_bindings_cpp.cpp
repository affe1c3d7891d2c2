// The status table through C++: every `success` and `failure` row of esdirk/status_codes.def
// is an esdirk::Status with the row's value, name and message, the same as the C API gives for
// that value; no value outside the table has a name; the statistics counters listed for the
// bindings are the ones the reports print.
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"

namespace {

struct Row {
  std::string_view kind, name;
  int c_value;
  int value;
  std::string_view message;
};

#define ESDIRK_STATUS(kind, name, C_NAME, value, message) \
  Row{#kind, #name, ESDIRK_##C_NAME, value, message},
constexpr Row rows[] = {
#include "esdirk/status_codes.def"
};
#undef ESDIRK_STATUS

bool is_status_kind(std::string_view kind) { return kind == "success" || kind == "failure"; }

void every_status() {
  std::size_t enumerators = 0;
  std::set<int> values;
  for (const Row& row : rows) {
    CHECK(row.c_value == row.value);
    CHECK(esdirk_status_name(row.value) == row.name);
    CHECK(esdirk_status_message(row.value) == row.message);
    CHECK(values.insert(row.value).second);
    if (!is_status_kind(row.kind)) continue;
    const auto status = static_cast<esdirk::Status>(row.value);
    CHECK(esdirk::status_name(status) == row.name);
    CHECK(esdirk::status_message(status) == row.message);
    // all_statuses lists the enumerators in the table's order.
    CHECK(enumerators < std::size(esdirk::all_statuses));
    if (enumerators < std::size(esdirk::all_statuses))
      CHECK(esdirk::all_statuses[enumerators] == status);
    ++enumerators;
  }
  CHECK(enumerators == std::size(esdirk::all_statuses));
  CHECK(esdirk::ok(esdirk::Status::success) && static_cast<int>(esdirk::Status::success) == 0);
  CHECK(static_cast<int>(esdirk::Status::too_many_steps) == ESDIRK_TOO_MANY_STEPS);
  // Nothing outside the table has a name, in C or C++.
  for (int v = -300; v <= 300; ++v) {
    if (values.count(v)) continue;
    CHECK(std::strcmp(esdirk_status_name(v), "unknown") == 0);
    CHECK(esdirk::status_name(static_cast<esdirk::Status>(v)) == "unknown");
  }
  // Rows of the other kinds are no Status.
  for (const Row& row : rows)
    if (!is_status_kind(row.kind))
      CHECK(esdirk::status_name(static_cast<esdirk::Status>(row.value)) == "unknown");
}

void every_counter() {
  const auto counters = esdirk::statistics_counters();
  CHECK(counters.size() >= 16);
  esdirk::Statistics s;
  long value = 1;
  std::set<std::string> names;
  for (const esdirk::StatisticsCounter& counter : counters) {
    CHECK(names.insert(counter.name).second);
    s.*counter.counter = value++;  // distinct members: each keeps its own value
  }
  value = 1;
  const std::string csv = s.csv(), table = s.table();
  for (const esdirk::StatisticsCounter& counter : counters) {
    CHECK(s.*counter.counter == value);
    CHECK(csv.find(std::string(counter.name) + "," + std::to_string(value) + "\n") !=
          std::string::npos);
    CHECK(table.find(counter.name) != std::string::npos);
    ++value;
  }
  // The C listing is this list.
  for (std::size_t i = 0; i < counters.size(); ++i)
    CHECK(std::strcmp(esdirk_counter_name(static_cast<int>(i)), counters[i].name) == 0);
  CHECK(esdirk_counter_name(static_cast<int>(counters.size())) == nullptr);
}

}  // namespace

int main() {
  every_status();
  every_counter();
  return report();
}
