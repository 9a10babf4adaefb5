#include "partition/knapsack.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace fxray::partition {

KnapsackResult greedyKnapsack(const std::vector<double>& memory, const std::vector<double>& runtimes,
                              double maxMemory) {
    const size_t n = runtimes.size();
    std::vector<int> items(n);
    std::iota(items.begin(), items.end(), 0);
    // PyTorch divides by zero here (ZeroDivisionError); a free item is the best ratio.
    auto ratio = [&](int i) {
        return memory[i] == 0.0 ? std::numeric_limits<double>::infinity() : runtimes[i] / memory[i];
    };
    // sorted(..., reverse=True) is stable: equal ratios keep index order.
    std::stable_sort(items.begin(), items.end(), [&](int a, int b) { return ratio(a) > ratio(b); });
    KnapsackResult r;
    double totalMemory = 0.0;
    for (int i : items) {
        if (totalMemory + memory[i] <= maxMemory) {
            totalMemory += memory[i];
            r.runtime += runtimes[i];
            r.saved.push_back(i);
        } else {
            r.recomputed.push_back(i);
        }
    }
    return r;
}

KnapsackResult dpKnapsack(const std::vector<double>& memory, const std::vector<double>& runtimes, double maxMemory) {
    constexpr double kScale = 10000.0;
    const size_t n = memory.size();
    // Python's round() rounds half to even, as nearbyint does in the default rounding mode.
    std::vector<int64_t> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = static_cast<int64_t>(std::nearbyint(memory[i] * kScale));
    const int64_t cap = std::max<int64_t>(0, static_cast<int64_t>(std::nearbyint(maxMemory * kScale)));
    const size_t width = static_cast<size_t>(cap) + 1;

    // Two float32 rows, plus one "row i differs from row i-1 at j" bit per cell for the
    // backtrack (PyTorch compares dp[i][j] != dp[i-1][j] on the full table).
    std::vector<float> prev(width, 0.0f), cur(width, 0.0f);
    std::vector<uint8_t> changed(n * width, 0);
    for (size_t i = 0; i < n; ++i) {
        const float r = static_cast<float>(runtimes[i]);
        uint8_t* ch = changed.data() + i * width;
        if (w[i] == 0) {
            for (size_t j = 0; j < width; ++j) {
                cur[j] = prev[j] + r;
                ch[j] = cur[j] != prev[j];
            }
        } else {
            for (size_t j = 0; j < width; ++j) {
                float keep = prev[j];
                float best = keep;
                if (w[i] > 0 && static_cast<int64_t>(j) >= w[i]) best = std::max(keep, prev[j - w[i]] + r);
                cur[j] = best;
                ch[j] = best != keep;
            }
        }
        std::swap(prev, cur);
    }
    KnapsackResult res;
    int64_t j = cap;
    for (size_t k = n; k-- > 0;) {
        if (changed[k * width + static_cast<size_t>(j)]) {
            res.saved.push_back(static_cast<int>(k));
            j -= w[k];
        } else {
            res.recomputed.push_back(static_cast<int>(k));
        }
    }
    std::reverse(res.saved.begin(), res.saved.end());
    res.runtime = prev[static_cast<size_t>(cap)];
    return res;
}

}  // namespace fxray::partition
