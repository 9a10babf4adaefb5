// The CUDA backend's sorting and indexing device externs (label gpu): sort, sort.stable, topk,
// the uniques and repeat_interleave (rows longer than a block, NaNs and ties), masked_scatter past
// its rule's limit, index_put with None items, put, the masked index puts, masked_select, and an
// extern call before an in-place write. Each is checked on values computed by hand or against the
// reference executor (itself checked by hand, also without a GPU), and asserts that no op ran on
// the host. Skipped with the reason without a device.
#include "cuda_exec_util.h"
#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace fxray;
using namespace cudatest;

class TestCudaExecIndexing : public QObject {
    Q_OBJECT
private slots:
    void sort_by_hand() {
        // Stable, NaN above every number: ascending [3, NaN, 1, 3] is 1, 3, 3, NaN with indices
        // 2, 0, 3, 1 (equal keys keep their order); descending puts NaN first.
        auto g = fxtest::parseForward("x: " + ann({2, 4}),
                                      "        sort = torch.ops.aten.sort.default(x)\n"
                                      "        getitem: " +
                                          ann({2, 4}) +
                                          " = sort[0]\n"
                                          "        getitem_1: " +
                                          ann({2, 4}, "i64") +
                                          " = sort[1]\n"
                                          "        sort_1 = torch.ops.aten.sort.default(x, 1, True)\n"
                                          "        getitem_2: " +
                                          ann({2, 4}) +
                                          " = sort_1[0]\n"
                                          "        getitem_3: " +
                                          ann({2, 4}, "i64") +
                                          " = sort_1[1]\n"
                                          "        return (getitem, getitem_1, getitem_2, getitem_3)\n");
        QVERIFY(g);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<Value> in{fxtest::tv({2, 4}, {3, nan, 1, 3, 2, 2, -1, 0})};
        const std::vector<std::vector<double>> want{{1, 3, 3, nan, -1, 0, 2, 2},
                                                    {2, 0, 3, 1, 2, 3, 0, 1},
                                                    {nan, 3, 3, 1, 2, 2, 0, -1},
                                                    {1, 0, 3, 2, 0, 1, 3, 2}};
        // FX_COMPARE_VEC passes any value against NaN: the NaN positions are checked apart.
        auto check = [&](const std::vector<Value>& outs) {
            QCOMPARE(outs.size(), size_t(4));
            for (size_t i = 0; i < 4; ++i) {
                const auto v = fxtest::values(outs[i]);
                FX_COMPARE_VEC(v, want[i], 0);
                for (size_t e = 0; e < v.size(); ++e) QCOMPARE(std::isnan(v[e]), std::isnan(want[i][e]));
            }
        };
        check(reference(*g, in));
        if (QTest::currentTestFailed()) return;
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        check(r.outputs);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void sorting_vs_reference() {
        // Rows longer than a block (5,000: the merge sort's passes) with ties and NaNs; sort.stable
        // by keyword, topk both ways, and the uniques of int64 runs and of a float tensor with
        // NaNs (each its own value), their inverses and counts, and repeat_interleave of the
        // runs: the device gives the reference executor's values and indices exactly (ties in
        // input order), with no op on the host.
        const int64_t n = 5000;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> xs(static_cast<size_t>(3 * n)), ys(40), zs(42);
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = i % 97 == 5 ? nan : std::floor(50.0 * std::sin(0.37 * i));
        for (size_t i = 0; i < ys.size(); ++i) ys[i] = static_cast<double>((i / 3) % 4);
        for (size_t i = 0; i < zs.size(); ++i) zs[i] = static_cast<double>((i * 5) % 4);
        // The uniques' sizes, for their getitems' annotations (the values are the reference's).
        auto distinct = [](std::vector<double> v, bool consecutive) {
            int64_t c = 0;
            if (!consecutive)
                std::sort(v.begin(), v.end(),
                          [](double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; });
            for (size_t i = 0; i < v.size(); ++i) c += (i == 0 || !(v[i - 1] == v[i])) ? 1 : 0;
            return c;
        };
        const int64_t uy = distinct(ys, false), cy = distinct(ys, true), ux = distinct(xs, false);
        int64_t ry = 0;  // repeat_interleave(y)'s length
        for (double v : ys) ry += static_cast<int64_t>(v);
        auto g = fxtest::parseForward(
            "x: " + ann({3, n}) + ", y: " + ann({40}, "i64") + ", z: " + ann({6, 7}),
            "        sort = torch.ops.aten.sort.default(x, 1)\n"
            "        getitem: " +
                ann({3, n}) +
                " = sort[0]\n"
                "        getitem_1: " +
                ann({3, n}, "i64") +
                " = sort[1]\n"
                "        sort_1 = torch.ops.aten.sort.stable(z, stable = True, dim = 0, descending = True)\n"
                "        getitem_2: " +
                ann({6, 7}) +
                " = sort_1[0]\n"
                "        getitem_3: " +
                ann({6, 7}, "i64") +
                " = sort_1[1]\n"
                "        topk = torch.ops.aten.topk.default(x, 9)\n"
                "        getitem_4: " +
                ann({3, 9}) +
                " = topk[0]\n"
                "        getitem_5: " +
                ann({3, 9}, "i64") +
                " = topk[1]\n"
                "        topk_1 = torch.ops.aten.topk.default(z, 2, 0, False)\n"
                "        getitem_6: " +
                ann({2, 7}) +
                " = topk_1[0]\n"
                "        getitem_7: " +
                ann({2, 7}, "i64") +
                " = topk_1[1]\n"
                "        _unique2 = torch.ops.aten._unique2.default(y, True, True, True)\n"
                "        getitem_8: " +
                ann({uy}, "i64") +
                " = _unique2[0]\n"
                "        getitem_9: " +
                ann({40}, "i64") +
                " = _unique2[1]\n"
                "        getitem_10: " +
                ann({uy}, "i64") +
                " = _unique2[2]\n"
                "        unique_consecutive = torch.ops.aten.unique_consecutive.default(y, True, True)\n"
                "        getitem_11: " +
                ann({cy}, "i64") +
                " = unique_consecutive[0]\n"
                "        getitem_12: " +
                ann({40}, "i64") +
                " = unique_consecutive[1]\n"
                "        getitem_13: " +
                ann({cy}, "i64") +
                " = unique_consecutive[2]\n"
                "        _unique = torch.ops.aten._unique.default(x, True, True)\n"
                "        getitem_14: " +
                ann({ux}) +
                " = _unique[0]\n"
                "        getitem_15: " +
                ann({3, n}, "i64") +
                " = _unique[1]\n"
                "        repeat_interleave: " +
                ann({ry}, "i64") +
                " = torch.ops.aten.repeat_interleave.Tensor(y)\n"
                "        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, getitem_7, "
                "getitem_8, getitem_9, getitem_10, getitem_11, getitem_12, getitem_13, getitem_14, getitem_15, "
                "repeat_interleave)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({3, n}, xs), fxtest::tv({40}, ys, DType::Int64), fxtest::tv({6, 7}, zs)};
        const auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(17));
        // The reference itself: sorted rows, NaN last; topk's first value is a row's NaN.
        const auto r0 = fxtest::values(ref[0]);
        QVERIFY(std::isnan(r0[static_cast<size_t>(n - 1)]) && r0[0] <= r0[1]);
        QVERIFY(std::isnan(fxtest::values(ref[4])[0]));
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.outputs.size(), ref.size());
        for (size_t i = 0; i < ref.size(); ++i) {
            const auto got = fxtest::values(r.outputs[i]), want = fxtest::values(ref[i]);
            QCOMPARE(got.size(), want.size());
            for (size_t e = 0; e < got.size(); ++e)
                if (!(got[e] == want[e]) && !(std::isnan(got[e]) && std::isnan(want[e])))
                    QFAIL(qPrintable(
                        QString("output %1 element %2: %3, want %4").arg(i).arg(e).arg(got[e]).arg(want[e])));
        }
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
        // An input with another number of unique values than the graph was sized for: an error
        // that says so, not a wrong answer.
        std::vector<double> ys2(40, 1.0);
        auto bad = runOnDevice(*g, {in[0], fxtest::tv({40}, ys2, DType::Int64), in[2]});
        QVERIFY(!bad.error.empty());
        QVERIFY2(bad.error.find("unique values") != std::string::npos, bad.error.c_str());
    }

