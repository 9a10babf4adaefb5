#pragma once
// The grouped-query attention case two tests share (the Dynamo stage's enable_gqa rule and the
// ATen op's kernels): 4 query heads over 2 key/value heads of one batch, 2 queries, 3 keys, head
// dim 2, and the attention worked out here, query head h reading key/value head h / 2.
#include <cmath>
#include <cstddef>
#include <vector>

namespace fxtest {

struct GqaCase {
    std::vector<double> q = std::vector<double>(16), k = std::vector<double>(12), v = std::vector<double>(12);
    GqaCase() {
        for (size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.7 * double(i) + 0.3);
        for (size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.45 * double(i)), v[i] = 0.25 * double(i) - 1;
    }
    /// softmax(q kᵀ / sqrt(2)) v per query head, [1, 4, 2, 2] row-major.
    std::vector<double> attention() const {
        std::vector<double> want;
        for (size_t h = 0; h < 4; ++h)
            for (size_t m = 0; m < 2; ++m) {
                const size_t g = h / 2;
                double s[3], z = 0;
                for (size_t n = 0; n < 3; ++n) {
                    s[n] = 0;
                    for (size_t d = 0; d < 2; ++d) s[n] += q[(h * 2 + m) * 2 + d] * k[(g * 3 + n) * 2 + d];
                    s[n] = std::exp(s[n] / std::sqrt(2.0));
                    z += s[n];
                }
                for (size_t d = 0; d < 2; ++d) {
                    double o = 0;
                    for (size_t n = 0; n < 3; ++n) o += s[n] / z * v[(g * 3 + n) * 2 + d];
                    want.push_back(o);
                }
            }
        return want;
    }
};

}  // namespace fxtest
