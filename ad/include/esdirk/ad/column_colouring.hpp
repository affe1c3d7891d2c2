#pragma once
// The columns of a Jacobian block grouped by colour for coloured forward mode
// (doc/ad-guide.md): the columns of one colour share no row, so one lane of a forward pass can
// carry the sum of their unit directions, and row i of that lane belongs to the one column of
// the colour with an entry in row i (Curtis-Powell-Reid).
//
// Header-only: ModelProblem, a template in users' translation units, forms its colourings
// here, so nothing of it has to leave the library (a plain aggregate, not exported).

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace esdirk::ad {

struct ColumnColouring {
  int columns = 0;
  int colours = 0;
  std::vector<int> colour;           ///< the colour of each column
  std::vector<int> colour_pointers;  ///< the columns of colour c: members[colour_pointers[c] ..
  std::vector<int> members;          ///<   colour_pointers[c + 1])
  std::vector<int> column_pointers;  ///< the pattern (CSC): the rows of column j are
  std::vector<int> rows;             ///<   rows[column_pointers[j] .. column_pointers[j + 1])
  std::vector<int> entry_lanes;      ///< the colour of the column of each entry (entry k: rows[k])

  /// The pattern of a rows x columns block (CSC, rows of a column ascending) with the colours
  /// given (e.g. by esdirk::colour_columns), or, when `colour_of` is empty, coloured greedily
  /// in the natural column order with the smallest colour no column sharing a row has (the
  /// rule of esdirk::colour_columns). A column without rows gets colour 0.
  void assign(int row_count, std::span<const int> pointers, std::span<const int> row_indices,
              std::span<const int> colour_of = {}) {
    columns = static_cast<int>(pointers.size()) - 1;
    column_pointers.assign(pointers.begin(), pointers.end());
    rows.assign(row_indices.begin(), row_indices.end());
    const auto nc = static_cast<std::size_t>(columns);
    if (!colour_of.empty()) {
      colour.assign(colour_of.begin(), colour_of.end());
    } else {
      // The columns of each row (CSR), then greedy: a column takes the smallest colour that no
      // column before it sharing one of its rows has.
      std::vector<int> row_pointers(static_cast<std::size_t>(row_count) + 1, 0), row_columns(rows.size());
      for (int r : rows) ++row_pointers[static_cast<std::size_t>(r) + 1];
      for (int i = 0; i < row_count; ++i) row_pointers[static_cast<std::size_t>(i) + 1] += row_pointers[static_cast<std::size_t>(i)];
      std::vector<int> next(row_pointers.begin(), row_pointers.end() - 1);
      for (int j = 0; j < columns; ++j)
        for (int k = pointers[static_cast<std::size_t>(j)]; k < pointers[static_cast<std::size_t>(j) + 1]; ++k)
          row_columns[static_cast<std::size_t>(next[static_cast<std::size_t>(rows[static_cast<std::size_t>(k)])]++)] = j;
      colour.assign(nc, 0);
      std::vector<int> taken(nc + 1, -1);  // taken[c] == j: colour c is used by a neighbour of j
      for (int j = 0; j < columns; ++j) {
        for (int k = pointers[static_cast<std::size_t>(j)]; k < pointers[static_cast<std::size_t>(j) + 1]; ++k) {
          const auto r = static_cast<std::size_t>(rows[static_cast<std::size_t>(k)]);
          for (int m = row_pointers[r]; m < row_pointers[r + 1]; ++m) {
            const int other = row_columns[static_cast<std::size_t>(m)];
            if (other < j) taken[static_cast<std::size_t>(colour[static_cast<std::size_t>(other)])] = j;
          }
        }
        int c = 0;
        while (taken[static_cast<std::size_t>(c)] == j) ++c;
        colour[static_cast<std::size_t>(j)] = c;
      }
    }
    colours = columns > 0 ? 1 + *std::max_element(colour.begin(), colour.end()) : 0;
    colour_pointers.assign(static_cast<std::size_t>(colours) + 1, 0);
    for (int c : colour) ++colour_pointers[static_cast<std::size_t>(c) + 1];
    for (int c = 0; c < colours; ++c)
      colour_pointers[static_cast<std::size_t>(c) + 1] += colour_pointers[static_cast<std::size_t>(c)];
    members.resize(nc);
    std::vector<int> slot(colour_pointers.begin(), colour_pointers.end() - 1);
    for (int j = 0; j < columns; ++j)
      members[static_cast<std::size_t>(slot[static_cast<std::size_t>(colour[static_cast<std::size_t>(j)])]++)] = j;
    entry_lanes.resize(rows.size());
    for (int j = 0; j < columns; ++j)
      for (int k = pointers[static_cast<std::size_t>(j)]; k < pointers[static_cast<std::size_t>(j) + 1]; ++k)
        entry_lanes[static_cast<std::size_t>(k)] = colour[static_cast<std::size_t>(j)];
  }
};

}  // namespace esdirk::ad
