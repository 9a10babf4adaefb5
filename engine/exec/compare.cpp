#include "exec/compare.h"

#include "exec/complex_to_real.h"
#include "exec/ops/kernel_util.h"
#include "exec/shape_binding.h"

#include <cmath>
#include <cstdio>
#include <random>

namespace fxray {

double defaultTolerance(DType t) {
    switch (t) {
    case DType::Float16:
    case DType::BFloat16: return 1e-2;
    case DType::Float32:
    case DType::Float64:
    case DType::Complex64:
    case DType::Complex128: return 1e-4;
    default: return 0.0;
    }
}

OutputComparison compareValues(size_t index, const Value& out, const Value& expect) {
    OutputComparison c;
    c.index = index;
    if (expect.isNone() || out.isNone()) {
        c.ok = expect.isNone() && out.isNone();
        if (!c.ok) c.note = expect.isNone() ? "expected None, got a value" : "expected a tensor, got None";
        return c;
    }
    if (!out.isTensor() || !expect.isTensor()) {
        // A SymInt output is a Python number; PyTorch's tools record it as a 0-d array.
        auto scalar = [](const Value& v, bool& ok) {
            if (!v.isTensor()) return v.toDouble();
            ok = v.t.hasData() && v.t.numel() == 1;
            return ok ? kern::toDoubles(v.t)[0] : 0.0;
        };
        bool okA = true, okB = true;
        double a = scalar(out, okA), b = scalar(expect, okB);
        if (!okA || !okB) {
            c.note = "expected " + expect.describe() + ", got " + out.describe();
            c.relErr = INFINITY;
            return c;
        }
        c.maxAbsErr = std::abs(a - b);
        c.relErr = b != 0 ? c.maxAbsErr / std::abs(b) : c.maxAbsErr;
        c.ok = c.maxAbsErr == 0;
        return c;
    }
    if (isComplex(out.t.dtype()) && isComplex(expect.t.dtype())) {
        // Both parts count: compared as the real views (shape + [2]).
        Value ro = out, re = expect;
        ro.t = complexAsReal(out.t);
        re.t = complexAsReal(expect.t);
        OutputComparison r = compareValues(index, ro, re);
        r.tolerance = defaultTolerance(out.t.dtype());
        if (r.note.rfind("shape ", 0) == 0)
            r.note = "shape " + out.t.meta.annotation(false, false) + " vs expected " +
                     expect.t.meta.annotation(false, false);
        return r;
    }
    const Tensor& o = out.t;
    const Tensor& e = expect.t;
    c.tolerance = defaultTolerance(o.dtype());
    if (o.shape() != e.shape()) {
        c.note = "shape " + o.meta.annotation(false, false) + " vs expected " + e.meta.annotation(false, false);
        c.relErr = INFINITY;
        return c;
    }
    // numpy stores bf16 as f32; compare in the output's dtype family.
    bool intLike = !isFloating(o.dtype()) && !isComplex(o.dtype());
    bool expIntLike = !isFloating(e.dtype()) && !isComplex(e.dtype());
    if (intLike != expIntLike) {
        c.note = std::string("dtype ") + std::string(dtypeTorchName(o.dtype())) + " vs expected " +
                 std::string(dtypeTorchName(e.dtype()));
        c.relErr = INFINITY;
        return c;
    }
    auto a = kern::toDoubles(o), b = kern::toDoubles(e);
    double diff2 = 0, ref2 = 0, maxAbs = 0;
    bool nanMismatch = false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            if (std::isnan(a[i]) != std::isnan(b[i])) nanMismatch = true;
            continue;
        }
        if (std::isinf(a[i]) || std::isinf(b[i])) {
            if (a[i] != b[i]) nanMismatch = true;
            continue;
        }
        double d = a[i] - b[i];
        diff2 += d * d;
        ref2 += b[i] * b[i];
        maxAbs = std::max(maxAbs, std::abs(d));
    }
    c.maxAbsErr = maxAbs;
    c.relErr = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    if (nanMismatch) {
        c.note = "nan/inf positions differ";
        c.relErr = INFINITY;
    }
    c.ok = !nanMismatch && (intLike ? maxAbs == 0 : c.relErr <= c.tolerance);
    return c;
}

namespace {
double rmse(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) continue;
        double d = a[i] - b[i];
        s += d * d;
        ++n;
    }
    return n ? std::sqrt(s / double(n)) : 0.0;
}
}  // namespace

