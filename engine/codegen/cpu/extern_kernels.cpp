// GEMM choice: Debian's OpenBLAS (libopenblas-dev, pthread build) when it was found at
// configure time, else our blocked kernel. Measured on the 2-core CI host (bench_cpu_backend
// prints both): OpenBLAS's hand-written AVX-512/AVX2 micro-kernels run the corpus's GEMMs
// (e.g. 1023x1001x511, 128x512x128) several times faster than a compiler-vectorised blocked
// loop, and it is a stable, packaged library with no run-time code generation — the fastest
// dependable option. The blocked kernel keeps fxray working where OpenBLAS is absent.
#include "codegen/cpu/extern_kernels.h"
#include "codegen/cpu/extern_table.h"

#include "exec/ops/kernel_util.h"
#include "exec/tensor_layout.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(FXRAY_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace fxray::cg::cpu {

const char* gemmImplementation() {
#if defined(FXRAY_HAVE_OPENBLAS)
    return "openblas";
#else
    return "blocked";
#endif
}

void sgemmBlocked(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t ars, int64_t acs,
                  const float* B, int64_t brs, int64_t bcs, float beta, float* C, int64_t ldc) {
    // B packed row-major in blocks of K so the inner j loop is unit-stride and vectorises.
    constexpr int64_t KB = 256, NB = 512;
    std::vector<float> pack(static_cast<size_t>(KB * NB));
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
        int64_t kb = std::min(KB, K - k0);
        for (int64_t j0 = 0; j0 < N; j0 += NB) {
            int64_t nb = std::min(NB, N - j0);
            for (int64_t k = 0; k < kb; ++k)
                for (int64_t j = 0; j < nb; ++j)
                    pack[static_cast<size_t>(k * nb + j)] = B[(k0 + k) * brs + (j0 + j) * bcs];
            for (int64_t i = 0; i < M; ++i) {
                float* c = C + i * ldc + j0;
                for (int64_t k = 0; k < kb; ++k) {
                    const float a = alpha * A[i * ars + (k0 + k) * acs];
                    const float* p = pack.data() + k * nb;
                    for (int64_t j = 0; j < nb; ++j) c[j] += a * p[j];
                }
            }
        }
    }
}

void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t ars, int64_t acs, const float* B,
           int64_t brs, int64_t bcs, float beta, float* C, int64_t ldc) {
    if (M == 0 || N == 0) return;
#if defined(FXRAY_HAVE_OPENBLAS)
    auto layout = [](int64_t rs, int64_t cs, int64_t rows, int64_t cols, CBLAS_TRANSPOSE& tr, int64_t& ld) {
        if (cs == 1 && rs >= std::max<int64_t>(1, cols)) {
            tr = CblasNoTrans;
            ld = rs;
            return true;
        }
        if (rs == 1 && cs >= std::max<int64_t>(1, rows)) {
            tr = CblasTrans;
            ld = cs;
            return true;
        }
        if (rows <= 1 && cs == 1) {
            tr = CblasNoTrans;
            ld = std::max<int64_t>(1, cols);
            return true;
        }
        if (cols <= 1 && rs == 1) {
            tr = CblasTrans;
            ld = std::max<int64_t>(1, rows);
            return true;
        }
        return false;
    };
    CBLAS_TRANSPOSE ta, tb;
    int64_t lda, ldb;
    std::vector<float> ac, bc;
    if (!layout(ars, acs, M, K, ta, lda)) {
        ac.resize(static_cast<size_t>(M * K));
        for (int64_t i = 0; i < M; ++i)
            for (int64_t k = 0; k < K; ++k) ac[static_cast<size_t>(i * K + k)] = A[i * ars + k * acs];
        A = ac.data(), ta = CblasNoTrans, lda = std::max<int64_t>(1, K);
    }
    if (!layout(brs, bcs, K, N, tb, ldb)) {
        bc.resize(static_cast<size_t>(K * N));
        for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) bc[static_cast<size_t>(k * N + j)] = B[k * brs + j * bcs];
        B = bc.data(), tb = CblasNoTrans, ldb = std::max<int64_t>(1, N);
    }
    if (K == 0) {
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
        return;
    }
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A,
                static_cast<int>(lda), B, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
