// Ops whose output length the input values give (exec/ops/data_sized.cpp): nonzero and bincount
// against values worked out by hand, ATen's errors, the CPU backend's extern kernels (no reference
// fallback), and Dynamo graphs that captured them (capture_dynamic_output_shape_ops annotates the
// length as an unbacked u0) lowered to ATen, masked_select included; and x.item() numbers kept
// as 0-d tensors by the compiled backends.
#include "cpu_lowering_check.h"
#include "engine/import/dynamo_run.h"
#include "test_util.h"

#include "codegen/scheduler.h"
#include "exec/run_check.h"

#include <cmath>
#include <limits>

using namespace fxray;
using V = std::vector<double>;

namespace {

const char* kAtenParams = "x: \"f32[2, 3][3, 1]cpu\", j: \"i64[5][1]cpu\", w: \"f32[5][1]cpu\", d: \"f64[5][1]cpu\"";
const char* kAtenBody = "        nonzero: \"i64[u0, 2][2, 1]cpu\" = torch.ops.aten.nonzero.default(x)\n"
                        "        bincount: \"i64[u1][1]cpu\" = torch.ops.aten.bincount.default(j)\n"
                        "        bincount_1: \"i64[u2][1]cpu\" = torch.ops.aten.bincount.default(j, None, 7)\n"
                        "        bincount_2: \"f32[u3][1]cpu\" = torch.ops.aten.bincount.default(j, w)\n"
                        "        bincount_3: \"f64[u4][1]cpu\" = torch.ops.aten.bincount.default(j, d)\n"
                        "        return (nonzero, bincount, bincount_1, bincount_2, bincount_3)\n";

std::vector<Value> atenInputs() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {fxtest::tv({2, 3}, {0, 1.5, 0, nan, 0, -2}), fxtest::tv({5}, {1, 3, 1, 0, 3}, DType::Int64),
            fxtest::tv({5}, {0.5, 1, 2, 4, 8}), fxtest::tv({5}, {0.5, 1, 2, 4, 8}, DType::Float64)};
}

}  // namespace