void judgeWithFp64(OutputComparison& c, const Value& out, const Value& expect, const Value& ref64) {
    if (c.ok || !out.isTensor() || !expect.isTensor() || !ref64.isTensor()) return;
    if (!isFloating(out.t.dtype()) || out.t.shape() != expect.t.shape() || ref64.t.shape() != out.t.shape()) return;
    if (c.note == "nan/inf positions differ") return;
    auto r = kern::toDoubles(ref64.t);
    c.rmseOurs = rmse(kern::toDoubles(out.t), r);
    c.rmseExpected = rmse(kern::toDoubles(expect.t), r);
    c.fp64Judged = true;
    c.ok = c.rmseOurs <= 2.0 * c.rmseExpected + c.tolerance / 10.0;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "rel_err is meaningless here; judged against an fp64 run like PyTorch's same(): "
                  "RMSE(ours,fp64)=%.3g, RMSE(expected,fp64)=%.3g",
                  c.rmseOurs, c.rmseExpected);
    c.note = buf;
}

Tensor withAnnotatedStrides(const Tensor& t, const Node& ph) {
    if (ph.meta.empty()) return t;
    return withAnnotatedStrides(t, ph.meta[0]);
}

Tensor withAnnotatedStrides(const Tensor& t, const TensorMeta& m) {
    if (m.shape != t.shape()) return t;
    TensorMeta lay = t.meta;
    // The recorded run happened on the annotated device; device-dependent metas (batch norm's
    // saved statistics in eval mode, say) follow it.
    lay.device = m.device;
    // numpy has no bfloat16: PyTorch's tools save bf16 tensors as fp32 (exactly, bf16 values
    // being fp32 values). The annotation says what the graph takes.
    const bool toBf16 = m.dtype == DType::BFloat16 && t.dtype() == DType::Float32;
    if (toBf16) lay.dtype = DType::BFloat16;
    const bool restride = m.stridesKnown && !m.isContiguous() && m.strides != t.strides();
    if (!toBf16 && !restride) {
        Tensor on = t;
        on.meta.device = m.device;
        return on;
    }
    lay.strides = restride ? m.strides : kern::rowMajorStrides(m.shape);
    lay.offset = 0;
    return kern::makeTensor(lay, kern::toDoubles(t));
}

Status layOutRecordedInputs(const Graph& g, std::vector<Value>& inputs) {
    auto phs = g.placeholders();
    if (!graphIsSymbolic(g)) {
        for (size_t i = 0; i < inputs.size() && i < phs.size(); ++i)
            if (inputs[i].isTensor()) inputs[i].t = withAnnotatedStrides(inputs[i].t, *phs[i]);
        return Status::success();
    }
    scalarizeSymInputs(g, inputs);
    auto b = bindInputs(g, inputs, /*withStrides=*/false);
    if (!b.ok()) return b.error();
    for (size_t i = 0; i < inputs.size() && i < phs.size(); ++i) {
        if (!inputs[i].isTensor() || phs[i]->meta.empty()) continue;
        auto m = bindMeta(phs[i]->meta[0], *b);
        if (m.ok()) inputs[i].t = withAnnotatedStrides(inputs[i].t, *m);
    }
    return Status::success();
}

Expected<std::vector<Value>> randomInputs(const Graph& g, uint64_t seed, const sym::Binding* sizes) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<Value> out;
    const sym::Binding b = completeBinding(g, sizes ? *sizes : sym::Binding{});
    for (Node* ph : g.placeholders()) {
        if (isSymPlaceholder(*ph)) {
            // A SymInt input is the value of its expression under the binding.
            auto v = sym::evalText(symPlaceholderExpr(*ph), b);
            if (!v.ok()) {
                Diagnostic d = makeError(v.error().message + "; give it with --sizes");
                d.node = ph->name();
                d.file = g.sourceFile;
                d.line = ph->sourceLine;
                return d;
            }
            out.push_back(v->isFloat()                      ? Value::ofDouble(v->d)
                          : v->kind == sym::Num::Kind::Bool ? Value::ofBool(v->i != 0)
                                                            : Value::ofInt(v->i));
            continue;
        }
        if (ph->meta.empty()) {
            Diagnostic d = makeError("placeholder has no annotation to draw a random input from; give --inputs DIR");
            d.node = ph->name();
            d.file = g.sourceFile;
            d.line = ph->sourceLine;
            return d;
        }
        TensorMeta m = ph->meta[0];
        if (m.isSymbolic()) {
            auto bound = bindMeta(m, b);
            if (!bound.ok()) {
                Diagnostic d = makeError(bound.error().message + "; give it with --sizes");
                d.node = ph->name();
                d.file = g.sourceFile;
                d.line = ph->sourceLine;
                return d;
            }
            m = std::move(bound).value();
        }
        std::vector<double> vals(static_cast<size_t>(m.numel()));
        for (auto& v : vals) {
            if (isFloating(m.dtype))
                v = normal(rng);
            else if (m.dtype == DType::Bool)
                v = static_cast<double>(rng() & 1);
            else
                v = static_cast<double>(rng() % 8);  // small, valid as an index into most dims
        }
        TensorMeta lay = m;
        lay.offset = 0;
        out.push_back(Value::ofTensor(kern::makeTensor(lay, vals)));
    }
    return out;
}

}  // namespace fxray