#else
    sgemmBlocked(M, N, K, alpha, A, ars, acs, B, brs, bcs, beta, C, ldc);
#endif
}

namespace {

/// A strided fp32 matrix view of a 2-D slice, converted to a contiguous fp32 copy when the
/// tensor is not fp32.
struct Mat {
    const float* p = nullptr;
    int64_t rs = 0, cs = 0;
    std::vector<float> owned;
};

Mat matOf(const Tensor& t, int64_t batch) {
    Mat m;
    size_t nd = t.shape().size();
    int64_t rows = t.shape()[nd - 2], cols = t.shape()[nd - 1];
    int64_t bstride = nd == 3 ? t.strides()[0] : 0;
    if (t.dtype() == DType::Float32) {
        m.p = t.data<float>() + batch * bstride;
        m.rs = t.strides()[nd - 2];
        m.cs = t.strides()[nd - 1];
        return m;
    }
    m.owned.resize(static_cast<size_t>(rows * cols));
    const std::byte* base = t.raw();
    int is = dtypeItemSize(t.dtype());
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            m.owned[static_cast<size_t>(i * cols + j)] = static_cast<float>(kern::readElem(
                base + (batch * bstride + i * t.strides()[nd - 2] + j * t.strides()[nd - 1]) * is, t.dtype()));
    m.p = m.owned.data();
    m.rs = cols;
    m.cs = 1;
    return m;
}

bool floatLike(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

/// out[b] = beta * init + alpha * a[b] @ b[b]; init is `bias` broadcast (or nothing).
bool gemmInto(const Tensor& a, const Tensor& b, const Tensor* bias, float beta, float alpha, Tensor& out) {
    if (!floatLike(a.dtype()) || !floatLike(b.dtype()) || !floatLike(out.dtype())) return false;
    size_t nd = out.shape().size();
    int64_t batches = nd == 3 ? out.shape()[0] : 1;
    int64_t M = out.shape()[nd - 2], N = out.shape()[nd - 1], K = a.shape()[a.shape().size() - 1];
    bool direct = out.dtype() == DType::Float32 && out.strides()[nd - 1] == 1 && out.meta.offset == 0;
    std::vector<float> tmp;
    if (!direct) tmp.resize(static_cast<size_t>(M * N));
    std::vector<double> biasVals;
    if (bias) biasVals = kern::toDoublesBroadcast(*bias, {M, N});
    for (int64_t bt = 0; bt < batches; ++bt) {
        float* C = direct ? out.data<float>() + bt * (nd == 3 ? out.strides()[0] : 0) : tmp.data();
        int64_t ldc = direct ? out.strides()[nd - 2] : N;
        if (bias && beta != 0.0f) {
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j)
                    C[i * ldc + j] = static_cast<float>(biasVals[static_cast<size_t>(i * N + j)]);
        }
        Mat ma = matOf(a, bt), mb = matOf(b, bt);
        sgemm(M, N, K, alpha, ma.p, ma.rs, ma.cs, mb.p, mb.rs, mb.cs, bias ? beta : 0.0f, C, ldc);
        if (!direct) {
            std::byte* base = out.raw();
            int is = dtypeItemSize(out.dtype());
            int64_t bs = nd == 3 ? out.strides()[0] : 0;
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j)
                    kern::writeElem(base + (bt * bs + i * out.strides()[nd - 2] + j * out.strides()[nd - 1]) * is,
                                    out.dtype(), tmp[static_cast<size_t>(i * N + j)]);
        }
    }
    return true;
}

