// Graphs with complex values (exec/complex_to_real.h): PyTorch's recorded OpInfo runs of complex,
// polar and view_as_complex, and Meta-Llama blocks with complex rotary embeddings (forward,
// backward and Dynamo stages, fp32 and bf16, recorded by bench/gen_popular_complex.py), run on the
// reference executor and on the CPU backend with no fallback and judged against PyTorch's
// outputs by run_check's one rule, and lowered for CUDA with no fallback. Also: complex outputs are compared on both parts, and a complex
// op the rewrite has no rule for fails naming its node.
#include "complex_rope_cases.h"
#include "cpu_lowering_check.h"

#include "autodiff/joint_builder.h"
#include "exec/interpreter.h"
#include "partition/partitioner.h"

#include <complex>

using namespace fxray;

namespace {

using namespace complextest;

Tensor complexTensor(std::vector<int64_t> shape, const std::vector<double>& pairs) {
    std::vector<int64_t> rs = shape;
    rs.push_back(2);
    return realAsComplex(fxtest::tensor(rs, pairs), DType::Complex64);
}

/// fxray's joint graph (its own autodiff) of a RoPE block's Dynamo graph, whose recorded inputs
/// `dyn` holds.
Expected<JointGraph> dynamoJoint(const fs::path& numerics, Recorded& dyn) {
    if (std::string err = loadRecorded(numerics / "dynamo", dyn); !err.empty()) return makeError(err);
    return buildJointGraph(dyn.graph());
}

}  // namespace

class TestCpuComplex : public QObject {
    Q_OBJECT
private slots:
    void opinfo_data() {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("backend");
        // cfloat/cdouble: _to_copy of a real tensor into complex64/complex128 (they ran through a
        // CPU extern before the rewrite, and matched then too).
        for (const char* g : {"complex__default__s0", "complex__default__s1", "polar__default__s0",
                              "polar__default__s1", "view_as_complex__default__s0", "cfloat__default__s0",
                              "cfloat__default__s1", "cdouble__default__s0", "cdouble__default__s1"})
            for (const char* b : {"ref", "cpu"})
                QTest::newRow((std::string(g) + "/" + b).c_str()) << QString(g) << QString(b);
    }
    // PyTorch's recorded OpInfo samples (../shared/opinfo): unknown ops before the rewrite.
    void opinfo() {
        QFETCH(QString, graph);
        QFETCH(QString, backend);
        const fs::path stem = fxtest::corpus().parent_path() / "opinfo" / graph.toStdString() / "numerics" / "forward";
        if (!fs::exists(stem.string() + ".py")) QSKIP("no ../shared/opinfo here");
        runMatches(stem, backend.toStdString());
    }

    void rope_data() { addRopeRows(); }
    // Meta's apply_rotary_emb: a complex64 freqs_cis input (or polar in the graph), complex mul,
    // view_as_real; the backward's _conj and complex mul; the Dynamo stage's torch-level calls.
    // The reference executor and the CPU backend.
    void rope() {
        QFETCH(QString, graph);
        QFETCH(QString, stage);
        const fs::path stem = ropeDir() / graph.toStdString() / "numerics" / stage.toStdString();
        runMatches(stem, "ref");
        if (QTest::currentTestFailed()) return;
        runMatches(stem, "cpu");
        if (QTest::currentTestFailed()) return;
        // And it lowers for CUDA (PTX, no device) with no fallback, where NVRTC loads.
        Recorded r;
        QCOMPARE(loadRecorded(stem, r), std::string());
        fxtest::cudaLowersWithoutFallback(r.graph(), r.req.inputs);
    }

