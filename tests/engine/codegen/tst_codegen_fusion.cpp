// Kernel IR, lowering and fusion on small hand-written graphs: index simplification, which nodes
// end up in which kernel, and the values the generated code computes (hand-computed).
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "codegen/kernel_collapse.h"
#include "codegen/kernel_ir.h"
#include "codegen/lowering.h"
#include "codegen/scheduler.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace fxray;
using namespace fxray::cg;

namespace {

std::unique_ptr<Graph> parse(const std::string& body, const std::string& params) {
    std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body;
    auto g = readFxText(text, "test.py");
    if (!g.ok()) {
        QTest::qFail(g.error().str().c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    resolveOps(**g);
    return std::move(g).value();
}

struct Compiled {
    std::unique_ptr<cpu::CompiledGraph> cg;
    std::vector<Value> outs;
};

Compiled compileAndRun(const Graph& g, std::vector<Value> inputs) {
    Compiled c;
    auto cg = cpu::CompiledGraph::compile(g, inputs);
    if (!cg.ok()) {
        QTest::qFail(cg.error().str().c_str(), __FILE__, __LINE__);
        return c;
    }
    c.cg = std::move(cg).value();
    auto outs = c.cg->run(inputs);
    if (!outs.ok()) {
        QTest::qFail(outs.error().str().c_str(), __FILE__, __LINE__);
        return c;
    }
    c.outs = std::move(outs).value();
    return c;
}

/// An index's value with the variables at `at`, computed as the emitted C and LLVM code does:
/// FloorDiv and Mod atoms with truncating / and %, so a negative operand inside one shows.
int64_t evalAsEmitted(const Index& i, const std::vector<int64_t>& at) {
    int64_t v = i->c;
    for (const auto& [coef, atom] : i->terms) {
        int64_t a = 0;
        switch (atom.kind) {
        case IndexAtom::Kind::Var: a = at[static_cast<size_t>(atom.var)]; break;
        case IndexAtom::Kind::FloorDiv: a = evalAsEmitted(atom.arg, at) / atom.divisor; break;
        case IndexAtom::Kind::Mod: a = evalAsEmitted(atom.arg, at) % atom.divisor; break;
        case IndexAtom::Kind::Value: return INT64_MIN;
        }
        v += coef * a;
    }
    return v;
}

int64_t pyFloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// c + k0 x0 + k1 x1 with x0 < e0, x1 < e1, divided by and taken modulo d.
struct DivCase {
    int64_t c, k0, e0, k1, e1, d;
};

/// idiv and imod of the case, read the way the code is emitted, agree with Python's // and %
/// at every point where the index is non-negative (idiv and imod take no other).
void checkDivEverywhere(const DivCase& t) {
    const Index a = iadd(iadd(iconst(t.c), imul(ivar(0, t.e0), t.k0)), imul(ivar(1, t.e1), t.k1));
    const Index q = idiv(a, t.d), r = imod(a, t.d);
    for (int64_t x0 = 0; x0 < t.e0; ++x0)
        for (int64_t x1 = 0; x1 < t.e1; ++x1) {
            const int64_t v = t.c + t.k0 * x0 + t.k1 * x1;
            if (v < 0) continue;
            QCOMPARE(evalAsEmitted(q, {x0, x1}), pyFloorDiv(v, t.d));
            QCOMPARE(evalAsEmitted(r, {x0, x1}), v - pyFloorDiv(v, t.d) * t.d);
        }
}

/// Every index of `k` in statement and expression order (loads, stores, index values).
void collectIndices(const ExprP& e, std::vector<Index>& out) {
    if (!e) return;
    if (e->index) out.push_back(e->index);
    for (const auto& a : e->args) collectIndices(a, out);
}
std::vector<Index> kernelIndices(const Kernel& k) {
    std::vector<Index> out;
    for (const auto& ph : k.phases)
        for (const auto& st : ph.stmts) {
            if (st.kind == Stmt::Kind::Store) out.push_back(st.index);
            collectIndices(st.value, out);
        }
    return out;
}

/// collapseDims(k) reads and writes the same elements as k at every point of k's space: each
/// original point maps to the merged one (row-major within each merged group of dims) and every
/// index gives the same value there.
void checkCollapsedEverywhere(const Kernel& k, const Kernel& c) {
    std::vector<size_t> groupOf;
    int64_t acc = 1;
    size_t j = 0;
    for (size_t d = 0; d < k.sizes.size(); ++d) {
        QVERIFY(j < c.sizes.size());
        groupOf.push_back(j);
        acc *= k.sizes[d];
        if (acc == c.sizes[j]) {
            QCOMPARE(bool(c.reduced[j]), bool(k.reduced[d]));
            ++j;
            acc = 1;
        }
    }
    QCOMPARE(j, c.sizes.size());
    const auto ki = kernelIndices(k), ci = kernelIndices(c);
    QCOMPARE(ki.size(), ci.size());
    int64_t total = 1;
    for (int64_t s : k.sizes) total *= s;
    std::vector<int64_t> at(k.sizes.size()), merged(c.sizes.size());
    for (int64_t p = 0; p < total; ++p) {
        int64_t rest = p;
        for (size_t d = k.sizes.size(); d-- > 0;) {
            at[d] = rest % k.sizes[d];
            rest /= k.sizes[d];
        }
        std::fill(merged.begin(), merged.end(), 0);
        for (size_t d = 0; d < k.sizes.size(); ++d) merged[groupOf[d]] = merged[groupOf[d]] * k.sizes[d] + at[d];
        for (size_t i = 0; i < ki.size(); ++i)
            if (evalAsEmitted(ki[i], at) != evalAsEmitted(ci[i], merged)) {
                QFAIL(qPrintable(QString::fromStdString(k.name + ": " + indexStr(ki[i]) + " vs " + indexStr(ci[i]))));
            }
    }
}

}  // namespace

class TestCodegenFusion : public QObject {
    Q_OBJECT
private slots:
    void indexSimplification() {
        // [2, 3] -> [6] -> [2, 3] is the identity on the variables.
        std::vector<Index> co = {ivar(0, 2), ivar(1, 3)};
        auto flat = reshapeCoords(co, {2, 3}, {6});
        QCOMPARE(indexStr(flat[0]), std::string("3*x0 + x1"));
        auto back = reshapeCoords(flat, {6}, {2, 3});
        QVERIFY(indexIsVar(back[0], 0, 2));
        QVERIFY(indexIsVar(back[1], 1, 3));
        // A real split keeps its division and modulo.
        auto split = reshapeCoords({ivar(0, 6)}, {6}, {2, 3});
        QCOMPARE(indexStr(split[0]), std::string("(x0)//3"));
        QCOMPARE(indexStr(split[1]), std::string("(x0)%3"));
        // (8*x0 + x1) // 8 with x1 < 8 is x0; (8*x0 + x1) % 8 is x1.
        Index i = iadd(imul(ivar(0, 4), 8), ivar(1, 8));
        QVERIFY(indexIsVar(idiv(i, 8), 0, 4));
        QVERIFY(indexIsVar(imod(i, 8), 1, 8));
        QCOMPARE(indexStr(linearIndex({ivar(0, 4), ivar(1, 8)}, {1, 4}, 3)), std::string("x0 + 4*x1 + 3"));
    }

    /// floor(a / d) and a mod d for non-negative a whose terms have negative coefficients (a flip:
    /// 124 - x0) agree with Python's // and % at every point, read the way the code is emitted.
    /// The constant split off used to leave (24 - x0) // 25 inside an atom, which truncation reads
    /// as 0 for x0 in 25..48.
    void floorDivOfAFlippedIndex() {
        for (const DivCase& t : {DivCase{124, -1, 125, 0, 1, 25}, DivCase{124, -1, 125, 0, 1, 5},
                                 DivCase{59, -10, 6, -1, 10, 20}, DivCase{19, -1, 4, -5, 4, 3}, DivCase{7, 3, 4, -2, 4, 4}}) {
            checkDivEverywhere(t);
            if (QTest::currentTestFailed()) return;
        }
    }

    /// A view of a dense [16, 197, 1536] tensor read as [3152, 1536] (ViT's bias gradients): the
    /// flat index's split into the three dims and the dense strides put it back to 1536*x0 + x1,
    /// with no division or remainder left (every element of the sum paid both before).
    void denseViewIndexHasNoDivision() {
        auto co = reshapeCoords({ivar(0, 3152), ivar(1, 1536)}, {3152, 1536}, {16, 197, 1536});
        QCOMPARE(indexStr(co[0]), std::string("(x0)//197"));
        QCOMPARE(indexStr(co[1]), std::string("(x0)%197"));
        QVERIFY(indexIsVar(co[2], 1, 1536));
        QCOMPARE(indexStr(linearIndex(co, {302592, 1536, 1}, 0)), std::string("1536*x0 + x1"));
        // floor(X/m)*m*k + (X mod m)*k is k*X for any X.
        const Index x = iadd(imul(ivar(0, 7), 3), ivar(1, 3));
        QCOMPARE(indexStr(iadd(imul(idiv(x, 5), 10), imul(imod(x, 5), 2))), std::string("6*x0 + 2*x1"));
        // A dim split in three and put back: [3152, 1152] as ViT's [16, 197, 3, 6, 64] q/k/v
        // gradient, read through dense strides, is 1152*x0 + x1 again.
        auto co3 = reshapeCoords({ivar(0, 3152), ivar(1, 1152)}, {3152, 1152}, {16, 197, 3, 6, 64});
        QCOMPARE(indexStr(linearIndex(co3, {226944, 1152, 384, 64, 1}, 0)), std::string("1152*x0 + x1"));
        // ... and wherever the quotient of a quotient meets its remainder.
        const Index y = ivar(0, 1000);
        QCOMPARE(indexStr(iadd(imul(idiv(y, 12), 12), imul(imod(idiv(y, 4), 3), 4))), std::string("4*(x0)//4"));
        // Not for mismatched coefficients.
        QVERIFY(indexStr(iadd(imul(idiv(x, 5), 9), imul(imod(x, 5), 2))).find("//") != std::string::npos);
    }

    /// The common-factor rule (g*A + B with 0 <= B < g, divided by a multiple of g) agrees with
    /// Python's // and % at every point, where it applies and where B's range stops it.
    void commonFactorDivisionAgreesEverywhere() {
        for (const DivCase& t : {DivCase{0, 6, 10, 1, 6, 12}, DivCase{2, 6, 10, 1, 4, 12}, DivCase{0, 6, 10, 1, 8, 12},
                                 DivCase{0, 1536, 40, 1, 1536, 302592}, DivCase{124, -6, 20, 1, 6, 12},
                                 DivCase{0, 4, 9, 2, 2, 24}, DivCase{3, 10, 7, 1, 7, 30}}) {
            checkDivEverywhere(t);
            if (QTest::currentTestFailed()) return;
        }
        // The first case is x0 // 2: the rule applied.
        const Index a = iadd(imul(ivar(0, 10), 6), ivar(1, 6));
        QCOMPARE(indexStr(idiv(a, 12)), std::string("(x0)//2"));
        QCOMPARE(indexStr(imod(a, 12)), std::string("x1 + 6*(x0)%2"));
    }

    /// Neighbouring dims that every index walks densely merge (a sum over [4, 5] rows of a
    /// contiguous tensor plus a bias becomes [20r, 6]); a permuted operand keeps its dims; a view
    /// split by division merges back. Every index agrees with the uncollapsed kernel everywhere.
    void collapsedDimsKeepEveryIndex() {
        auto g = parse("        add: \"f32[4, 5, 6][30, 6, 1]cpu\" = torch.ops.aten.add.Tensor(x, b)\n"
                       "        sum_1: \"f32[6][1]cpu\" = torch.ops.aten.sum.dim_IntList(add, [0, 1])\n"
                       "        permute: \"f32[4, 5, 6][6, 24, 1]cpu\" = torch.ops.aten.permute.default(z, [1, 0, 2])\n"
                       "        mul: \"f32[4, 5, 6][30, 6, 1]cpu\" = torch.ops.aten.mul.Tensor(x, permute)\n"
                       "        view: \"f32[20, 6][6, 1]cpu\" = torch.ops.aten.view.default(x, [20, 6])\n"
                       "        amax: \"f32[20][1]cpu\" = torch.ops.aten.amax.default(view, [1])\n"
                       "        exp: \"f32[4, 5, 6][30, 6, 1]cpu\" = torch.ops.aten.exp.default(x)\n"
                       "        view_1: \"f32[2, 60][60, 1]cpu\" = torch.ops.aten.view.default(exp, [2, 60])\n"
                       "        sum_2: \"f32[2][1]cpu\" = torch.ops.aten.sum.dim_IntList(view_1, [1])\n"
                       "        return (sum_1, mul, amax, sum_2)\n",
                       "x: \"f32[4, 5, 6][30, 6, 1]cpu\", b: \"f32[6][1]cpu\", z: \"f32[5, 4, 6][24, 6, 1]cpu\"");
        QVERIFY(g);
        std::vector<Value> in = {fxtest::tv({4, 5, 6}, std::vector<double>(120, 0.5)),
                                 fxtest::tv({6}, std::vector<double>(6, 1.0)),
                                 fxtest::tv({5, 4, 6}, std::vector<double>(120, 2.0))};
        auto lg = lowerGraph(*g, in);
        QVERIFY2(lg.ok(), lg.ok() ? "" : lg.error().str().c_str());
        ScheduleOptions so;
        so.fuse = false;
        so.collapseDims = false;
        auto prog = schedule(std::move(lg).value(), so);
        QVERIFY(prog.ok());
        std::map<std::string, std::vector<int64_t>> sizesOf;
        for (const auto& k : prog->kernels) {
            const Kernel c = collapseDims(k);
            checkCollapsedEverywhere(k, c);
            if (QTest::currentTestFailed()) return;
            for (const auto& n : k.nodes) sizesOf[n] = c.sizes;
        }
        QCOMPARE(sizesOf["sum_1"], (std::vector<int64_t>{20, 6}));
        QCOMPARE(sizesOf["mul"], (std::vector<int64_t>{4, 5, 6}));
        QCOMPARE(sizesOf["amax"], (std::vector<int64_t>{20, 6}));
        QCOMPARE(sizesOf["sum_2"], (std::vector<int64_t>{2, 60}));
        // And the scheduler's default applies it.
        auto lg2 = lowerGraph(*g, in);
        QVERIFY(lg2.ok());
        ScheduleOptions so2;
        so2.fuse = false;
        so2.collapseDims = true;
        auto prog2 = schedule(std::move(lg2).value(), so2);
        QVERIFY(prog2.ok());
        for (const auto& k : prog2->kernels)
            if (std::find(k.nodes.begin(), k.nodes.end(), "sum_1") != k.nodes.end())
                QCOMPARE(k.sizes, (std::vector<int64_t>{20, 6}));
        auto c = compileAndRun(*g, in);
        QVERIFY(c.cg);
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), std::vector<double>(6, 30.0), 1e-5);
        FX_COMPARE_VEC(fxtest::values(c.outs[1]), std::vector<double>(120, 1.0), 1e-6);
        FX_COMPARE_VEC(fxtest::values(c.outs[2]), std::vector<double>(20, 0.5), 1e-6);
        FX_COMPARE_VEC(fxtest::values(c.outs[3]), std::vector<double>(2, 60 * std::exp(0.5)), 1e-4);
    }

