#pragma once
/// Wall-clock helpers for the times fxray reports (compile stats, run times, benchmarks): one
/// clock, one unit (milliseconds) and one summary of repeated runs for every layer.
#include <algorithm>
#include <chrono>
#include <vector>

namespace fxray {

using SteadyClock = std::chrono::steady_clock;

/// Milliseconds elapsed since t0.
inline double msSince(SteadyClock::time_point t0) {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
}

/// Repeated runs of one thing: the median is what tables quote (robust to a stray slow run).
struct Timing {
    double medianMs = 0, minMs = 0, maxMs = 0;
    int iters = 0;
};

/// The summary of `ms` (sorted in place); all zero when empty.
inline Timing summarize(std::vector<double>& ms) {
    Timing t;
    if (ms.empty()) return t;
    std::sort(ms.begin(), ms.end());
    t.medianMs = ms[ms.size() / 2];
    t.minMs = ms.front();
    t.maxMs = ms.back();
    t.iters = static_cast<int>(ms.size());
    return t;
}

}  // namespace fxray
