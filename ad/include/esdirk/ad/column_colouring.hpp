#pragma once
// The columns of a Jacobian block grouped by colour for coloured forward mode
// (doc/ad-guide.md): the columns of one colour share no row, so one lane of a forward pass can
// carry the sum of their unit directions, and row i of that lane belongs to the one column of
// the colour with an entry in row i (Curtis-Powell-Reid).

#include <span>
#include <vector>

#include "esdirk/export.hpp"

namespace esdirk::ad {

struct ESDIRK_API ColumnColouring {
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
              std::span<const int> colour_of = {});
};

}  // namespace esdirk::ad