    /// cat of a few parts is a gather (lower_views.cpp catLowering): Llama's rotate_half,
    /// cat(-x2, x1), fuses with the slices before it and the multiply after it into one kernel;
    /// a 1-D empty part is skipped; more than four parts stay the extern copy.
    void catOfFewPartsFuses() {
        auto g = parse("        slice_1: \"f32[2, 2][4, 1]cpu\" = torch.ops.aten.slice.Tensor(x, 1, 0, 2)\n"
                       "        slice_2: \"f32[2, 2][4, 1]cpu\" = torch.ops.aten.slice.Tensor(x, 1, 2, 4)\n"
                       "        neg: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.neg.default(slice_2)\n"
                       "        cat: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.cat.default([neg, slice_1], -1)\n"
                       "        mul: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.mul.Tensor(cat, 2)\n"
                       "        cat_1: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.cat.default([e, x, mul])\n"
                       "        cat_2: \"f32[2, 20][20, 1]cpu\" = torch.ops.aten.cat.default([x, x, x, x, x], 1)\n"
                       "        return (mul, cat_1, cat_2)\n",
                       "x: \"f32[2, 4][4, 1]cpu\", e: \"f32[0][1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), fxtest::tv({0}, {})});
        QVERIFY(c.cg);
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{-6, -8, 2, 4, -14, -16, 10, 12}), 0);
        FX_COMPARE_VEC(fxtest::values(c.outs[1]),
                       (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, -6, -8, 2, 4, -14, -16, 10, 12}), 0);
        std::vector<double> five;
        for (int r = 0; r < 2; ++r)
            for (int k = 0; k < 5; ++k)
                for (int j = 0; j < 4; ++j) five.push_back(r * 4 + j + 1);
        FX_COMPARE_VEC(fxtest::values(c.outs[2]), five, 0);
        std::map<std::string, NodeGroup> groups;
        for (const auto& gr : c.cg->program().groups) groups[gr.node] = gr;
        QCOMPARE(int(groups["cat"].kind), int(NodeGroup::Kind::Kernel));
        QCOMPARE(groups["cat"].kernel, groups["mul"].kernel);
        QCOMPARE(groups["cat"].kernel, groups["neg"].kernel);
        QCOMPARE(int(groups["cat_1"].kind), int(NodeGroup::Kind::Kernel));
        QCOMPARE(int(groups["cat_2"].kind), int(NodeGroup::Kind::Extern));
    }

    void pointwiseChainIsOneKernel() {
        auto g = parse("        relu: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(arg0_1)\n"
                       "        mul: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.mul.Tensor(relu, 2.0)\n"
                       "        add: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.add.Tensor(mul, 1.0)\n"
                       "        return (add,)\n",
                       "arg0_1: \"f32[2, 3][3, 1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 3}, {-1, 2, 0.5, -3, 4, 0})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->program().kernels.size(), size_t(1));
        QCOMPARE(c.cg->program().kernels[0].nodes, (std::vector<std::string>{"relu", "mul", "add"}));
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{1, 5, 2, 1, 9, 1}), 1e-6);
        for (const auto& gr : c.cg->program().groups) QCOMPARE(gr.kernel, 0);
        QVERIFY(c.cg->fallbackOps().empty());
        // The GUI's kernel pane: IR text and assembly exist.
        QVERIFY(c.cg->jit().irText(0).find("define") != std::string::npos);
        QVERIFY(!c.cg->jit().assembly(0).empty());
    }

    void softmaxIsOneKernel() {
        // softmax([0, 0, ln 2]) = [1, 1, 2] / 4; second row [1, 1, 1] / 3.
        auto g = parse("        _softmax: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten._softmax.default(arg0_1, -1, False)\n"
                       "        return (_softmax,)\n",
                       "arg0_1: \"f32[2, 3][3, 1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 3}, {0, 0, std::log(2.0), 5, 5, 5})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->program().kernels.size(), size_t(1));
        QVERIFY(c.cg->program().kernels[0].isReduction());
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{0.25, 0.25, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3}),
                       1e-6);
    }

    void reductionWithEpilogueAndPrologue() {
        // sum((x * 2), dim 1) + 1 : rows [1, 2, 3] -> 13, [4, 5, 6] -> 31; one kernel.
        auto g = parse("        mul: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.mul.Tensor(arg0_1, 2)\n"
                       "        sum_1: \"f32[2][1]cpu\" = torch.ops.aten.sum.dim_IntList(mul, [1])\n"
                       "        add: \"f32[2][1]cpu\" = torch.ops.aten.add.Tensor(sum_1, 1)\n"
                       "        return (add, mul)\n",
                       "arg0_1: \"f32[2, 3][3, 1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->program().kernels.size(), size_t(1));
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{13, 31}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(c.outs[1]), (std::vector<double>{2, 4, 6, 8, 10, 12}), 1e-6);
        // sum_1 is only read inside its kernel: never written to memory.
        int internal = 0;
        for (const auto& b : c.cg->program().buffers) internal += b.internal;
        QCOMPARE(internal, 1);
    }

    void viewsAreIndexArithmetic() {
        // t(x) + x.view(3, 2): transposes and reshapes read the same buffer with other indices.
        auto g = parse("        t: \"f32[3, 2][1, 3]cpu\" = torch.ops.aten.t.default(arg0_1)\n"
                       "        view: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.view.default(arg0_1, [3, 2])\n"
                       "        add: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.add.Tensor(t, view)\n"
                       "        return (add,)\n",
                       "arg0_1: \"f32[2, 3][3, 1]cpu\"");
        QVERIFY(g);
        // x = [[1, 2, 3], [4, 5, 6]]: t = [[1, 4], [2, 5], [3, 6]], view = [[1, 2], [3, 4], [5, 6]]
        auto c = compileAndRun(*g, {fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->program().kernels.size(), size_t(1));
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{2, 6, 5, 9, 8, 12}), 1e-6);
    }

    void horizontalFusionAndExtern() {
        // Two independent pointwise ops of one shape share a kernel; mm runs as an extern call.
        auto g = parse("        neg: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.neg.default(arg0_1)\n"
                       "        exp: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.exp.default(arg1_1)\n"
                       "        mm: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n"
                       "        return (neg, exp, mm)\n",
                       "arg0_1: \"f32[2, 2][2, 1]cpu\", arg1_1: \"f32[2, 2][2, 1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({2, 2}, {0, 1, 1, 0})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->program().kernels.size(), size_t(1));
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{-1, -2, -3, -4}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(c.outs[1]), (std::vector<double>{1, std::exp(1.0), std::exp(1.0), 1}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(c.outs[2]), (std::vector<double>{2, 1, 4, 3}), 1e-6);
        bool sawExtern = false;
        for (const auto& gr : c.cg->program().groups)
            if (gr.node == "mm") sawExtern = gr.kind == NodeGroup::Kind::Extern && gr.kernelName == "mm";
        QVERIFY(sawExtern);
    }

    void fp16RoundsOnStore() {
        // 1 + 2^-12 is not representable in fp16: the stored sum rounds to 1.
        auto g = parse("        add: \"f16[2][1]cpu\" = torch.ops.aten.add.Tensor(arg0_1, 0.000244140625)\n"
                       "        return (add,)\n",
                       "arg0_1: \"f16[2][1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2}, {1, 2}, DType::Float16)});
        QVERIFY(c.cg);
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{1, 2}), 0);
    }

    void unsupportedOpFallsBackExplicitly() {
        // _native_batch_norm_legit.no_stats (no running statistics) has neither a lowering nor a
        // CPU extern: it runs on the reference kernel and is reported; its result feeds a
        // generated kernel.
        auto g =
            parse("        bn = torch.ops.aten._native_batch_norm_legit.no_stats(arg0_1, None, None, True, 0.1, 0.0)\n"
                  "        getitem: \"f32[2, 1][1, 1]cpu\" = bn[0]\n"
                  "        mul: \"f32[2, 1][1, 1]cpu\" = torch.ops.aten.mul.Tensor(getitem, 10)\n"
                  "        return (mul,)\n",
                  "arg0_1: \"f32[2, 1][1, 1]cpu\"");
        QVERIFY(g);
        auto c = compileAndRun(*g, {fxtest::tv({2, 1}, {1, 3})});
        QVERIFY(c.cg);
        QCOMPARE(c.cg->fallbackOps().count("aten._native_batch_norm_legit.no_stats"), size_t(1));
        // One channel over [1, 3]: mean 2, biased variance 1 (eps 0), so (x - 2) / 1, times 10.
        FX_COMPARE_VEC(fxtest::values(c.outs[0]), (std::vector<double>{-10, 10}), 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestCodegenFusion)
#include "tst_codegen_fusion.moc"