    void masked_scatter_large_vs_reference() {
        // 3,000 positions (past the lowering's quadratic limit): the device scan's masked_scatter,
        // with the mask broadcast over rows, and its backward match the reference exactly.
        const int64_t R = 6, C = 500;
        std::vector<double> xs(static_cast<size_t>(R * C)), ms(static_cast<size_t>(C)), src(static_cast<size_t>(R * C)),
            gs(static_cast<size_t>(R * C));
        int64_t set = 0;
        for (int64_t j = 0; j < C; ++j) set += (ms[static_cast<size_t>(j)] = (j * 7) % 3 == 0 ? 1.0 : 0.0) != 0.0;
        for (size_t i = 0; i < xs.size(); ++i) {
            xs[i] = -static_cast<double>(i);
            src[i] = 0.5 * static_cast<double>(i);
            gs[i] = std::sin(0.1 * static_cast<double>(i));
        }
        auto g = fxtest::parseForward(
            "x: " + ann({R, C}) + ", m: " + ann({C}, "b8") + ", s: " + ann({R * C}) + ", go: " + ann({R, C}),
            "        masked_scatter: " + ann({R, C}) +
                " = torch.ops.aten.masked_scatter.default(x, m, s)\n"
                "        masked_scatter_backward: " +
                ann({R * C}) + " = torch.ops.aten.masked_scatter_backward.default(go, m, [" + std::to_string(R * C) +
                "])\n"
                "        return (masked_scatter, masked_scatter_backward)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({R, C}, xs), fxtest::tv({C}, ms, DType::Bool), fxtest::tv({R * C}, src),
                              fxtest::tv({R, C}, gs)};
        const auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(2));
        // The reference: the first selected position takes source element 0; the gradient's tail
        // past the R * set selected positions is zero.
        QCOMPARE(fxtest::values(ref[0])[0], 0.0);
        QCOMPARE(fxtest::values(ref[1])[static_cast<size_t>(R * set)], 0.0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < 2; ++i) QCOMPARE(fxtest::values(r.outputs[i]), fxtest::values(ref[i]));
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
        QVERIFY(r.stats.deviceExterns >= 2);
    }

    void index_put_with_none_items_vs_reference() {
        // Nearest 2x upsampling's backward as Inductor's decomposition writes it
        // (_unsafe_index_put(zeros, [None, None, ih[:, None], iw], grad, True)) and an index_put
        // between Nones ([None, idx, None]): leading Nones become iota indices on the device, the
        // trailing one is dropped; values exactly as the reference's, nothing on the host.
        const int64_t N = 2, C = 3, H = 8, W = 6;
        std::vector<double> ih(16), iw(12), grad(static_cast<size_t>(N * C * 16 * 12)),
            zs(static_cast<size_t>(N * C * H * W), 0.0);
        for (size_t o = 0; o < ih.size(); ++o) ih[o] = static_cast<double>(o / 2);
        for (size_t o = 0; o < iw.size(); ++o) iw[o] = static_cast<double>(o / 2);
        for (size_t i = 0; i < grad.size(); ++i) grad[i] = std::sin(0.3 * static_cast<double>(i));
        std::vector<double> t3(4 * 5 * 6), v3(4 * 3 * 6);
        for (size_t i = 0; i < t3.size(); ++i) t3[i] = static_cast<double>(i);
        for (size_t i = 0; i < v3.size(); ++i) v3[i] = -static_cast<double>(i);
        auto g =
            fxtest::parseForward("z: " + ann({N, C, H, W}) + ", ih: " + ann({16, 1}, "i64") +
                                     ", iw: " + ann({12}, "i64") + ", go: " + ann({N, C, 16, 12}) +
                                     ", t: " + ann({4, 5, 6}) + ", idx: " + ann({3}, "i64") + ", v: " + ann({4, 3, 6}),
                                 "        up: " + ann({N, C, H, W}) +
                                     " = torch.ops.aten._unsafe_index_put.default(z, [None, None, ih, iw], go, True)\n"
                                     "        put: " +
                                     ann({4, 5, 6}) +
                                     " = torch.ops.aten.index_put.default(t, [None, idx, None], v)\n"
                                     "        return (up, put)\n");
        QVERIFY(g);
        std::vector<double> idx{4, 0, 2};
        std::vector<Value> in{fxtest::tv({N, C, H, W}, zs),       fxtest::tv({16, 1}, ih, DType::Int64),
                              fxtest::tv({12}, iw, DType::Int64), fxtest::tv({N, C, 16, 12}, grad),
                              fxtest::tv({4, 5, 6}, t3),          fxtest::tv({3}, idx, DType::Int64),
                              fxtest::tv({4, 3, 6}, v3)};
        const auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(2));
        // The reference: input (0, 0, 0, 0) gathers the four gradients of its 2x2 block.
        const double block = grad[0] + grad[1] + grad[12] + grad[13];
        QVERIFY(std::abs(fxtest::values(ref[0])[0] - block) < 1e-6);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        FX_COMPARE_VEC(fxtest::values(r.outputs[0]), fxtest::values(ref[0]), 1e-6);
        QCOMPARE(fxtest::values(r.outputs[1]), fxtest::values(ref[1]));
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void call_before_an_in_place_write_reads_the_old_value() {
        // sort (a device extern) reads clone before add_ rebinds clone to its result; the call
        // reads clone's value, not the rebound buffer. index_add_ then runs as the index_add
        // device extern on the rebound clone. Values by hand.
        auto g = fxtest::parseForward("x: " + ann({4}) + ", i: " + ann({3}, "i64") + ", s: " + ann({3}),
                                      "        clone: " + ann({4}) +
                                          " = torch.ops.aten.clone.default(x)\n"
                                          "        sort = torch.ops.aten.sort.default(clone)\n"
                                          "        getitem: " +
                                          ann({4}) +
                                          " = sort[0]\n"
                                          "        getitem_1: " +
                                          ann({4}, "i64") +
                                          " = sort[1]\n"
                                          "        add_: " +
                                          ann({4}) +
                                          " = torch.ops.aten.add_.Tensor(clone, 10)\n"
                                          "        index_add_: " +
                                          ann({4}) +
                                          " = torch.ops.aten.index_add_.default(clone, 0, i, s)\n"
                                          "        return (getitem, getitem_1, index_add_)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4}, {3, -1, 2, 0}), fxtest::tv({3}, {0, 2, 0}, DType::Int64),
                              fxtest::tv({3}, {1, 2, 4})};
        // index_add_ after add_: clone is 13, 9, 12, 10 there, plus 1 + 4 at 0 and 2 at 2. (add_'s
        // own result aliases clone, so it is not returned: it would show index_add_'s write.)
        const std::vector<std::vector<double>> want{{-1, 0, 2, 3}, {1, 3, 2, 0}, {18, 9, 14, 10}};
        const auto ref = reference(*g, in);
        QCOMPARE(ref.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) QCOMPARE(fxtest::values(ref[i]), want[i]);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < want.size(); ++i) QCOMPARE(fxtest::values(r.outputs[i]), want[i]);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void segment_reduce_by_hand() {
        // x = [1, 4, 3, 2, 3] in segments {1, 4} and {3, 2, 3} (lengths [2, 3], offsets [0, 2, 5]).
        // max: 4, 3; its backward sends grad [1, 2] to the maxima, the tied 3s splitting the 2.
        // mean: 2.5, 8/3; its backward is grad / length.
        auto g = fxtest::parseForward(
            "x: " + ann({5}) + ", L: " + ann({2}, "i64") + ", off: " + ann({3}, "i64") + ", g: " + ann({2}),
            "        segment_reduce: " + ann({2}) +
                " = torch.ops.aten.segment_reduce.default(x, 'max', lengths = L)\n"
                "        back: " +
                ann({5}) +
                " = torch.ops.aten._segment_reduce_backward.default(g, segment_reduce, x, 'max', lengths = L, offsets "
                "= None)\n"
                "        segment_reduce_1: " +
                ann({2}) +
                " = torch.ops.aten.segment_reduce.default(x, 'mean', offsets = off)\n"
                "        back_1: " +
                ann({5}) +
                " = torch.ops.aten._segment_reduce_backward.default(g, segment_reduce_1, x, 'mean', offsets = off)\n"
                "        return (segment_reduce, back, segment_reduce_1, back_1)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({5}, {1, 4, 3, 2, 3}), fxtest::tv({2}, {2, 3}, DType::Int64),
                              fxtest::tv({3}, {0, 2, 5}, DType::Int64), fxtest::tv({2}, {1, 2})};
        const double third = 2.0 / 3.0;
        const std::vector<std::vector<double>> want{
            {4, 3}, {0, 1, 1, 0, 1}, {2.5, 8.0 / 3.0}, {0.5, 0.5, third, third, third}};
        auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) FX_COMPARE_VEC(fxtest::values(ref[i]), want[i], 1e-6);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < 4; ++i) FX_COMPARE_VEC(fxtest::values(r.outputs[i]), want[i], 1e-6);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void put_by_hand() {
        // self = 0..5 (2x3, flat order). Accumulating [1, 2, 3] at [5, 0, 5]: [2, 1, 2, 3, 4, 9];
        // setting at [-1, 1, 2] (negative from the end): [0, 2, 3, 3, 4, 1].
        auto g = fxtest::parseForward("s: " + ann({2, 3}) + ", i: " + ann({3}, "i64") + ", j: " + ann({3}, "i64") +
                                          ", v: " + ann({3}),
                                      "        put: " + ann({2, 3}) +
                                          " = torch.ops.aten.put.default(s, i, v, True)\n"
                                          "        put_1: " +
                                          ann({2, 3}) +
                                          " = torch.ops.aten.put.default(s, j, v)\n"
                                          "        return (put, put_1)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 3}, {0, 1, 2, 3, 4, 5}), fxtest::tv({3}, {5, 0, 5}, DType::Int64),
                              fxtest::tv({3}, {-1, 1, 2}, DType::Int64), fxtest::tv({3}, {1, 2, 3})};
        const std::vector<std::vector<double>> want{{2, 1, 2, 3, 4, 9}, {0, 2, 3, 3, 4, 1}};
        auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) FX_COMPARE_VEC(fxtest::values(ref[i]), want[i], 0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < 2; ++i) FX_COMPARE_VEC(fxtest::values(r.outputs[i]), want[i], 0);
        FX_COMPARE_VEC(fxtest::values(in[0]), (std::vector<double>{0, 1, 2, 3, 4, 5}), 0);  // self untouched
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void masked_index_put_accumulate_by_hand() {
        // self [[1, 2], [3, 4]]; rows [1, 5, -2] (5 clamps to 1, -2 is row 0) get values
        // [[10, 20], [30, 40], [50, 60]] where mask [[1, 1], [1, 0], [0, 1]] is set: row 1 adds 10 + 30
        // and 20, row 0 adds 60 in column 1.
        auto g = fxtest::parseForward(
            "s: " + ann({2, 2}) + ", m: " + ann({3, 2}, "b8") + ", i: " + ann({3}, "i64") + ", v: " + ann({3, 2}),
            "        put: " + ann({2, 2}) +
                " = torch.ops.aten._unsafe_masked_index_put_accumulate.default(s, m, [i], v)\n"
                "        return (put,)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({3, 2}, {1, 1, 1, 0, 0, 1}, DType::Bool),
                              fxtest::tv({3}, {1, 5, -2}, DType::Int64), fxtest::tv({3, 2}, {10, 20, 30, 40, 50, 60})};
        const std::vector<double> want{1, 62, 43, 24};
        auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(1));
        FX_COMPARE_VEC(fxtest::values(ref[0]), want, 0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        FX_COMPARE_VEC(fxtest::values(r.outputs[0]), want, 0);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void index_put_by_hand() {
        // self [[1, 2], [3, 4], [5, 6]]: setting rows [2, -3] (-3 is row 0) to [[10, 20], [30, 40]]
        // gives [[30, 40], [3, 4], [10, 20]]; accumulating [1, 1] (broadcast) at rows [1, 1] adds 2
        // to row 1; two index tensors pick elements (0, 1) and (2, 0).
        auto g = fxtest::parseForward("s: " + ann({3, 2}) + ", i: " + ann({2}, "i64") + ", j: " + ann({2}, "i64") +
                                          ", v: " + ann({2, 2}) + ", o: " + ann({2}) + ", r: " + ann({2}, "i64") +
                                          ", c: " + ann({2}, "i64"),
                                      "        index_put: " + ann({3, 2}) +
                                          " = torch.ops.aten.index_put.default(s, [i], v)\n"
                                          "        index_put_1: " +
                                          ann({3, 2}) +
                                          " = torch.ops.aten.index_put.default(s, [j], o, True)\n"
                                          "        index_put_2: " +
                                          ann({3, 2}) +
                                          " = torch.ops.aten._unsafe_index_put.default(s, [r, c], o)\n"
                                          "        return (index_put, index_put_1, index_put_2)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({3, 2}, {1, 2, 3, 4, 5, 6}),
                              fxtest::tv({2}, {2, -3}, DType::Int64),
                              fxtest::tv({2}, {1, 1}, DType::Int64),
                              fxtest::tv({2, 2}, {10, 20, 30, 40}),
                              fxtest::tv({2}, {1, 1}),
                              fxtest::tv({2}, {0, 2}, DType::Int64),
                              fxtest::tv({2}, {1, 0}, DType::Int64)};
        const std::vector<std::vector<double>> want{{30, 40, 3, 4, 10, 20}, {1, 2, 5, 6, 5, 6}, {1, 1, 3, 4, 1, 6}};
        auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) FX_COMPARE_VEC(fxtest::values(ref[i]), want[i], 0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < 3; ++i) FX_COMPARE_VEC(fxtest::values(r.outputs[i]), want[i], 0);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void masked_select_by_hand() {
        // mask [1, 0, 1] broadcasts over the rows of [[1, 2, 3], [4, 5, 6]]: 1, 3, 4, 6.
        auto g = fxtest::parseForward("s: " + ann({2, 3}) + ", m: " + ann({3}, "b8"),
                                      "        masked_select: " + ann({4}) +
                                          " = torch.ops.aten.masked_select.default(s, m)\n"
                                          "        return (masked_select,)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6}), fxtest::tv({3}, {1, 0, 1}, DType::Bool)};
        const std::vector<double> want{1, 3, 4, 6};
        auto ref = reference(*g, in);
        QCOMPARE(ref.size(), size_t(1));
        FX_COMPARE_VEC(fxtest::values(ref[0]), want, 0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        FX_COMPARE_VEC(fxtest::values(r.outputs[0]), want, 0);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaExecIndexing)
#include "tst_cuda_exec_indexing.moc"