    void jointGivesPyTorchsGradients_data() {
        QTest::addColumn<QString>("graph");
        for (const char* g : {"llama_rope_complex", "llama_rope_polar"}) QTest::newRow(g) << QString(g);
    }
    // fxray's own autodiff of the Dynamo graph (view_as_complex, complex mul by freqs_cis,
    // view_as_real): the joint graph's gradients for PyTorch's recorded tangent are the ones
    // PyTorch's AOT backward recorded (backward/outputs; None gradients have no file). There were
    // no VJP rules for the complex ops before.
    void jointGivesPyTorchsGradients() {
        QFETCH(QString, graph);
        const fs::path dir = ropeDir() / graph.toStdString() / "numerics";
        Recorded dyn;
        auto joint = dynamoJoint(dir, dyn);
        QVERIFY2(joint.ok(), joint.ok() ? "" : joint.error().str().c_str());
        QCOMPARE(joint->numTangents, size_t(1));
        // The tangent is the backward graph's last input; gradients PyTorch gave as None have no file.
        const fs::path bwd = dir / "backward";
        const auto nIn =
            static_cast<size_t>(std::distance(fs::directory_iterator(bwd / "inputs"), fs::directory_iterator{}));
        auto bwdIn = readNpyFolder(bwd / "inputs", nIn);
        QVERIFY2(bwdIn.ok() && !bwdIn->empty(), bwdIn.ok() ? "no inputs" : bwdIn.error().str().c_str());
        auto want = readNpyFolder(bwd / "outputs", joint->primalSources.size());
        QVERIFY2(want.ok(), want.ok() ? "" : want.error().str().c_str());
        RunRequest req = dyn.req;
        req.inputs.push_back(bwdIn->back());
        auto r = runAndCheck(*joint->graph, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        size_t compared = 0;
        for (size_t i = 0; i < want->size(); ++i) {
            const Value& got = r->outputs[joint->numForwardOutputs + i];
            if ((*want)[i].isNone()) {
                QVERIFY2(got.isNone(), qPrintable(QString("gradient %1").arg(i)));
                continue;
            }
            auto c = compareValues(i, got, (*want)[i]);
            QVERIFY2(c.ok, qPrintable(QString("gradient %1: rel_err %2").arg(i).arg(c.relErr)));
            ++compared;
        }
        QVERIFY(compared >= 8);
    }

    // The same joint graph through the min-cut partitioner (the parameters and the freqs_cis
    // buffer free to save, as Inductor has them): the forward graph is PyTorch's recorded one,
    // node for node, saving primals_1 and recomputing the _conj in the backward, and the
    // attention output saved detached (detach_3), as autograd saves an output.
    void partitionIsPyTorchs() {
        const fs::path dir = ropeDir() / "llama_rope_complex" / "numerics";
        Recorded dyn;
        auto joint = dynamoJoint(dir, dyn);
        QVERIFY2(joint.ok(), joint.ok() ? "" : joint.error().str().c_str());
        PartitionOptions po;
        po.staticLifetimeInputs = staticInputsFromDynamo(*joint->graph, dyn.graph());
        auto part = partitionJoint(*joint->graph, po);
        QVERIFY2(part.ok(), part.ok() ? "" : part.error().str().c_str());
        auto want = loadFile((dir / "forward.py").string());
        QVERIFY(want.ok());
        auto calls = [](const Graph& g) {
            std::vector<std::string> r;
            for (const auto& up : g.nodes())
                if (up->kind() == NodeKind::CallFunction) r.push_back(up->name() + "=" + up->target());
            return r;
        };
        auto outs = [](const Graph& g) {
            std::vector<std::string> r;
            for (const auto& a : g.outputs()) r.push_back(a.isNode() ? a.node->name() : "?");
            return r;
        };
        const Graph& pt = *want->graphs[0].graph;
        QCOMPARE(outs(*part->forward), outs(pt));
        QCOMPARE(calls(*part->forward), calls(pt));
    }

    // A complex output differing only in its imaginary parts does not match (the comparison once
    // read real parts only).
    void comparesBothParts() {
        Value a = Value::ofTensor(complexTensor({2}, {1, 2, 3, 4}));
        Value b = Value::ofTensor(complexTensor({2}, {1, 2, 3, -4}));
        QVERIFY(compareValues(0, a, a).ok);
        QVERIFY(!compareValues(0, a, b).ok);
        // deepCopy keeps the imaginary parts too.
        Value c = deepCopy(b);
        QCOMPARE(fxtest::values(Value::ofTensor(complexAsReal(c.t))), (std::vector<double>{1, 2, 3, -4}));
    }

    // The boundary: a complex input reaches the real graph as its interleaved view, without a
    // copy, and a transposed pair tensor comes back as the complex values it holds.
    void boundaryViews() {
        Tensor c = complexTensor({2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        Tensor r = complexAsReal(c);
        QCOMPARE(r.shape(), (std::vector<int64_t>{2, 3, 2}));
        QCOMPARE(r.strides(), (std::vector<int64_t>{6, 2, 1}));
        QCOMPARE(r.storage, c.storage);
        // Parts stored planar ([2, 3] reals, then imaginaries), seen as [2, 3, 2] through strides.
        Tensor planar = fxtest::tensor({2, 2, 3}, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
        TensorMeta m = planar.meta;
        m.shape = {2, 3, 2};
        m.strides = {3, 1, 6};
        Tensor back = realAsComplex(planar.view(m), DType::Complex64);
        QCOMPARE(back.dtype(), DType::Complex64);
        QCOMPARE(fxtest::values(Value::ofTensor(complexAsReal(back))),
                 (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    }

    // The rewrite's other rules (division both ways, mixed real/complex add and sub with alpha,
    // scalars, abs, angle, real/imag, cat, stack, sum over dims, conj_physical, neg, a real to
    // complex _to_copy) against std::complex, on the reference executor and the CPU backend.
    void arithmeticAsStdComplex() {
        auto g = fxtest::parseForward(
            "x: \"f32[3, 2][2, 1]cpu\", y: \"f32[3, 2][2, 1]cpu\", r: \"f32[3][1]cpu\"",
            "        a: \"c64[3][1]cpu\" = torch.ops.aten.view_as_complex.default(x)\n"
            "        b: \"c64[3][1]cpu\" = torch.ops.aten.view_as_complex.default(y)\n"
            "        d: \"c64[3][1]cpu\" = torch.ops.aten.div.Tensor(a, b)\n"
            "        s: \"c64[3][1]cpu\" = torch.ops.aten.sub.Tensor(a, r)\n"
            "        t: \"c64[3][1]cpu\" = torch.ops.aten.add.Tensor(r, b, alpha = 2)\n"
            "        m: \"c64[3][1]cpu\" = torch.ops.aten.mul.Tensor(a, 3.0)\n"
            "        q: \"c64[3][1]cpu\" = torch.ops.aten.div.Tensor(r, b)\n"
            "        ab: \"f32[3][1]cpu\" = torch.ops.aten.abs.default(a)\n"
            "        an: \"f32[3][1]cpu\" = torch.ops.aten.angle.default(a)\n"
            "        re: \"f32[3][2]cpu\" = torch.ops.aten.real.default(d)\n"
            "        im: \"f32[3][2]cpu\" = torch.ops.aten.imag.default(d)\n"
            "        cc: \"c64[6][1]cpu\" = torch.ops.aten.cat.default([a, b])\n"
            "        st: \"c64[3, 2][2, 1]cpu\" = torch.ops.aten.stack.default([a, b], -1)\n"
            "        sm: \"c64[3][1]cpu\" = torch.ops.aten.sum.dim_IntList(st, [-1])\n"
            "        cj: \"c64[3][1]cpu\" = torch.ops.aten.conj_physical.default(a)\n"
            "        ng: \"c64[3][1]cpu\" = torch.ops.aten.neg.default(b)\n"
            "        tc: \"c64[3][1]cpu\" = torch.ops.aten._to_copy.default(r, dtype = torch.complex64)\n"
            "        return (d, s, t, m, q, ab, an, re, im, cc, st, sm, cj, ng, tc)\n");
        QVERIFY(g);
        const std::vector<double> xv{1, 2, -3, 0.5, 0.25, -4}, yv{2, -1, 0.5, 3, -1.5, -2}, rv{0.5, -2, 3};
        using C = std::complex<double>;
        std::vector<C> a, b;
        for (size_t i = 0; i < 3; ++i) {
            a.emplace_back(xv[2 * i], xv[2 * i + 1]);
            b.emplace_back(yv[2 * i], yv[2 * i + 1]);
        }
        auto pairs = [](const std::vector<C>& v) {
            std::vector<double> r;
            for (const C& c : v) r.insert(r.end(), {c.real(), c.imag()});
            return r;
        };
        auto each = [&](auto f) {
            std::vector<C> r;
            for (size_t i = 0; i < 3; ++i) r.push_back(f(i));
            return r;
        };
        std::vector<std::vector<double>> want{
            pairs(each([&](size_t i) { return a[i] / b[i]; })),
            pairs(each([&](size_t i) { return a[i] - rv[i]; })),
            pairs(each([&](size_t i) { return rv[i] + 2.0 * b[i]; })),
            pairs(each([&](size_t i) { return a[i] * 3.0; })),
            pairs(each([&](size_t i) { return rv[i] / b[i]; })),
            {std::abs(a[0]), std::abs(a[1]), std::abs(a[2])},
            {std::arg(a[0]), std::arg(a[1]), std::arg(a[2])},
            {(a[0] / b[0]).real(), (a[1] / b[1]).real(), (a[2] / b[2]).real()},
            {(a[0] / b[0]).imag(), (a[1] / b[1]).imag(), (a[2] / b[2]).imag()},
            pairs({a[0], a[1], a[2], b[0], b[1], b[2]}),
            pairs({a[0], b[0], a[1], b[1], a[2], b[2]}),
            pairs(each([&](size_t i) { return a[i] + b[i]; })),
            pairs(each([&](size_t i) { return std::conj(a[i]); })),
            pairs(each([&](size_t i) { return -b[i]; })),
            pairs(each([&](size_t i) { return C(rv[i], 0); })),
        };
        RunRequest req;
        req.inputs = {Value::ofTensor(fxtest::tensor({3, 2}, xv)), Value::ofTensor(fxtest::tensor({3, 2}, yv)),
                      Value::ofTensor(fxtest::tensor({3}, rv))};
        for (const char* backend : {"ref", "cpu"}) {
            auto be = makeBackend(backend);
            QVERIFY(be.ok());
            RunReport rep;
            auto res = (*be)->run(*g, req, nullptr, &rep);
            QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
            QVERIFY(rep.fallbacks.empty());
            QCOMPARE(res->outputs.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
                const Tensor& t = res->outputs[i].t;
                const std::vector<double> got =
                    fxtest::values(Value::ofTensor(isComplex(t.dtype()) ? complexAsReal(t) : t));
                QVERIFY2(got.size() == want[i].size(), (std::string(backend) + " output " + std::to_string(i)).c_str());
                for (size_t k = 0; k < got.size(); ++k)
                    QVERIFY2(std::fabs(got[k] - want[i][k]) <= 1e-5 * (1 + std::fabs(want[i][k])),
                             (std::string(backend) + " output " + std::to_string(i) + " element " + std::to_string(k) +
                              ": " + std::to_string(got[k]) + " vs " + std::to_string(want[i][k]))
                                 .c_str());
            }
        }
    }

    // Shape ops on a complex value keep its trailing (real, imaginary) dim last: negative dims,
    // permute, transpose, t, unsqueeze/squeeze, slice, select, expand, repeat, flip, sum over all
    // dims and where, against values indexed by hand, on the reference executor and the CPU backend.
    void shapeOpsAsIndexed() {
        auto g = fxtest::parseForward(
            "x: \"f32[2, 3, 2][6, 2, 1]cpu\", y: \"f32[2, 3, 2][6, 2, 1]cpu\", m: \"b8[2, 3][3, 1]cpu\"",
            "        a: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.view_as_complex.default(x)\n"
            "        b: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.view_as_complex.default(y)\n"
            "        p: \"c64[3, 2][1, 3]cpu\" = torch.ops.aten.permute.default(a, [1, 0])\n"
            "        tr: \"c64[3, 2][1, 3]cpu\" = torch.ops.aten.transpose.int(a, -1, 0)\n"
            "        t: \"c64[3, 2][1, 3]cpu\" = torch.ops.aten.t.default(a)\n"
            "        u: \"c64[2, 3, 1][3, 1, 1]cpu\" = torch.ops.aten.unsqueeze.default(a, -1)\n"
            "        sq: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.squeeze.dim(u, -1)\n"
            "        sq0: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.squeeze.default(u)\n"
            "        sl: \"c64[2, 2][3, 1]cpu\" = torch.ops.aten.slice.Tensor(a, -1, 1, 3)\n"
            "        se: \"c64[2][3]cpu\" = torch.ops.aten.select.int(a, -1, 2)\n"
            "        e1: \"c64[1, 2, 3][6, 3, 1]cpu\" = torch.ops.aten.unsqueeze.default(a, 0)\n"
            "        ex: \"c64[2, 2, 3][0, 3, 1]cpu\" = torch.ops.aten.expand.default(e1, [2, 2, 3])\n"
            "        rp: \"c64[2, 6][6, 1]cpu\" = torch.ops.aten.repeat.default(a, [1, 2])\n"
            "        fl: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.flip.default(a, [-1])\n"
            "        sd: \"c64[][]cpu\" = torch.ops.aten.sum.default(a)\n"
            "        wh: \"c64[2, 3][3, 1]cpu\" = torch.ops.aten.where.self(m, a, b)\n"
            "        return (p, tr, t, sq, sq0, sl, se, ex, rp, fl, sd, wh)\n");
        QVERIFY(g);
        std::vector<double> xv, yv;
        for (int k = 0; k < 12; ++k) {
            xv.push_back(0.5 * k - 2);
            yv.push_back(10 + k);
        }
        const std::vector<double> mv{1, 0, 0, 1, 1, 0};
        using C = std::complex<double>;
        auto A = [&](size_t i, size_t j) { return C(xv[(i * 3 + j) * 2], xv[(i * 3 + j) * 2 + 1]); };
        auto B = [&](size_t i, size_t j) { return C(yv[(i * 3 + j) * 2], yv[(i * 3 + j) * 2 + 1]); };
        auto pairs = [](const std::vector<C>& v) {
            std::vector<double> r;
            for (const C& c : v) r.insert(r.end(), {c.real(), c.imag()});
            return r;
        };
        std::vector<C> transposed, same, sliced, selected, expanded, repeated, flipped, where;
        C total = 0;
        for (size_t j = 0; j < 3; ++j)
            for (size_t i = 0; i < 2; ++i) transposed.push_back(A(i, j));
        for (size_t i = 0; i < 2; ++i) {
            selected.push_back(A(i, 2));
            for (size_t j = 0; j < 3; ++j) {
                same.push_back(A(i, j));
                flipped.push_back(A(i, 2 - j));
                where.push_back(mv[i * 3 + j] != 0 ? A(i, j) : B(i, j));
                total += A(i, j);
            }
            for (size_t k = 0; k < 2; ++k) sliced.push_back(A(i, 1 + k));
            for (size_t k = 0; k < 6; ++k) repeated.push_back(A(i, k % 3));
        }
        for (size_t r = 0; r < 2; ++r) expanded.insert(expanded.end(), same.begin(), same.end());
        const std::vector<std::vector<double>> want{
            pairs(transposed), pairs(transposed), pairs(transposed), pairs(same),    pairs(same),    pairs(sliced),
            pairs(selected),   pairs(expanded),   pairs(repeated),   pairs(flipped), pairs({total}), pairs(where)};
        RunRequest req;
        req.inputs = {Value::ofTensor(fxtest::tensor({2, 3, 2}, xv)), Value::ofTensor(fxtest::tensor({2, 3, 2}, yv)),
                      Value::ofTensor(fxtest::tensor({2, 3}, mv, DType::Bool))};
        for (const char* backend : {"ref", "cpu"}) {
            auto be = makeBackend(backend);
            QVERIFY(be.ok());
            RunReport rep;
            auto res = (*be)->run(*g, req, nullptr, &rep);
            QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
            QVERIFY(rep.fallbacks.empty());
            QCOMPARE(res->outputs.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
                QCOMPARE(res->outputs[i].t.dtype(), DType::Complex64);
                QCOMPARE(fxtest::values(Value::ofTensor(complexAsReal(res->outputs[i].t))), want[i]);
            }
        }
    }

    // Direct calls (constant folding, the minifier): the complex ops' own kernels compute both
    // parts; a real-valued kernel refuses complex operands instead of reading real parts only.
    void directCalls() {
        ExecContext ctx(0);
        Value absV = Value::ofTensor(fxtest::tensor({2}, {2, 0.5})),
              ang = Value::ofTensor(fxtest::tensor({2}, {0.3, -2}));
        auto p = invokeOp("aten.polar.default", {absV, ang}, {}, &ctx);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().str().c_str());
        QCOMPARE(p->t.dtype(), DType::Complex64);
        const auto v = fxtest::values(Value::ofTensor(complexAsReal(p->t)));
        const std::complex<double> z0 = std::polar(2.0, 0.3), z1 = std::polar(0.5, -2.0);
        FX_COMPARE_VEC(v, (std::vector<double>{z0.real(), z0.imag(), z1.real(), z1.imag()}), 1e-6);
        auto c = invokeOp("aten._conj.default", {*p}, {}, &ctx);
        QVERIFY(c.ok());
        FX_COMPARE_VEC(fxtest::values(Value::ofTensor(complexAsReal(c->t))),
                       (std::vector<double>{z0.real(), -z0.imag(), z1.real(), -z1.imag()}), 1e-6);
        auto m = invokeOp("aten.mul.Tensor", {*p, *p}, {}, &ctx);
        QVERIFY(!m.ok());
        QVERIFY2(m.error().message.find("real-valued") != std::string::npos, m.error().str().c_str());
    }

    // A complex op without a rule (exp of a complex tensor) fails naming the node, on both sides.
    void unsupportedOpNamesTheNode() {
        auto g = fxtest::parseForward("x: \"f32[3, 2][2, 1]cpu\"",
                                      "        c: \"c64[3][1]cpu\" = torch.ops.aten.view_as_complex.default(x)\n"
                                      "        e: \"c64[3][1]cpu\" = torch.ops.aten.exp.default(c)\n"
                                      "        r: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.view_as_real.default(e)\n"
                                      "        return (r,)\n");
        QVERIFY(g);
        RunRequest req;
        req.inputs = {Value::ofTensor(fxtest::tensor({3, 2}, {1, 2, 3, 4, 5, 6}))};
        for (const char* backend : {"ref", "cpu"}) {
            auto b = makeBackend(backend);
            QVERIFY(b.ok());
            auto res = (*b)->run(*g, req, nullptr, nullptr);
            QVERIFY(!res.ok());
            QVERIFY2(res.error().message.find("aten.exp.default (node 'e')") != std::string::npos,
                     res.error().str().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuComplex)
#include "tst_cpu_complex.moc"
