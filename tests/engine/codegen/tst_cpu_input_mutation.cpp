// copy_ into a graph input (the write the in-place rule cannot rebind, so an extern writes the
// input's storage in place, copy_into_input) on the CPU backend: the nodes before the write read
// the old values, copy_'s result holds the new ones, a node after the write that reads the input
// itself reads the new ones (the scheduler keeps it after the call: it was fused into a kernel
// before the write), and no op falls back to the reference. The reference executor's values,
// PyTorch's, are checked too. And an extern call before an in-place write that the lowering
// rebinds (add_ on a clone) reads the value from before the write.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/run_check.h"

using namespace fxray;

namespace {

const char* const kParams = "x: \"f32[4][1]cpu\", y: \"f32[4][1]cpu\"";
const char* const kBody = "        mul: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor(x, 2.0)\n"
                          "        alias: \"f32[4][1]cpu\" = torch.ops.aten.alias.default(x)\n"
                          "        copy_: \"f32[4][1]cpu\" = torch.ops.aten.copy_.default(alias, y)\n"
                          "        add: \"f32[4][1]cpu\" = torch.ops.aten.add.Tensor(x, 1.0)\n"
                          "        return (mul, copy_, add)\n";

}  // namespace

class TestCpuInputMutation : public QObject {
    Q_OBJECT
private slots:
    void inPlaceIndexAddRunsAsItsFunctionalExtern() {
        // index_add_ on a clone (as_strided's backward writes one): the index_add extern computes
        // the new value into its own buffer, which replaces clone for the nodes after it, while
        // sort before it reads the old clone. No reference fallback; values by hand.
        auto g = fxtest::parseForward(
            "x: \"f32[4][1]cpu\", i: \"i64[3][1]cpu\", s: \"f32[3][1]cpu\"",
            "        clone: \"f32[4][1]cpu\" = torch.ops.aten.clone.default(x)\n"
            "        sort = torch.ops.aten.sort.default(clone)\n"
            "        getitem: \"f32[4][1]cpu\" = sort[0]\n"
            "        getitem_1: \"i64[4][1]cpu\" = sort[1]\n"
            "        index_add_: \"f32[4][1]cpu\" = torch.ops.aten.index_add_.default(clone, 0, i, s)\n"
            "        mul: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor(clone, 2)\n"
            "        return (getitem, index_add_, mul)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4}, {3, -1, 2, 0}), fxtest::tv({3}, {0, 2, 0}, DType::Int64),
                              fxtest::tv({3}, {1, 2, 4})};
        const std::vector<std::vector<double>> want{{-1, 0, 2, 3}, {8, -1, 4, 0}, {16, -2, 8, 0}};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 0);
        auto c = cg::cpu::CompiledGraph::compile(*g, in);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        QVERIFY((*c)->fallbackOps().empty());
        auto out = (*c)->run(in);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values((*out)[i]), want[i], 0);
    }
    void callBeforeAnInPlaceWriteReadsTheOldValue() {
        // sort (an extern call) reads clone before add_ rebinds clone to its result: the call
        // must read clone's value, not the rebound one (it read add_'s buffer before add_ ran
        // and sorted zeros). Values by hand, on the reference and the CPU backend.
        auto g = fxtest::parseForward("x: \"f32[4][1]cpu\"",
                                      "        clone: \"f32[4][1]cpu\" = torch.ops.aten.clone.default(x)\n"
                                      "        sort = torch.ops.aten.sort.default(clone)\n"
                                      "        getitem: \"f32[4][1]cpu\" = sort[0]\n"
                                      "        getitem_1: \"i64[4][1]cpu\" = sort[1]\n"
                                      "        add_: \"f32[4][1]cpu\" = torch.ops.aten.add_.Tensor(clone, 10)\n"
                                      "        return (getitem, getitem_1, add_)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4}, {3, -1, 2, 0})};
        const std::vector<std::vector<double>> want{{-1, 0, 2, 3}, {1, 3, 2, 0}, {13, 9, 12, 10}};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 0);
        auto c = cg::cpu::CompiledGraph::compile(*g, in);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        auto out = (*c)->run(in);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values((*out)[i]), want[i], 0);
    }

    void copy_into_input() {
        auto g = fxtest::parseForward(kParams, kBody);
        QVERIFY(g);
        const std::vector<double> x{1, 2, 3, 4}, y{10, 20, 30, 40};
        // PyTorch's values: mul reads x before the write, add after it.
        const std::vector<std::vector<double>> want{{2, 4, 6, 8}, {10, 20, 30, 40}, {11, 21, 31, 41}};
        RunRequest req;
        req.inputs = {fxtest::tv({4}, x), fxtest::tv({4}, y)};
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 0);

        RunRequest creq;
        creq.inputs = {fxtest::tv({4}, x), fxtest::tv({4}, y)};
        cg::cpu::CpuRunInfo info;
        auto r = cg::cpu::runAndCheckCpu(*g, creq, nullptr, &info);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QVERIFY2(info.fallbacks.empty(), "copy_ fell back to the reference kernel");
        QVERIFY(info.externCalls >= 1);
        FX_COMPARE_VEC(fxtest::values(r->outputs[0]), want[0], 0);
        FX_COMPARE_VEC(fxtest::values(r->outputs[1]), want[1], 0);
        FX_COMPARE_VEC(fxtest::values(r->outputs[2]), want[2], 0);
    }
};

QTEST_GUILESS_MAIN(TestCpuInputMutation)
#include "tst_cpu_input_mutation.moc"
