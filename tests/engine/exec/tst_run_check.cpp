// Outputs PyTorch leaves undefined are not compared (exec/run_check undefinedInPyTorch): the
// philox seed and offset of memory-efficient attention without dropout are at::empty({}) in
// PyTorch, so a recorded value of them is whatever its allocator held. With dropout they are
// real values and are compared; the other outputs are compared either way.
//
// A pinned node's value takes part in the fp64 run (the judge's second opinion, `run --fp64`)
// widened to double like the inputs, so ops that refuse mixed dtypes (convolution) accept it.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/ops/kernel_util.h"
#include "exec/run_check.h"
#include "import/fx_text_reader.h"

using namespace fxray;

namespace {

std::unique_ptr<Graph> attention(double dropout) {
    std::string text =
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, q: \"f32[1, 1, 4, 8][32, 32, 8, 1]cpu\", k: \"f32[1, 1, 4, 8][32, 32, 8, 1]cpu\", v: "
        "\"f32[1, 1, 4, 8][32, 32, 8, 1]cpu\"):\n"
        "        fwd = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, None, True, " +
        std::to_string(dropout) +
        ")\n"
        "        getitem: \"f32[1, 1, 4, 8][32, 8, 8, 1]cpu\" = fwd[0]\n"
        "        getitem_1: \"f32[1, 1, 32][32, 32, 1]cpu\" = fwd[1]\n"
        "        getitem_2: \"i64[][]cpu\" = fwd[2]\n"
        "        getitem_3: \"i64[][]cpu\" = fwd[3];  fwd = None\n"
        "        return (getitem, getitem_2, getitem_3)\n";
    auto g = readFxText(text, "test.py");
    if (!g.ok()) {
        qWarning("%s", g.error().str().c_str());
        return nullptr;
    }
    resolveOps(**g);
    return std::move(g).value();
}

Value scalarI64(double v) {
    return Value::ofTensor(kern::makeTensor(TensorMeta::contiguous({}, DType::Int64, Device{}), {v}));
}

}  // namespace

class TestRunCheck : public QObject {
    Q_OBJECT
private slots:
    void philoxWithoutDropoutIsNotCompared() {
        auto g = attention(0.0);
        QVERIFY(g);
        QVERIFY(undefinedInPyTorch(*g, 0).empty());
        QVERIFY(undefinedInPyTorch(*g, 1).find("philox_seed") != std::string::npos);
        QVERIFY(undefinedInPyTorch(*g, 2).find("philox_offset") != std::string::npos);
        QVERIFY(undefinedInPyTorch(*g, 7).empty());
        auto in = randomInputs(*g, 3);
        QVERIFY(in.ok());
        RunRequest req;
        req.inputs = *in;
        auto first = runAndCheck(*g, req, nullptr);
        QVERIFY(first.ok());
        // What PyTorch recorded: the right output, garbage seed and offset.
        std::vector<Value> expect{first->outputs[0], scalarI64(94251237), scalarI64(-5)};
        auto res = runAndCheck(*g, req, &expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        QVERIFY(res->ok);
        QVERIFY(res->comparisons[1].note.find("uninitialized") != std::string::npos);
        // The attention output itself is still compared: a recorded value off by 1 fails its
        // rel_err test (and is then judged against the fp64 rerun, which this exact run wins).
        auto wrong = kern::toDoubles(first->outputs[0].t);
        wrong[3] += 1.0;
        expect[0] = Value::ofTensor(kern::makeTensor(first->outputs[0].t.meta, wrong));
        auto bad = runAndCheck(*g, req, &expect);
        QVERIFY(bad.ok());
        QVERIFY(bad->comparisons[0].relErr > 1e-3);
        QVERIFY(bad->comparisons[0].fp64Judged);
        QVERIFY(bad->comparisons[0].note.find("not compared") == std::string::npos);
    }

    void philoxWithDropoutIsCompared() {
        auto g = attention(0.25);
        QVERIFY(g);
        QVERIFY(undefinedInPyTorch(*g, 1).empty());
        QVERIFY(undefinedInPyTorch(*g, 2).empty());
        auto in = randomInputs(*g, 3);
        QVERIFY(in.ok());
        RunRequest req;
        req.inputs = *in;
        req.seed = 9;
        auto first = runAndCheck(*g, req, nullptr);
        QVERIFY(first.ok());
        // A seed that cannot be the drawn one (drawn seeds are 64-bit values far from 12345).
        QVERIFY(kern::toDoubles(first->outputs[1].t)[0] != 12345.0);
        std::vector<Value> expect{first->outputs[0], scalarI64(12345), first->outputs[2]};
        auto res = runAndCheck(*g, req, &expect);
        QVERIFY(res.ok());
        QVERIFY(!res->ok);
        QVERIFY(!res->comparisons[1].ok);
    }

    /// The pin on relu is fp32 (a recorded value, or the reference's own as tst_cpu_extern_train
    /// pins it); the fp64 run convolves it with the widened weight.
    void pinnedValueIsWidenedInTheFp64Run() {
        auto g = readFxText(
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, x: \"f32[1, 1, 4, 4][16, 16, 4, 1]cpu\", w: \"f32[1, 1, 3, 3][9, 9, 3, 1]cpu\"):\n"
            "        relu: \"f32[1, 1, 4, 4][16, 16, 4, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
            "        convolution: \"f32[1, 1, 2, 2][4, 4, 2, 1]cpu\" = torch.ops.aten.convolution.default(relu, w, "
            "None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  relu = w = None\n"
            "        return (convolution,)\n",
            "pin.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        resolveOps(**g);
        auto in = randomInputs(**g, 5);
        QVERIFY(in.ok());
        RunRequest req;
        req.inputs = *in;
        req.pins["relu"] = Value::ofTensor(kern::makeTensor(
            TensorMeta::contiguous({1, 1, 4, 4}, DType::Float32, Device{}), std::vector<double>(16, 0.5)));
        req.fp64 = true;
        auto res = runAndCheck(**g, req, nullptr);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        const Tensor& out = res->outputs[0].t;
        QCOMPARE(out.dtype(), DType::Float64);
        // Every window sees the pinned 0.5s, not relu(x): 0.5 * sum(w) at each of the 4 places.
        double sumW = 0;
        for (double v : kern::toDoubles((*in)[1].t)) sumW += v;
        for (double v : kern::toDoubles(out)) QVERIFY(std::abs(v - 0.5 * sumW) < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestRunCheck)
#include "tst_run_check.moc"
