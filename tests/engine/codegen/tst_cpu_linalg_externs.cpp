// The CPU backend's linear-algebra externs against values worked out by hand. _linalg_slogdet of
// a contiguous matrix factors Aᵀ, as PyTorch does (LAPACK's column-major view of it), so its LU
// and pivots are Aᵀ's; slogdet's backward (linalg_lu_solve with them) depends on that. The CPU
// extern once factored A itself: OpInfo's logdet backward at 5 x 5 differed by 91%.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/run_check.h"

#include <cmath>

using namespace fxray;
using D = std::vector<double>;

class TestCpuLinalgExterns : public QObject {
    Q_OBJECT
private slots:
    void slogdetFactorsTheTranspose() {
        // A = [[2, 5], [1, 1]]: Aᵀ = [[2, 1], [5, 1]] pivots on its second row (A itself would not
        // swap): LU = [[5, 1], [0.4, 0.6]], pivots [2, 2]; det A = -3.
        auto g = fxtest::parseForward(
            "a: \"f32[2, 2][2, 1]cpu\"",
            "        _linalg_slogdet = torch.ops.aten._linalg_slogdet.default(a)\n"
            "        getitem: \"f32[][]cpu\" = _linalg_slogdet[0]\n"
            "        getitem_1: \"f32[][]cpu\" = _linalg_slogdet[1]\n"
            "        getitem_2: \"f32[2, 2][1, 2]cpu\" = _linalg_slogdet[2]\n"
            "        getitem_3: \"i32[2][1]cpu\" = _linalg_slogdet[3]\n"
            "        return (getitem, getitem_1, getitem_2, getitem_3)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 2}, {2, 5, 1, 1})};
        const std::vector<D> want{{-1}, {std::log(3.0)}, {5, 1, 0.4, 0.6}, {2, 2}};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 1e-6);
        auto c = cg::cpu::CompiledGraph::compile(*g, in);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        QVERIFY((*c)->fallbackOps().empty());
        auto out = (*c)->run(in);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values((*out)[i]), want[i], 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestCpuLinalgExterns)
#include "tst_cpu_linalg_externs.moc"
