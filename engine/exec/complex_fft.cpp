#include "exec/complex_fft.h"

#include <cmath>

namespace fxray {

namespace {

Argument N(Node* n) { return Argument::ofNode(n); }
Argument I(int64_t v) { return Argument::ofInt(v); }

class FftRewrite {
public:
    FftRewrite(const RealEmitFn& emit, DType real, Device dev) : m_emit(emit), m_t(real), m_dev(std::move(dev)) {}

    Node* op(const std::string& q, std::vector<Argument> args, std::vector<std::pair<std::string, Argument>> kw = {}) {
        return m_emit(q, std::move(args), {}, std::move(kw));
    }
    Node* mm(Node* a, Node* b) { return op("aten.matmul.default", {N(a), N(b)}); }
    Node* add(Node* a, Node* b) { return op("aten.add.Tensor", {N(a), N(b)}); }
    Node* sub(Node* a, Node* b) { return op("aten.sub.Tensor", {N(a), N(b)}); }
    Node* scale(Node* a, double s) { return s == 1.0 ? a : op("aten.mul.Tensor", {N(a), Argument::ofFloat(s)}); }

    /// [rows, cols] float64 of (j * k) mod period for j < rows, k < cols (exact integers).
    Node* phase(int64_t rows, int64_t cols, int64_t period) {
        const std::vector<std::pair<std::string, Argument>> kw = {{"dtype", Argument::ofDType(DType::Float64)},
                                                                  {"device", Argument::ofDevice(m_dev)}};
        Node* j = op("aten.unsqueeze.default", {N(op("aten.arange.default", {I(rows)}, kw)), I(1)});
        Node* k = op("aten.unsqueeze.default", {N(op("aten.arange.default", {I(cols)}, kw)), I(0)});
        return op("aten.remainder.Scalar", {N(op("aten.mul.Tensor", {N(j), N(k)})), I(period)});
    }
    /// cos and sin of 2 pi phase / period in the tensors' real dtype, rows scaled by `weights`
    /// (Hermitian halves: 1 for bin 0 and the Nyquist bin, 2 for the mirrored ones).
    std::pair<Node*, Node*> trig(int64_t rows, int64_t cols, int64_t period, bool hermitian) {
        Node* th = op("aten.mul.Tensor", {N(phase(rows, cols, period)), Argument::ofFloat(2.0 * M_PI / double(period))});
        Node* c = op("aten.cos.default", {N(th)});
        Node* s = op("aten.sin.default", {N(th)});
        if (hermitian) {
            const std::vector<std::pair<std::string, Argument>> kw = {{"dtype", Argument::ofDType(DType::Float64)},
                                                                      {"device", Argument::ofDevice(m_dev)}};
            Node* k = op("aten.unsqueeze.default", {N(op("aten.arange.default", {I(rows)}, kw)), I(1)});
            Node* edge = op("aten.logical_or.default",
                            {N(op("aten.eq.Scalar", {N(k), I(0)})),
                             N(op("aten.eq.Scalar", {N(op("aten.mul.Tensor", {N(k), I(2)})), I(period)}))});
            Node* w = op("aten.where.Scalar", {N(edge), Argument::ofFloat(1.0), Argument::ofFloat(2.0)});
            c = op("aten.mul.Tensor", {N(c), N(w)});
            s = op("aten.mul.Tensor", {N(s), N(w)});
        }
        auto cast = [&](Node* x) { return op("aten._to_copy.default", {N(x)}, {{"dtype", Argument::ofDType(m_t)}}); };
        return {cast(c), cast(s)};
    }

    /// Moves dim d of a rank-r tensor last (and back: the same swap).
    Node* swap(Node* x, int64_t d, int64_t r) {
        return d == r - 1 ? x : op("aten.transpose.int", {N(x), I(d), I(r - 1)});
    }
    /// x @ m with x of any rank >= 1: a 1-D signal as one row (the GEMM externs take matrices).
    Node* rows(Node* x, Node* m, int64_t r) {
        if (r > 1) return mm(x, m);
        return op("aten.squeeze.dim", {N(mm(op("aten.unsqueeze.default", {N(x), I(0)}), m)), I(0)});
    }

    /// X[k] = sum_j x[j] e^(sign 2 pi i j k / n) along dim d (k < nOut); im null: a real input.
    std::pair<Node*, Node*> dft(Node* re, Node* im, int64_t d, int64_t r, int64_t nIn, int64_t nOut, int sign) {
        auto [c, s] = trig(nIn, nOut, nIn, false);
        Node* a = swap(re, d, r);
        Node* b = im ? swap(im, d, r) : nullptr;
        // (a + ib)(cos + i sign sin) = a cos - sign b sin + i (b cos + sign a sin)
        Node* asin = rows(a, s, r);
        Node* outRe = rows(a, c, r);
        Node* outIm = sign > 0 ? asin : op("aten.neg.default", {N(asin)});
        if (b) {
            Node* bsin = rows(b, s, r);
            outRe = sign > 0 ? sub(outRe, bsin) : add(outRe, bsin);
            outIm = add(rows(b, c, r), outIm);
        }
        return {swap(outRe, d, r), swap(outIm, d, r)};
    }

