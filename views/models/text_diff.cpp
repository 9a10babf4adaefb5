#include "models/text_diff.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace fxray::views {

namespace {

/// Beyond this many edits the O(D²) trace of the greedy algorithm grows too large (D = 2000 is
/// 16 MB); such a diff is shown as the middle block removed and re-added, which is still a
/// correct, if not minimal, script. Passes change far fewer lines than this.
constexpr int kMaxEdits = 2000;

/// Puts the removals of each changed block before its additions (the order readers expect).
void groupBlocks(std::vector<DiffLine>& s) {
    size_t i = 0;
    while (i < s.size()) {
        if (s[i].kind == DiffLine::Kind::Same) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < s.size() && s[j].kind != DiffLine::Kind::Same) ++j;
        std::stable_partition(s.begin() + static_cast<std::ptrdiff_t>(i), s.begin() + static_cast<std::ptrdiff_t>(j),
                              [](const DiffLine& d) { return d.kind == DiffLine::Kind::Removed; });
        i = j;
    }
}

/// Myers' greedy forward search over a[0,n) and b[0,m); appends the script (shifted by `off`) to
/// `out`. False when the edit distance exceeds kMaxEdits.
bool myers(const int* a, int n, const int* b, int m, int offA, int offB, std::vector<DiffLine>& out) {
    const int max = n + m;
    const int offset = max + 1;
    std::vector<int> v(static_cast<size_t>(2 * max + 3), 0);
    std::vector<std::vector<int>> trace;  // trace[d][k + d]: furthest x on diagonal k after d edits
    int found = -1;
    for (int d = 0; d <= max && found < 0; ++d) {
        if (d > kMaxEdits) return false;
        for (int k = -d; k <= d; k += 2) {
            int x =
                (k == -d || (k != d && v[static_cast<size_t>(offset + k - 1)] < v[static_cast<size_t>(offset + k + 1)]))
                    ? v[static_cast<size_t>(offset + k + 1)]
                    : v[static_cast<size_t>(offset + k - 1)] + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) ++x, ++y;
            v[static_cast<size_t>(offset + k)] = x;
            if (x >= n && y >= m) found = d;
        }
        trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
    }
    std::vector<DiffLine> rev;
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
        const std::vector<int>& prev = trace[static_cast<size_t>(d - 1)];
        auto at = [&](int k) { return prev[static_cast<size_t>(k + d - 1)]; };
        const int k = x - y;
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        const int prevK = down ? k + 1 : k - 1;
        const int prevX = at(prevK);
        const int prevY = prevX - prevK;
        // The snake after the edit, then the edit itself.
        const int startX = down ? prevX : prevX + 1;
        while (x > startX) {
            --x, --y;
            rev.push_back({DiffLine::Kind::Same, offA + x, offB + y});
        }
        if (down)
            rev.push_back({DiffLine::Kind::Added, -1, offB + prevY});
        else
            rev.push_back({DiffLine::Kind::Removed, offA + prevX, -1});
        x = prevX, y = prevY;
    }
    while (x > 0 && y > 0) {
        --x, --y;
        rev.push_back({DiffLine::Kind::Same, offA + x, offB + y});
    }
    out.insert(out.end(), rev.rbegin(), rev.rend());
    return true;
}

}  // namespace

std::vector<std::string> splitLines(std::string_view text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        lines.emplace_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

std::vector<DiffLine> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    // Lines become integers once, so that the search compares ints.
    std::unordered_map<std::string_view, int> ids;
    auto intern = [&](const std::vector<std::string>& lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (const auto& l : lines) out.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
        return out;
    };
    const std::vector<int> ia = intern(a), ib = intern(b);
    const int n = static_cast<int>(ia.size()), m = static_cast<int>(ib.size());

    // A common prefix and suffix need no search (passes usually touch the middle).
    int pre = 0;
    while (pre < n && pre < m && ia[static_cast<size_t>(pre)] == ib[static_cast<size_t>(pre)]) ++pre;
    int suf = 0;
    while (suf < n - pre && suf < m - pre &&
           ia[static_cast<size_t>(n - 1 - suf)] == ib[static_cast<size_t>(m - 1 - suf)])
        ++suf;

    std::vector<DiffLine> out;
    out.reserve(static_cast<size_t>(std::max(n, m)));
    for (int i = 0; i < pre; ++i) out.push_back({DiffLine::Kind::Same, i, i});
    const int midA = n - pre - suf, midB = m - pre - suf;
    if (!myers(ia.data() + pre, midA, ib.data() + pre, midB, pre, pre, out)) {
        for (int i = 0; i < midA; ++i) out.push_back({DiffLine::Kind::Removed, pre + i, -1});
        for (int j = 0; j < midB; ++j) out.push_back({DiffLine::Kind::Added, -1, pre + j});
    }
    for (int i = 0; i < suf; ++i) out.push_back({DiffLine::Kind::Same, n - suf + i, m - suf + i});
    groupBlocks(out);
    return out;
}

std::vector<SideBySideRow> sideBySide(const std::vector<DiffLine>& script) {
    std::vector<SideBySideRow> rows;
    rows.reserve(script.size());
    size_t i = 0;
    while (i < script.size()) {
        if (script[i].kind == DiffLine::Kind::Same) {
            rows.push_back({script[i].left, script[i].right, DiffLine::Kind::Same, DiffLine::Kind::Same});
            ++i;
            continue;
        }
        std::vector<int> removed, added;
        for (; i < script.size() && script[i].kind != DiffLine::Kind::Same; ++i) {
            if (script[i].kind == DiffLine::Kind::Removed)
                removed.push_back(script[i].left);
            else
                added.push_back(script[i].right);
        }
        const size_t n = std::max(removed.size(), added.size());
        for (size_t r = 0; r < n; ++r) {
            SideBySideRow row;
            if (r < removed.size()) row.left = removed[r], row.leftKind = DiffLine::Kind::Removed;
            if (r < added.size()) row.right = added[r], row.rightKind = DiffLine::Kind::Added;
            rows.push_back(row);
        }
    }
    return rows;
}

DiffSummary summarize(const std::vector<DiffLine>& script) {
    DiffSummary s;
    for (const auto& d : script) {
        if (d.kind == DiffLine::Kind::Added)
            ++s.added;
        else if (d.kind == DiffLine::Kind::Removed)
            ++s.removed;
    }
    return s;
}

}  // namespace fxray::views
