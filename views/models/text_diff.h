#pragma once
/// A line diff (Myers' O(ND) algorithm) and its side-by-side arrangement: what the diff pane
/// shows for the FX text of a pass's input and output. Plain C++ on std::string lines, so that
/// hand-made texts can test it and the pane only has to colour the rows.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fxray::views {

/// One line of an edit script.
struct DiffLine {
    enum class Kind : unsigned char { Same, Removed, Added };
    Kind kind = Kind::Same;
    int left = -1;   ///< 0-based line in the old text (Same, Removed), else -1
    int right = -1;  ///< 0-based line in the new text (Same, Added), else -1
};

/// The shortest edit script turning `a` into `b` (removals of a block before its additions).
std::vector<DiffLine> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// Splits text into lines (a final newline does not start an empty line).
std::vector<std::string> splitLines(std::string_view text);

/// One row of a side-by-side view: a line on the left, on the right, or both. A run of removals
/// followed by a run of additions is paired row by row (a changed line reads across).
struct SideBySideRow {
    int left = -1;   ///< line in the old text, or -1 (blank on that side)
    int right = -1;  ///< line in the new text, or -1
    DiffLine::Kind leftKind = DiffLine::Kind::Same;
    DiffLine::Kind rightKind = DiffLine::Kind::Same;
};

std::vector<SideBySideRow> sideBySide(const std::vector<DiffLine>& script);

/// Number of added and removed lines of a script.
struct DiffSummary {
    size_t added = 0;
    size_t removed = 0;
};
DiffSummary summarize(const std::vector<DiffLine>& script);

}  // namespace fxray::views