class TestDataSizedOps : public QObject {
    Q_OBJECT
private slots:
    // x = [[0, 1.5, 0], [NaN, 0, -2]]: NaN is not zero, so (0, 1), (1, 0), (1, 2). j = [1, 3, 1, 0, 3]
    // counts [1, 2, 0, 2], padded to minlength 7; weights w sum per value: 0 -> 4, 1 -> 0.5 + 2,
    // 3 -> 1 + 8.
    void referenceByHand() {
        auto g = fxtest::parseForward(kAtenParams, kAtenBody);
        QVERIFY(g);
        RunRequest req;
        req.inputs = atenInputs();
        auto r = runAndCheck(*g, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        const auto& o = r->outputs;
        QCOMPARE(o[0].t.meta.shape, (std::vector<int64_t>{3, 2}));
        QCOMPARE(o[0].t.dtype(), DType::Int64);
        QCOMPARE(fxtest::values(o[0]), (V{0, 1, 1, 0, 1, 2}));
        QCOMPARE(fxtest::values(o[1]), (V{1, 2, 0, 2}));
        QCOMPARE(fxtest::values(o[2]), (V{1, 2, 0, 2, 0, 0, 0}));
        QCOMPARE(o[3].t.dtype(), DType::Float32);
        QCOMPARE(fxtest::values(o[3]), (V{4, 2.5, 0, 9}));
        QCOMPARE(o[4].t.dtype(), DType::Float64);
        QCOMPARE(fxtest::values(o[4]), (V{4, 2.5, 0, 9}));
    }

    // A 0-d input has no coordinates: nonzero gives [1, 0] for a nonzero scalar, [0, 0] for zero;
    // an empty bincount input gives minlength zeros.
    void edgeShapes() {
        auto g =
            fxtest::parseForward("s: \"f32[][]cpu\", z: \"f32[][]cpu\", e: \"i64[0][1]cpu\"",
                                 "        nonzero: \"i64[u0, 0][1, 1]cpu\" = torch.ops.aten.nonzero.default(s)\n"
                                 "        nonzero_1: \"i64[u1, 0][1, 1]cpu\" = torch.ops.aten.nonzero.default(z)\n"
                                 "        bincount: \"i64[u2][1]cpu\" = torch.ops.aten.bincount.default(e, None, 3)\n"
                                 "        bincount_1: \"i64[u3][1]cpu\" = torch.ops.aten.bincount.default(e)\n"
                                 "        return (nonzero, nonzero_1, bincount, bincount_1)\n");
        QVERIFY(g);
        RunRequest req;
        req.inputs = {fxtest::tv({}, {3}), fxtest::tv({}, {0}), fxtest::tv({0}, {}, DType::Int64)};
        auto r = runAndCheck(*g, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QCOMPARE(r->outputs[0].t.meta.shape, (std::vector<int64_t>{1, 0}));
        QCOMPARE(r->outputs[1].t.meta.shape, (std::vector<int64_t>{0, 0}));
        QCOMPARE(fxtest::values(r->outputs[2]), (V{0, 0, 0}));
        QCOMPARE(r->outputs[3].t.meta.shape, (std::vector<int64_t>{0}));
    }

    // ATen's messages: negative values, a float input, a negative minlength, weights of
    // another length.
    void bincountErrors() {
        auto bad = [](const std::string& params, const std::string& call, std::vector<Value> in) {
            auto g = fxtest::parseForward(params, "        bincount: \"i64[u0][1]cpu\" = " + call +
                                                      "\n        return (bincount,)\n");
            if (!g) return std::string("does not parse");
            RunRequest req;
            req.inputs = std::move(in);
            auto r = runAndCheck(*g, req, nullptr);
            return r.ok() ? std::string("ran") : r.error().message;
        };
        const std::string neg = bad("j: \"i64[3][1]cpu\"", "torch.ops.aten.bincount.default(j)",
                                    {fxtest::tv({3}, {1, -1, 2}, DType::Int64)});
        QVERIFY2(neg.find("non-negative integral") != std::string::npos, neg.c_str());
        const std::string flt =
            bad("f: \"f32[3][1]cpu\"", "torch.ops.aten.bincount.default(f)", {fxtest::tv({3}, {1, 2, 3})});
        QVERIFY2(flt.find("non-negative integral") != std::string::npos, flt.c_str());
        const std::string ml = bad("j: \"i64[3][1]cpu\"", "torch.ops.aten.bincount.default(j, None, -1)",
                                   {fxtest::tv({3}, {1, 0, 2}, DType::Int64)});
        QVERIFY2(ml.find("minlength should be >= 0") != std::string::npos, ml.c_str());
        const std::string wl = bad("j: \"i64[3][1]cpu\", w: \"f32[2][1]cpu\"", "torch.ops.aten.bincount.default(j, w)",
                                   {fxtest::tv({3}, {1, 0, 2}, DType::Int64), fxtest::tv({2}, {1, 1})});
        QVERIFY2(wl.find("same length") != std::string::npos, wl.c_str());
    }

    // The CPU backend runs both as compiled extern steps (no reference fallback) with the
    // reference's values.
    void cpuExternsMatchTheReference() {
        auto g = fxtest::parseForward(kAtenParams, kAtenBody);
        QVERIFY(g);
        const auto in = atenInputs();
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), ref->outputs.size());
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].t.meta.shape, ref->outputs[i].t.meta.shape);
            QCOMPARE(out[i].t.dtype(), ref->outputs[i].t.dtype());
            QCOMPARE(fxtest::values(out[i]), fxtest::values(ref->outputs[i]));
        }
    }

    // x.item() captured as a SymFloat and used as a Tensor operand stays a 0-d tensor in the
    // compiled program, read at run time: a program compiled with item() = 2 gives x * 3 when run
    // with 3 (before, compiling failed: mul's operand had no value).
    void capturedScalarIsReadAtRunTime() {
        auto g = fxtest::parseForward(
            "s: \"f32[][]cpu\", x: \"f32[3][1]cpu\"",
            "        _local_scalar_dense: \"Sym(zf0)\" = torch.ops.aten._local_scalar_dense.default(s)\n"
            "        mul: \"f32[3][1]cpu\" = torch.ops.aten.mul.Tensor(x, _local_scalar_dense)\n"
            "        return (mul,)\n");
        QVERIFY(g);
        auto c = cg::cpu::CompiledGraph::compile(*g, {fxtest::tv({}, {2}), fxtest::tv({3}, {1, 2, 3})});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        QVERIFY2((*c)->fallbackOps().empty(), fxtest::opList((*c)->fallbackOps()).c_str());
        auto r = (*c)->run({fxtest::tv({}, {3}), fxtest::tv({3}, {1, 2, 3})}, {}, 0, nullptr, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QCOMPARE(fxtest::values((*r)[0]), (V{3, 6, 9}));
    }

    // `fxray compile`'s step list names the extern kernels the CPU backend attaches by qualname
    // (it said "fallback aten.nonzero.default" above its own "no fallback").
    void stepListNamesQualnameExterns() {
        auto g = fxtest::parseForward(kAtenParams, kAtenBody);
        QVERIFY(g);
        auto c = cg::cpu::CompiledGraph::compile(*g, atenInputs());
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        const std::string text = cg::programSummary((*c)->program());
        QVERIFY2(text.find("extern nonzero: nonzero\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("extern bincount: bincount_3\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("fallback") == std::string::npos, text.c_str());
    }

    // A Dynamo graph captured with capture_dynamic_output_shape_ops: the lengths are unbacked
    // symbols, which the lowering takes from the annotations (the ops' metas need values), and
    // later nodes compute on the data-sized results.
    void dynamoGraphWithUnbackedSizes() {
        auto out = fxtest::lowerAndRun(
            "L_x_: \"f32[2, 3][3, 1]cpu\", L_m_: \"b8[2, 3][3, 1]cpu\", L_j_: \"i64[5][1]cpu\", L_w_: \"f32[5][1]cpu\"",
            "        x = L_x_\n        m = L_m_\n        j = L_j_\n        w = L_w_\n"
            "        sel: \"f32[u0][1]cpu\" = torch.masked_select(x, m)\n"
            "        dbl: \"f32[u0][1]cpu\" = sel * 2\n"
            "        tot: \"f32[][]cpu\" = dbl.sum()\n"
            "        nz: \"i64[u1, 2][2, 1]cpu\" = m.nonzero()\n"
            "        aw: \"i64[u2, 2][2, 1]cpu\" = torch.argwhere(x)\n"
            "        bc: \"f32[u3][1]cpu\" = j.bincount(weights = w, minlength = 5)\n"
            "        return (dbl, tot, nz, aw, bc)\n",
            {fxtest::tv({2, 3}, {1, 0, 3, 4, 5, 0}), fxtest::tv({2, 3}, {1, 0, 1, 0, 1, 0}, DType::Bool),
             fxtest::tv({5}, {2, 2, 0, 1, 2}, DType::Int64), fxtest::tv({5}, {1, 2, 3, 4, 5})});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(5));
        QCOMPARE(fxtest::values(out[0]), (V{2, 6, 10}));  // x where m: 1, 3, 5
        QCOMPARE(fxtest::values(out[1]), (V{18}));
        QCOMPARE(fxtest::values(out[2]), (V{0, 0, 0, 2, 1, 1}));
        QCOMPARE(fxtest::values(out[3]), (V{0, 0, 0, 2, 1, 0, 1, 1}));
        QCOMPARE(fxtest::values(out[4]), (V{3, 4, 8, 0, 0}));  // 0: w2, 1: w3, 2: w0 + w1 + w4
    }

    // Without an unbacked size in the annotation the call was a graph break (Dynamo's default),
    // and the lowering says so rather than guessing a length.
    void unannotatedDataSizedCallIsRefused() {
        QVERIFY(fxtest::loweringRefuses("L_m_: \"b8[2, 3][3, 1]cpu\"",
                                        "        m = L_m_\n        nz: \"i64[4, 2][2, 1]cpu\" = m.nonzero()\n"
                                        "        return (nz,)\n"));
    }
};

QTEST_GUILESS_MAIN(TestDataSizedOps)
#include "tst_data_sized_ops.moc"