/// Copies src (any layout) into dst's slice starting at `start` along `dim` (same dtype).
void copyInto(const Tensor& src, Tensor& dst, int64_t dim, int64_t start) {
    int is = dtypeItemSize(src.dtype());
    const auto& shape = src.shape();
    int64_t n = src.numel();
    std::vector<int64_t> idx(shape.size(), 0);
    const std::byte* sb = src.raw();
    std::byte* db = dst.raw();
    for (int64_t e = 0; e < n; ++e) {
        int64_t so = 0, doff = 0;
        for (size_t d = 0; d < shape.size(); ++d) {
            so += idx[d] * src.strides()[d];
            doff += (idx[d] + (static_cast<int64_t>(d) == dim ? start : 0)) * dst.strides()[d];
        }
        std::memcpy(db + doff * is, sb + so * is, static_cast<size_t>(is));
        for (size_t d = shape.size(); d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace

namespace {

bool catInto(const OpArgs& a, Tensor& out) {
    auto ts = a.tensorList(0);
    int64_t dim = a.toInt(1);
    int64_t nd = out.dim();
    if (dim < 0) dim += nd;
    int64_t start = 0;
    for (const auto& t : ts) {
        if (t.dtype() != out.dtype()) return false;
        if (t.dim() != nd) continue;  // legacy empty 1-D inputs are skipped
        copyInto(t, out, dim, start);
        start += t.shape()[static_cast<size_t>(dim)];
    }
    return true;
}

/// _chunk_cat(tensors, dim, num_chunks): each tensor zero-padded along dim to a multiple of
/// num_chunks, viewed as shape[:dim] + [num_chunks, -1], and the views concatenated along dim + 1
/// (what FSDP's gradient reduce-scatter copies into). The tensors share the dims before dim.
bool chunkCatInto(const OpArgs& a, Tensor& out) {
    auto ts = a.tensorList(0);
    const int64_t chunks = a.toInt(2);
    if (ts.empty() || chunks <= 0 || out.dim() < 2) return false;
    int64_t dim = a.toInt(1);
    if (dim < 0) dim += ts[0].dim();
    const size_t d = static_cast<size_t>(dim);
    if (dim < 0 || dim >= ts[0].dim() || out.dim() != dim + 2) return false;
    const int64_t lead = kern::product(std::vector<int64_t>(ts[0].shape().begin(), ts[0].shape().begin() + dim));
    const int64_t width = out.shape()[d + 1];
    std::vector<double> r(static_cast<size_t>(out.numel()), 0.0);
    int64_t col = 0;
    for (const Tensor& t : ts) {
        if (t.dim() <= dim || t.dtype() != out.dtype()) return false;
        const int64_t n = t.shape()[d];
        const int64_t trail = kern::product(std::vector<int64_t>(t.shape().begin() + dim + 1, t.shape().end()));
        const int64_t per = (n + chunks - 1) / chunks * trail;  // one chunk's columns
        if (t.numel() != lead * n * trail || col + per > width) return false;
        const auto v = kern::toDoubles(t);
        for (int64_t l = 0; l < lead; ++l)
            for (int64_t c = 0; c < chunks; ++c)
                for (int64_t j = 0; j < per; ++j) {
                    const int64_t e = c * per + j;  // flat position in the padded dim x trailing block
                    if (e >= n * trail) break;      // zero padding
                    r[static_cast<size_t>((l * chunks + c) * width + col + j)] =
                        v[static_cast<size_t>(l * n * trail + e)];
                }
        col += per;
    }
    if (col != width) return false;
    kern::fromDoubles(out, r);
    return true;
}

/// One output, computed by `f(args, out)`.
template <bool (*F)(const OpArgs&, Tensor&)>
bool oneOutput(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    return outs.size() == 1 && outs[0] && F(a, *outs[0]);
}

bool mmInto(const OpArgs& a, Tensor& out) {
    return a.tensor(0).dim() == 2 && gemmInto(a.tensor(0), a.tensor(1), nullptr, 0.0f, 1.0f, out);
}
bool bmmInto(const OpArgs& a, Tensor& out) {
    return a.tensor(0).dim() == 3 && gemmInto(a.tensor(0), a.tensor(1), nullptr, 0.0f, 1.0f, out);
}
bool addmmInto(const OpArgs& a, Tensor& out) {
    return a.tensor(1).dim() == 2 && gemmInto(a.tensor(1), a.tensor(2), &a.tensor(0), static_cast<float>(a.toDouble(3)),
                                              static_cast<float>(a.toDouble(4)), out);
}

/// t itself when contiguous, else a contiguous copy.
Tensor dense(const Tensor& t) {
    return t.meta.isContiguous() ? t : relayout(t, TensorMeta::contiguous(t.shape(), t.dtype(), t.meta.device));
}

/// A contiguous t seen with another shape of the same element count.
Tensor as(const Tensor& t, std::vector<int64_t> shape) {
    TensorMeta m = TensorMeta::contiguous(std::move(shape), t.dtype(), t.meta.device);
    m.offset = t.meta.offset;
    return t.view(m);
}

/// linear(input [..., K], weight [N, K], bias [N]?) = input @ weightᵀ + bias: one GEMM over the
/// input's rows (Dynamo-stage graphs keep linear; AOT's decompose it into addmm / mm).
bool linearInto(const OpArgs& a, Tensor& out) {
    // A strided input (a slice, x[:, 0]) is copied dense first: its rows then fold into M.
    const Tensor x = dense(a.tensor(0));
    const Tensor& w = a.tensor(1);
    if (x.dim() < 1 || w.dim() != 2 || !out.meta.isContiguous()) return false;
    const int64_t K = x.shape().back(), N = w.shape()[0];
    if (K <= 0 || w.shape()[1] != K) return false;
    const int64_t M = x.numel() / K;
    if (out.numel() != M * N) return false;
    TensorMeta xm = TensorMeta::contiguous({M, K}, x.dtype(), x.meta.device);
    xm.offset = x.meta.offset;
    TensorMeta wm = w.meta;
    wm.shape = {K, N};
    wm.strides = {w.meta.strides[1], w.meta.strides[0]};
    TensorMeta om = TensorMeta::contiguous({M, N}, out.dtype(), out.meta.device);
    om.offset = out.meta.offset;
    Tensor o2 = out.view(om);
    return gemmInto(x.view(xm), w.view(wm), a.isNone(2) ? nullptr : &a.tensor(2), 1.0f, 1.0f, o2);
}

/// t [..., R, C] seen with the batch dims `batch` (broadcast: stride 0 where t's dim is missing or
/// 1), then made dense: the operand of one batched GEMM.
Tensor broadcastBatch(const Tensor& t, const std::vector<int64_t>& batch) {
    const size_t nb = batch.size(), tb = static_cast<size_t>(t.dim() - 2);
    TensorMeta m = t.meta;
    m.shape = batch;
    m.strides.assign(nb, 0);
    for (size_t i = 0; i < nb; ++i) {
        if (i + tb < nb) continue;
        const size_t d = i + tb - nb;
        if (t.shape()[d] != 1) m.strides[i] = t.strides()[d];
    }
    for (size_t d = tb; d < static_cast<size_t>(t.dim()); ++d) {
        m.shape.push_back(t.shape()[d]);
        m.strides.push_back(t.strides()[d]);
    }
    return relayout(t.view(m), TensorMeta::contiguous(m.shape, t.dtype(), t.meta.device));
}

/// matmul(a, b) as Dynamo-stage graphs keep it, for the forms a GEMM takes: a [..., M, K] by a
/// matrix [K, N] (a's rows folded), or batch dims on both, broadcast against each other (one GEMM
/// per batch; capsule networks' W [1, 36, 5, 12, 8] @ u [B, 36, 1, 8, 1]); vectors are left to
/// the reference kernel.
bool matmulInto(const OpArgs& a, Tensor& out) {
    const Tensor& x = a.tensor(0);
    const Tensor& y = a.tensor(1);
    if (!out.meta.isContiguous() || x.dim() < 2 || y.dim() < 2) return false;
    const int64_t M = x.shape()[static_cast<size_t>(x.dim() - 2)], K = x.shape().back(), N = y.shape().back();
    if (K <= 0 || y.shape()[static_cast<size_t>(y.dim() - 2)] != K) return false;
    const Tensor xd = dense(x);
    if (y.dim() == 2) {
        const int64_t R = x.numel() / K;
        if (out.numel() != R * N) return false;
        Tensor o2 = as(out, {R, N});
        return gemmInto(as(xd, {R, K}), y, nullptr, 0.0f, 1.0f, o2);
    }
    const std::vector<int64_t> bx(x.shape().begin(), x.shape().end() - 2), by(y.shape().begin(), y.shape().end() - 2);
    auto batch = kern::broadcastShapes(bx, by);
    if (!batch) return false;
    int64_t B = 1;
    for (int64_t d : *batch) B *= d;
    if (out.numel() != B * M * N) return false;
    Tensor o3 = as(out, {B, M, N});
    if (bx == by) return gemmInto(as(xd, {B, M, K}), as(dense(y), {B, K, N}), nullptr, 0.0f, 1.0f, o3);
    return gemmInto(as(broadcastBatch(x, *batch), {B, M, K}), as(broadcastBatch(y, *batch), {B, K, N}), nullptr, 0.0f,
                    1.0f, o3);
}

/// baddbmm(self, batch1, batch2, beta, alpha): out[b] = beta * self[b] + alpha * batch1[b] @
/// batch2[b]; addbmm: out = beta * self + alpha * sum over b of the products. self broadcasts;
/// beta == 0 ignores it (NaN included), as PyTorch does.
bool batchedAddInto(const OpArgs& a, Tensor& out, bool reduceBatches) {
    const Tensor& b1 = a.tensor(1);
    const Tensor& b2 = a.tensor(2);
    if (b1.dim() != 3 || b2.dim() != 3 || !floatLike(b1.dtype()) || !floatLike(b2.dtype()) || !floatLike(out.dtype()))
        return false;
    const int64_t B = b1.shape()[0], M = b1.shape()[1], K = b1.shape()[2], N = b2.shape()[2];
    if (b2.shape()[0] != B || b2.shape()[1] != K) return false;
    const float beta = static_cast<float>(a.toDouble(3)), alpha = static_cast<float>(a.toDouble(4));
    const int64_t outBatches = reduceBatches ? 1 : B;
    std::vector<float> c(static_cast<size_t>(outBatches * M * N), 0.0f);
    if (beta != 0.0f) {
        std::vector<int64_t> shape = reduceBatches ? std::vector<int64_t>{M, N} : std::vector<int64_t>{B, M, N};
        auto sv = kern::toDoublesBroadcast(a.tensor(0), shape);
        for (size_t i = 0; i < c.size(); ++i) c[i] = beta * static_cast<float>(sv[i]);
    }
    for (int64_t bt = 0; bt < B; ++bt) {
        Mat ma = matOf(b1, bt), mb = matOf(b2, bt);
        float* C = c.data() + (reduceBatches ? 0 : bt * M * N);
        sgemm(M, N, K, alpha, ma.p, ma.rs, ma.cs, mb.p, mb.rs, mb.cs, 1.0f, C, N);
    }
    if (out.numel() != static_cast<int64_t>(c.size())) return false;
    kern::fromDoubles(out, std::vector<double>(c.begin(), c.end()));
    return true;
}
bool baddbmmInto(const OpArgs& a, Tensor& out) { return batchedAddInto(a, out, false); }
bool addbmmInto(const OpArgs& a, Tensor& out) { return batchedAddInto(a, out, true); }

}  // namespace

const std::vector<CpuExtern>& gemmExterns() {
    static const std::vector<CpuExtern> t = {
        {"mm", oneOutput<mmInto>},
        {"bmm", oneOutput<bmmInto>},
        {"addmm", oneOutput<addmmInto>},
        {"linear", oneOutput<linearInto>},
        {"matmul", oneOutput<matmulInto>},
        {"cat", oneOutput<catInto>},
        {"chunk_cat", oneOutput<chunkCatInto>},
        {"baddbmm", oneOutput<baddbmmInto>},
        {"addbmm", oneOutput<addbmmInto>},
    };
    return t;
}

const std::vector<const std::vector<CpuExtern>*>& namedExternParts() {
    static const std::vector<const std::vector<CpuExtern>*> parts = {
        &gemmExterns(),     &convExterns(),        &trainExterns(),         &attentionExterns(),
        &fallbackOpExterns(), &linalgExterns(),    &pointwiseExterns(),     &embeddingBagExterns(),
        &backwardOpExterns(), &gridSampleExterns(), &upsampleAaExterns()};
    return parts;
}

const CpuExtern* findCpuExtern(std::string_view name) {
    for (const auto* part : namedExternParts())
        for (const CpuExtern& x : *part)
            if (x.name == name) return &x;
    for (const auto* part : {&randomExternKernels(), &dataSizedExternKernels()})
        for (const CpuExtern& x : *part)
            if (x.name == name) return &x;
    return nullptr;
}

}  // namespace fxray::cg::cpu