    /// The real inverse along dim d of the Hermitian half (re, im): L output points from the
    /// first L // 2 + 1 input bins (missing ones are zero); the imaginary parts of bin 0 and of the
    /// Nyquist bin drop out, as in pocketfft and cuFFT.
    Node* hermitianInverse(Node* re, Node* im, int64_t d, int64_t r, int64_t nIn, int64_t L) {
        const int64_t used = std::min(nIn, L / 2 + 1);
        auto [c, s] = trig(used, L, L, true);
        Node* a = swap(re, d, r);
        Node* b = swap(im, d, r);
        if (used < nIn) {
            a = op("aten.slice.Tensor", {N(a), I(r - 1), I(0), I(used)});
            b = op("aten.slice.Tensor", {N(b), I(r - 1), I(0), I(used)});
        }
        // Re((a + ib)(cos + i sin)) = a cos - b sin
        return swap(sub(rows(a, c, r), rows(b, s, r)), d, r);
    }

private:
    const RealEmitFn& m_emit;
    DType m_t;
    Device m_dev;
};

std::vector<int64_t> intsOf(const Argument& a) {
    std::vector<int64_t> v;
    for (const auto& x : a.items)
        if (x.kind == Argument::Kind::Int) v.push_back(x.i);
    return v;
}

}  // namespace

bool isFftOp(const std::string& q) {
    return q == "aten._fft_r2c.default" || q == "aten._fft_c2c.default" || q == "aten._fft_c2r.default";
}

Expected<Node*> rewriteFft(const Node& n, const Argument& self, bool selfComplex, const TensorMeta& selfMeta,
                           const std::string& name, const RealEmitFn& emit) {
    const std::string q = n.opName();
    auto fail = [&](const std::string& why) {
        Diagnostic d = makeError("complex values: fxray cannot rewrite " + q + " (node '" + n.name() + "'): " + why);
        d.node = n.name();
        return d;
    };
    if (n.args.size() < 4 || !n.args[1].isSequence() || n.args[2].kind != Argument::Kind::Int)
        return fail("expected (self, dim, normalization, ...) as positional arguments");
    if (selfMeta.isSymbolic()) return fail("symbolic sizes");
    const int64_t r = selfMeta.dim();
    std::vector<int64_t> dims = intsOf(n.args[1]);
    if (dims.size() != n.args[1].items.size() || dims.empty()) return fail("dims must be ints");
    for (auto& d : dims) {
        if (d < 0) d += r;
        if (d < 0 || d >= r) return fail("dim out of range");
    }
    const int64_t norm = n.args[2].i;
    const DType real = isComplex(selfMeta.dtype) ? (selfMeta.dtype == DType::Complex128 ? DType::Float64 : DType::Float32)
                                                 : selfMeta.dtype;
    if (real != DType::Float32 && real != DType::Float64) return fail("only float and double signals");
    FftRewrite f(emit, real, selfMeta.device);
    Node* re = nullptr;
    Node* im = nullptr;
    if (selfComplex) {
        re = f.op("aten.select.int", {self, I(-1), I(0)});
        im = f.op("aten.select.int", {self, I(-1), I(1)});
    } else {
        if (!self.isNode()) return fail("the signal must be a tensor");
        re = self.node;
    }
    std::vector<int64_t> shape = selfMeta.shape;
    double count = 1;
    Node* realOut = nullptr;
    if (q == "aten._fft_c2r.default") {
        if (!selfComplex || n.args[3].kind != Argument::Kind::Int) return fail("expects a complex signal and a size");
        const int64_t L = n.args[3].i;
        for (size_t i = 0; i + 1 < dims.size(); ++i) {
            const int64_t len = shape[static_cast<size_t>(dims[i])];
            count *= double(len);
            std::tie(re, im) = f.dft(re, im, dims[i], r, len, len, +1);
        }
        count *= double(L);
        realOut = f.hermitianInverse(re, im, dims.back(), r, shape[static_cast<size_t>(dims.back())], L);
    } else {
        if (n.args[3].kind != Argument::Kind::Bool) return fail("expects a bool flag");
        const bool flag = n.args[3].b;
        const bool r2c = q == "aten._fft_r2c.default";
        if (r2c == selfComplex) return fail(r2c ? "expects a real signal" : "expects a complex signal");
        const int sign = r2c || flag ? -1 : +1;  // c2c: flag is `forward`
        for (int64_t d : dims) {
            const int64_t len = shape[static_cast<size_t>(d)];
            count *= double(len);
            const bool half = r2c && flag && d == dims.back();  // r2c: flag is `onesided`
            std::tie(re, im) = f.dft(re, im, d, r, len, half ? len / 2 + 1 : len, sign);
        }
    }
    const double s = norm == 1 ? 1.0 / std::sqrt(count) : norm == 2 ? 1.0 / count : 1.0;
    if (realOut) return emit("aten.alias.default", {N(f.scale(realOut, s))}, name, {});
    return emit("aten.stack.default", {Argument::ofList({N(f.scale(re, s)), N(f.scale(im, s))}), I(-1)}, name, {});
}

}  // namespace fxray
