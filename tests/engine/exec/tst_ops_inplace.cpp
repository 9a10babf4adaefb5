// The in-place mechanism of inplace.cpp: X_ ops write their functional op's result into self's
// storage (views included), with PyTorch's checks on shape, dtype and overlapping self, and a
// graph that mutates a placeholder returns what PyTorch's would.
#include "test_util.h"

#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

/// A view with the given shape/strides/offset over a contiguous storage of `storage` values.
Value view(const Value& base, std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset = 0) {
    fxray::TensorMeta m = base.t.meta;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.offset = offset;
    return Value::ofTensor(base.t.view(m));
}

}  // namespace

class TestOpsInplace : public QObject {
    Q_OBJECT
private slots:
    void everyInplaceOpIsMarkedAndAliasesSelf() {
        int n = 0;
        for (const auto& op : fxray::OpRegistry::instance().all()) {
            const std::string& q = op->qualname;
            const size_t dot = q.rfind('.');
            if (q.rfind("aten.", 0) != 0 || q[dot - 1] != '_' || q.find("__") != std::string::npos) continue;
            if (op->schema.text.find("Tensor(a!) self") == std::string::npos) continue;
            QVERIFY2(op->inplace && op->aliasesInput, q.c_str());
            ++n;
        }
        QVERIFY(n >= 50);
    }

    void writesIntoSelfAndReturnsIt() {
        auto self = tv({2, 2}, {1, 2, 3, 4});
        auto r = run("aten.masked_fill_.Scalar", {self, tv({2}, {1, 0}, DType::Bool), dv(-1)});
        QCOMPARE(r.t.storage.get(), self.t.storage.get());
        FX_COMPARE_VEC(values(self), (std::vector<double>{-1, 2, -1, 4}), 0);
        run("aten.sub_.Tensor", {self, tv({2}, {1, 1})}, {{"alpha", iv(2)}});
        FX_COMPARE_VEC(values(self), (std::vector<double>{-3, 0, -3, 2}), 0);
        run("aten.clamp_min_.default", {self, iv(0)});
        FX_COMPARE_VEC(values(self), (std::vector<double>{0, 0, 0, 2}), 0);
        run("aten.zero_.default", {self});
        FX_COMPARE_VEC(values(self), (std::vector<double>{0, 0, 0, 0}), 0);
        run("aten.fill_.Tensor", {self, tv({}, {7})});
        FX_COMPARE_VEC(values(self), (std::vector<double>{7, 7, 7, 7}), 0);
        run("aten.fill_.Scalar", {self, dv(2.5)});
        run("aten.pow_.Scalar", {self, iv(2)});  // pow_.Scalar is pow.Tensor_Scalar in place
        FX_COMPARE_VEC(values(self), (std::vector<double>{6.25, 6.25, 6.25, 6.25}), 0);
        // self among its own operands sees its old values.
        run("aten.sub_.Tensor", {self, self});
        FX_COMPARE_VEC(values(self), (std::vector<double>{0, 0, 0, 0}), 0);
    }

    /// A strided view writes through to its base; other elements stay.
    void writesThroughViews() {
        auto base = tv({2, 3}, {1, 2, 3, 4, 5, 6});
        auto col = view(base, {2}, {3}, 1);  // base[:, 1]
        run("aten.neg_.default", {col});
        FX_COMPARE_VEC(values(base), (std::vector<double>{1, -2, 3, 4, -5, 6}), 0);
        auto t = view(base, {3, 2}, {1, 3});  // base.t()
        run("aten.div_.Scalar", {t, dv(2.0)});
        FX_COMPARE_VEC(values(base), (std::vector<double>{0.5, -1, 1.5, 2, -2.5, 3}), 0);
    }

    /// Results convert to self's dtype: bool results into floats, float results into half.
    void resultsConvertToSelfsDtype() {
        auto f = tv({3}, {0, 2.5, -1});
        run("aten.logical_not_.default", {f});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{1, 0, 0}), 0);
        auto h = tv({1}, {1}, DType::Float16);
        run("aten.add_.Tensor", {h, tv({1}, {1e-4})});
        FX_COMPARE_VEC(values(h), (std::vector<double>{1}), 0);  // 1.0001 rounds to half's 1
        auto b = tv({2}, {0, 1}, DType::Bool);
        run("aten.logical_or_.default", {b, tv({2}, {3, 0})});
        FX_COMPARE_VEC(values(b), (std::vector<double>{1, 1}), 0);
        auto lerp = tv({2}, {0, 10});
        run("aten.lerp_.Tensor", {lerp, tv({2}, {10, 20}), tv({2}, {0.5, 1})});
        FX_COMPARE_VEC(values(lerp), (std::vector<double>{5, 20}), 0);
    }

    void errors() {
        // The result must not broadcast self to a larger shape.
        QVERIFY(fails("aten.masked_fill_.Scalar", {tv({2}, {1, 2}), tv({2, 2}, {1, 0, 0, 1}, DType::Bool), dv(0)}));
        QVERIFY(fails("aten.mul_.Tensor", {tv({2}, {1, 2}), tv({2, 1}, {1, 2})}));
        // A float result cannot go into an integer self, nor an integer one into a bool self.
        QVERIFY(fails("aten.div_.Tensor", {tv({2}, {1, 2}, DType::Int64), tv({2}, {1, 2}, DType::Int64)}));
        QVERIFY(fails("aten.sqrt_.default", {tv({1}, {4}, DType::Int64)}));
        QVERIFY(fails("aten.bitwise_or_.Tensor", {tv({1}, {1}, DType::Bool), tv({1}, {2}, DType::Int64)}));
        // An expanded self has several elements at one address.
        auto base = tv({2}, {1, 2});
        QVERIFY(fails("aten.add_.Tensor", {view(base, {3, 2}, {0, 1}), dv(1)}));
        // self must be a tensor; the functional op's own checks apply.
        QVERIFY(fails("aten.neg_.default", {dv(1)}));
        QVERIFY(fails("aten.masked_fill_.Scalar", {tv({1}, {1}), tv({1}, {1}), dv(0)}));
        QVERIFY(fails("aten.clamp_.default", {tv({1}, {1}), Value::none(), Value::none()}));
        QVERIFY(fails("aten.fill_.Tensor", {tv({2}, {1, 2}), tv({1}, {1})}));
    }

    /// In-place ops on a placeholder mutate the run's copy of the input, and the graph returns
    /// the mutated values (as the PyTorch graph returns the mutated input).
    void graphMutatingAPlaceholder() {
        auto g = fxray::readFxText(R"(
class G(torch.nn.Module):
    def forward(self, x: "f32[3][1]cpu", y: "f32[3][1]cpu"):
        add_: "f32[3][1]cpu" = torch.ops.aten.add_.Tensor(x, y)
        mul: "f32[3][1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        return (x, add_, mul)
)",
                                   "test.py");
        QVERIFY(g.ok());
        fxray::resolveOps(**g);
        fxray::inferMeta(**g);
        fxray::ExecContext ctx(0);
        fxray::Interpreter it(fxray::Interpreter::Mode::Execute, &ctx);
        auto r = it.run(**g, {tv({3}, {1, 2, 3}), tv({3}, {10, 20, 30})});
        QVERIFY(r.ok());
        FX_COMPARE_VEC(values((*r)[0]), (std::vector<double>{11, 22, 33}), 0);
        FX_COMPARE_VEC(values((*r)[1]), (std::vector<double>{11, 22, 33}), 0);
        FX_COMPARE_VEC(values((*r)[2]), (std::vector<double>{22, 44, 66}), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpsInplace)
#include "tst_ops_inplace.moc"
