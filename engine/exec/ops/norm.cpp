// Normalisation: layer norm, batch norm (all of ATen's flavours, cuDNN's and
// _batch_norm_with_update included) and group norm, forward and backward. Statistics are computed in double; saved statistics use PyTorch's "computation
// dtype" (f32 for f16/bf16 inputs) on accelerators and the input dtype on CPU, and batch norm's
// saved statistics in eval mode are empty on CPU, as torch/_decomp's native_batch_norm_helper
// has it (the inconsistency between CPU and CUDA kernels is PyTorch's own).
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

/// torch._prims_common.get_computation_dtype.
DType computationDtype(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

/// Dtype of saved statistics: accumulate type on accelerators, the input's dtype on CPU.
DType statsDtype(const TensorMeta& input) {
    return input.device.type == "cpu" ? input.dtype : computationDtype(input.dtype);
}

// ----- layer norm -----------------------------------------------------------------------------

struct LnShape {
    int64_t axis = 0, M = 0, N = 0;
};

Expected<LnShape> layerNormShape(const OpArgs& a, const Tensor& in, const std::vector<int64_t>& ns, const Tensor* w,
                                 const Tensor* b) {
    const int64_t nd = in.dim(), k = static_cast<int64_t>(ns.size());
    bool ok = k >= 1 && k <= nd;
    for (int64_t i = 0; ok && i < k; ++i) ok = in.shape()[nd - k + i] == ns[i];
    if (!ok)
        return opError(a, "given normalized_shape=" + shapeStr(ns) + ", expected input with shape [*, " +
                              shapeStr(ns).substr(1) + ", but got input of size " + shapeStr(in.shape()));
    for (const Tensor* t : {w, b})
        if (t && t->shape() != ns)
            return opError(a, "expected weight and bias of shape " + shapeStr(ns) + ", got " + shapeStr(t->shape()));
    LnShape s;
    s.axis = nd - k;
    s.N = product(ns);
    s.M = product(std::vector<int64_t>(in.shape().begin(), in.shape().begin() + s.axis));
    return s;
}

Expected<Value> metaNativeLayerNorm(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto w = optTensor(a, 2);
    if (!w.ok()) return w.error();
    auto b = optTensor(a, 3);
    if (!b.ok()) return b.error();
    auto s = layerNormShape(a, **in, a.toIntList(1), *w, *b);
    if (!s.ok()) return s.error();
    const TensorMeta& im = (*in)->meta;
    TensorMeta out = TensorMeta::contiguous(im.shape, im.dtype, im.device);
    std::vector<int64_t> stat(im.shape.begin(), im.shape.begin() + s->axis);
    stat.resize(im.shape.size(), 1);
    TensorMeta st = TensorMeta::contiguous(stat, statsDtype(im), im.device);
    if (a.op().schema.name == "layer_norm") return metaValue(out);
    return metaTuple({out, st, st});
}

/// Layer norm over rows of N: output, per-row mean and rstd.
void layerNormRows(const std::vector<double>& x, const std::vector<double>* w, const std::vector<double>* b, int64_t M,
                   int64_t N, double eps, std::vector<double>& y, std::vector<double>& mean,
                   std::vector<double>& rstd) {
    y.resize(x.size());
    mean.assign(static_cast<size_t>(M), 0.0);
    rstd.assign(static_cast<size_t>(M), 0.0);
    for (int64_t m = 0; m < M; ++m) {
        const double* row = x.data() + m * N;
        double s = 0.0;
        for (int64_t j = 0; j < N; ++j) s += row[j];
        const double mu = N > 0 ? s / double(N) : 0.0;
        double v = 0.0;
        for (int64_t j = 0; j < N; ++j) v += (row[j] - mu) * (row[j] - mu);
        v = N > 0 ? v / double(N) : 0.0;
        const double r = 1.0 / std::sqrt(v + eps);
        mean[m] = mu;
        rstd[m] = r;
        for (int64_t j = 0; j < N; ++j) {
            double o = (row[j] - mu) * r;
            if (w) o *= (*w)[j];
            if (b) o += (*b)[j];
            y[m * N + j] = o;
        }
    }
}

Expected<Value> nativeLayerNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const std::vector<int64_t> ns = a.toIntList(1);
    const int64_t N = product(ns);
    const int64_t M = N == 0 ? 0 : in.numel() / N;
    std::vector<double> w, b, y, mean, rstd;
    if (!a.isNone(2)) w = toDoubles(a.tensor(2));
    if (!a.isNone(3)) b = toDoubles(a.tensor(3));
    layerNormRows(toDoubles(in), a.isNone(2) ? nullptr : &w, a.isNone(3) ? nullptr : &b, M, N, a.toDouble(4), y, mean,
                  rstd);
    if (a.op().schema.name == "layer_norm") return Value::ofTensor(makeTensor(out.t.meta, y));
    return fillTuple(out, {y, mean, rstd});
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight?, bias?, output_mask)
Expected<Value> metaLayerNormBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    for (size_t i : {3u, 4u}) {
        auto t = reqTensor(a, i);
        if (!t.ok()) return t.error();
    }
    auto w = optTensor(a, 5);
    if (!w.ok()) return w.error();
    auto b = optTensor(a, 6);
    if (!b.ok()) return b.error();
    auto s = layerNormShape(a, **in, a.toIntList(2), *w, *b);
    if (!s.ok()) return s.error();
    if ((*go)->shape() != (*in)->shape())
        return opError(a, "grad_out of shape " + shapeStr((*go)->shape()) + " does not match input " +
                              shapeStr((*in)->shape()));
    const auto mask = boolList(a, 7);
    if (mask.size() != 3) return opError(a, "output_mask must have 3 entries");
    const TensorMeta& im = (*in)->meta;
    std::optional<TensorMeta> gi, gw, gb;
    // torch/_decomp computes grad_input pointwise on operands cast with .to(computation dtype,
    // contiguous_format): a real cast (f16/bf16) makes them row-major, a no-op cast keeps their
    // layout. Its last step is (rstd / N) * inner: rstd ([leading dims, 1, ...], row-major) comes
    // first and so orders the leading dims among themselves (a transposed grad_out of
    // nn.MultiheadAttention's batch_first path still gives a row-major grad_input); inner (grad_out's
    // layout, the input's where that ties) orders the rest.
    if (mask[0]) {
        gi = TensorMeta::contiguous(im.shape, im.dtype, im.device);
        if (computationDtype(im.dtype) == im.dtype) {
            TensorMeta inner = *gi;
            inner.strides = pointwiseStrides(im.shape, {&(*go)->meta, &im});
            std::vector<int64_t> stat(im.shape.begin(), im.shape.begin() + s->axis);
            stat.resize(im.shape.size(), 1);
            const TensorMeta rstd = TensorMeta::contiguous(stat, im.dtype, im.device);
            gi->strides = pointwiseStrides(im.shape, {&rstd, &inner});
        }
    }
    if (mask[1] && *w) gw = TensorMeta::contiguous((*w)->shape(), (*w)->dtype(), im.device);
    if (mask[2] && *b) gb = TensorMeta::contiguous((*b)->shape(), (*b)->dtype(), im.device);
    return metaTuple({gi, gw, gb});
}

Expected<Value> layerNormBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(1);
    const int64_t N = product(a.toIntList(2));
    const int64_t M = N == 0 ? 0 : in.numel() / N;
    auto go = toDoubles(a.tensor(0));
    auto x = toDoubles(in);
    auto mean = toDoubles(a.tensor(3));
    auto rstd = toDoubles(a.tensor(4));
    if (static_cast<int64_t>(mean.size()) != M || static_cast<int64_t>(rstd.size()) != M)
        return opError(a, "mean and rstd must have " + std::to_string(M) + " elements");
    std::vector<double> w;
    if (!a.isNone(5)) w = toDoubles(a.tensor(5));
    std::vector<double> gi(x.size()), gw(static_cast<size_t>(N), 0.0), gb(static_cast<size_t>(N), 0.0);
    std::vector<double> xhat(static_cast<size_t>(N)), g(static_cast<size_t>(N));
    for (int64_t m = 0; m < M; ++m) {
        const double* xr = x.data() + m * N;
        const double* gr = go.data() + m * N;
        double sumG = 0.0, sumGX = 0.0;
        for (int64_t j = 0; j < N; ++j) {
            xhat[j] = (xr[j] - mean[m]) * rstd[m];
            g[j] = w.empty() ? gr[j] : gr[j] * w[j];
            sumG += g[j];
            sumGX += g[j] * xhat[j];
            gw[j] += gr[j] * xhat[j];
            gb[j] += gr[j];
        }
        // d_input = rstd / N * (N * g - sum(g) - xhat * sum(g * xhat))
        for (int64_t j = 0; j < N; ++j)
            gi[m * N + j] = rstd[m] / double(N) * (double(N) * g[j] - sumG - xhat[j] * sumGX);
    }
    return fillTuple(out, {gi, gw, gb});
}

// ----- batch norm -----------------------------------------------------------------------------

/// Which flavour of batch norm an OpInfo is; decides argument positions and outputs.
enum class Bn { LegitFunctional, LegitNoTraining, Legit, LegitNoStats, Native, BatchNorm, Cudnn, WithUpdate };

Bn bnKind(const OpArgs& a) {
    const auto& s = a.op().schema;
    if (s.name == "_native_batch_norm_legit_functional") return Bn::LegitFunctional;
    if (s.name == "_native_batch_norm_legit_no_training") return Bn::LegitNoTraining;
    if (s.name == "_native_batch_norm_legit") return s.overload == "no_stats" ? Bn::LegitNoStats : Bn::Legit;
    if (s.name == "native_batch_norm") return Bn::Native;
    if (s.name == "cudnn_batch_norm") return Bn::Cudnn;
    if (s.name == "_batch_norm_with_update") return Bn::WithUpdate;
    return Bn::BatchNorm;
}

/// Arguments of any batch norm flavour, normalised.
struct BnArgs {
    const Tensor* input = nullptr;
    const Tensor* weight = nullptr;
    const Tensor* bias = nullptr;
    const Tensor* runMean = nullptr;
    const Tensor* runVar = nullptr;
    bool training = false;
    double momentum = 0.1, eps = 1e-5;
};

Expected<BnArgs> bnArgs(const OpArgs& a) {
    const Bn k = bnKind(a);
    BnArgs r;
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    r.input = *in;
    auto w = optTensor(a, 1);
    if (!w.ok()) return w.error();
    r.weight = *w;
    auto b = optTensor(a, 2);
    if (!b.ok()) return b.error();
    r.bias = *b;
    size_t next = 3;
    if (k != Bn::LegitNoStats) {
        auto rm = optTensor(a, 3);
        if (!rm.ok()) return rm.error();
        auto rv = optTensor(a, 4);
        if (!rv.ok()) return rv.error();
        r.runMean = *rm;
        r.runVar = *rv;
        next = 5;
    }
    if (k == Bn::LegitNoTraining) {
        r.training = false;
    } else if (k == Bn::WithUpdate) {
        r.training = true;
    } else {
        r.training = a.toBool(next++);
    }
    r.momentum = a.toDouble(next++);
    r.eps = a.toDouble(next++);
    const TensorMeta& im = r.input->meta;
    if (im.dim() < 2)
        return opError(a, "expected an input with at least 2 dims (N, C, ...), got " + shapeStr(im.shape));
    const int64_t C = im.shape[1];
    for (const Tensor* t : {r.weight, r.bias, r.runMean, r.runVar})
        if (t && t->numel() != C)
            return opError(a, "weight, bias and running statistics must have " + std::to_string(C) +
                                  " elements (one per channel), got " + shapeStr(t->shape()));
    if (!r.training && (!r.runMean || !r.runVar))
        return opError(a, "running_mean and running_var must be given when training is False");
    return r;
}

Expected<Value> metaBatchNorm(const OpArgs& a) {
    auto p = bnArgs(a);
    if (!p.ok()) return p.error();
    const TensorMeta& im = p->input->meta;
    const int64_t C = im.shape[1];
    TensorMeta out = im;
    out.offset = 0;
    out.strides = stridesLike(im.shape, im);
    const Bn k = bnKind(a);
    if (k == Bn::BatchNorm) return metaValue(out);
    // Saved statistics: [C] when training or on an accelerator, [0] for CPU eval; cuDNN saves
    // nothing in eval mode on any device.
    const bool saved = p->training || (im.device.type != "cpu" && k != Bn::Cudnn);
    TensorMeta st = TensorMeta::contiguous({saved ? C : 0}, statsDtype(im), im.device);
    // cudnn_batch_norm and _batch_norm_with_update add cuDNN's reserve space: empty bytes here.
    if (k == Bn::Cudnn || k == Bn::WithUpdate)
        return metaTuple({out, st, st, TensorMeta::contiguous({0}, DType::UInt8, im.device)});
    if (k != Bn::LegitFunctional) return metaTuple({out, st, st});
    const DType comp = computationDtype(im.dtype);
    auto runMeta = [&](const Tensor* t) {
        DType dt = p->training ? promoteTypes(comp, t->dtype()) : comp;
        return TensorMeta::contiguous(t->shape(), dt, im.device);
    };
    return metaTuple({out, st, st, runMeta(p->runMean), runMeta(p->runVar)});
}

struct BnResult {
    std::vector<double> out, saveMean, saveRstd, newMean, newVar;
};

BnResult batchNormCompute(const BnArgs& p) {
    const auto& shape = p.input->shape();
    const int64_t N = shape[0], C = shape[1];
    const int64_t S = N * C == 0 ? 0 : p.input->numel() / (N * C);
    const int64_t count = N * S;
    auto x = toDoubles(*p.input);
    std::vector<double> w, b, rm, rv;
    if (p.weight) w = toDoubles(*p.weight);
    if (p.bias) b = toDoubles(*p.bias);
    if (p.runMean) rm = toDoubles(*p.runMean);
    if (p.runVar) rv = toDoubles(*p.runVar);
    BnResult r;
    r.out.resize(x.size());
    std::vector<double> mean(static_cast<size_t>(C)), rstd(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
        if (p.training) {
            double s = 0.0;
            for (int64_t n = 0; n < N; ++n)
                for (int64_t i = 0; i < S; ++i) s += x[(n * C + c) * S + i];
            const double mu = count > 0 ? s / double(count) : 0.0;
            double v = 0.0;
            for (int64_t n = 0; n < N; ++n)
                for (int64_t i = 0; i < S; ++i) {
                    const double d = x[(n * C + c) * S + i] - mu;
                    v += d * d;
                }
            const double biased = count > 0 ? v / double(count) : 0.0;
            mean[c] = mu;
            rstd[c] = 1.0 / std::sqrt(biased + p.eps);
            if (!rm.empty()) rm[c] = p.momentum * mu + (1.0 - p.momentum) * rm[c];
            if (!rv.empty()) {
                // The running variance takes the unbiased estimate (NaN for one value per
                // channel, as PyTorch's n / (n - 1) gives).
                const double unbiased = biased * (double(count) / double(count - 1));
                rv[c] = p.momentum * unbiased + (1.0 - p.momentum) * rv[c];
            }
        } else {
            mean[c] = rm[c];
            rstd[c] = 1.0 / std::sqrt(rv[c] + p.eps);
        }
        const double scale = rstd[c] * (w.empty() ? 1.0 : w[c]);
        const double shift = b.empty() ? 0.0 : b[c];
        for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < S; ++i) {
                const size_t e = static_cast<size_t>((n * C + c) * S + i);
                r.out[e] = (x[e] - mean[c]) * scale + shift;
            }
    }
    r.saveMean = std::move(mean);
    r.saveRstd = std::move(rstd);
    r.newMean = std::move(rm);
    r.newVar = std::move(rv);
    return r;
}

Expected<Value> batchNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = bnArgs(a);
    if (!p.ok()) return p.error();
    BnResult r = batchNormCompute(*p);
    const Bn k = bnKind(a);
    // The mutating flavours update the running statistics in place.
    if (p->training &&
        (k == Bn::Legit || k == Bn::Native || k == Bn::BatchNorm || k == Bn::Cudnn || k == Bn::WithUpdate)) {
        if (p->runMean) {
            Tensor t = *p->runMean;
            fromDoubles(t, r.newMean);
        }
        if (p->runVar) {
            Tensor t = *p->runVar;
            fromDoubles(t, r.newVar);
        }
    }
    if (k == Bn::BatchNorm) return Value::ofTensor(makeTensor(out.t.meta, r.out));
    const bool saved = out.list[1].t.numel() > 0;
    std::vector<double> sm = saved ? r.saveMean : std::vector<double>{};
    std::vector<double> sr = saved ? r.saveRstd : std::vector<double>{};
    if (k == Bn::Cudnn || k == Bn::WithUpdate) return fillTuple(out, {r.out, sm, sr, {}});
    if (k != Bn::LegitFunctional) return fillTuple(out, {r.out, sm, sr});
    return fillTuple(out, {r.out, sm, sr, r.newMean, r.newVar});
}

// native_batch_norm_backward(grad_out, input, weight?, running_mean?, running_var?, save_mean?,
//                            save_invstd?, train, eps, output_mask)
Expected<Value> metaBatchNormBackward(const OpArgs& a) {
    std::vector<const Tensor*> t(7);
    for (size_t i = 0; i < 7; ++i) {
        auto x = i < 2 ? reqTensor(a, i) : optTensor(a, i);
        if (!x.ok()) return x.error();
        t[i] = *x;
    }
    const TensorMeta& im = t[1]->meta;
    if (im.dim() < 2)
        return opError(a, "expected an input with at least 2 dims (N, C, ...), got " + shapeStr(im.shape));
    if (t[0]->shape() != im.shape)
        return opError(a,
                       "grad_out of shape " + shapeStr(t[0]->shape()) + " does not match input " + shapeStr(im.shape));
    const int64_t C = im.shape[1];
    const bool train = a.toBool(7);
    for (size_t i = 2; i < 7; ++i)
        if (t[i] && t[i]->numel() != C)
            return opError(a, "argument '" + a.op().schema.args[i].name + "' must have " + std::to_string(C) +
                                  " elements, got " + shapeStr(t[i]->shape()));
    if (train && (!t[5] || !t[6])) return opError(a, "save_mean and save_invstd are required when train is True");
    if (!train && (!t[3] || !t[4])) return opError(a, "running_mean and running_var are required when train is False");
    const auto mask = boolList(a, 9);
    if (mask.size() != 3) return opError(a, "output_mask must have 3 entries");
    const DType wdt = t[2] ? t[2]->dtype() : im.dtype;
    std::optional<TensorMeta> gi, gw, gb;
    if (mask[0]) {
        gi = TensorMeta::contiguous(im.shape, im.dtype, im.device);
        gi->strides = pointwiseStrides(im.shape, {&t[0]->meta, &im});
    }
    if (mask[1]) gw = TensorMeta::contiguous({C}, wdt, im.device);
    if (mask[2]) gb = TensorMeta::contiguous({C}, wdt, im.device);
    return metaTuple({gi, gw, gb});
}

Expected<Value> batchNormBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(1);
    const int64_t N = in.shape()[0], C = in.shape()[1];
    const int64_t S = N * C == 0 ? 0 : in.numel() / (N * C);
    const int64_t count = N * S;
    const bool train = a.toBool(7);
    const double eps = a.toDouble(8);
    auto go = toDoubles(a.tensor(0));
    auto x = toDoubles(in);
    std::vector<double> w;
    if (!a.isNone(2)) w = toDoubles(a.tensor(2));
    std::vector<double> mean, invstd;
    if (train) {
        mean = toDoubles(a.tensor(5));
        invstd = toDoubles(a.tensor(6));
    } else {
        mean = toDoubles(a.tensor(3));
        invstd = toDoubles(a.tensor(4));
        for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
    }
    std::vector<double> gi(x.size()), gw(static_cast<size_t>(C)), gb(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
        double sumG = 0.0, dot = 0.0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < S; ++i) {
                const size_t e = static_cast<size_t>((n * C + c) * S + i);
                sumG += go[e];
                dot += go[e] * (x[e] - mean[c]);
            }
        gw[c] = dot * invstd[c];
        gb[c] = sumG;
        const double scale = invstd[c] * (w.empty() ? 1.0 : w[c]);
        const double gradMean = count > 0 ? sumG / double(count) : 0.0;
        const double proj = count > 0 ? dot / double(count) * invstd[c] * invstd[c] : 0.0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < S; ++i) {
                const size_t e = static_cast<size_t>((n * C + c) * S + i);
                gi[e] = train ? (go[e] - (x[e] - mean[c]) * proj - gradMean) * scale : go[e] * scale;
            }
    }
    return fillTuple(out, {gi, gw, gb});
}

// ----- group norm -----------------------------------------------------------------------------

// native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out, mean [N, G], rstd [N, G])
// group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled) -> out
struct GnArgs {
    const Tensor* input = nullptr;
    const Tensor* weight = nullptr;
    const Tensor* bias = nullptr;
    int64_t N = 0, C = 0, HxW = 0, G = 1;
    double eps = 1e-5;
};

Expected<GnArgs> gnArgs(const OpArgs& a) {
    const bool native = a.op().schema.name == "native_group_norm";
    GnArgs g;
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    g.input = *in;
    auto w = optTensor(a, native ? 1 : 2);
    if (!w.ok()) return w.error();
    auto b = optTensor(a, native ? 2 : 3);
    if (!b.ok()) return b.error();
    g.weight = *w;
    g.bias = *b;
    const auto& s = g.input->shape();
    if (s.size() < 2) return opError(a, "expected an input with at least 2 dims (N, C, ...), got " + shapeStr(s));
    if (native) {
        g.N = a.toInt(3);
        g.C = a.toInt(4);
        g.HxW = a.toInt(5);
        g.G = a.toInt(6);
        g.eps = a.toDouble(7);
        if (g.N * g.C * g.HxW != g.input->numel())
            return opError(a,
                           "N * C * HxW does not match the input's " + std::to_string(g.input->numel()) + " elements");
    } else {
        g.G = a.toInt(1);
        g.eps = a.toDouble(4);
        g.N = s[0];
        g.C = s[1];
        g.HxW = g.N * g.C == 0 ? 0 : g.input->numel() / (g.N * g.C);
    }
    if (g.G <= 0 || g.C % g.G != 0)
        return opError(a, "expected number of channels " + std::to_string(g.C) + " to be divisible by num_groups " +
                              std::to_string(g.G));
    for (const Tensor* t : {g.weight, g.bias})
        if (t && t->numel() != g.C)
            return opError(a, "weight and bias must have " + std::to_string(g.C) + " elements, got " +
                                  shapeStr(t->shape()));
    return g;
}

Expected<Value> metaGroupNorm(const OpArgs& a) {
    auto g = gnArgs(a);
    if (!g.ok()) return g.error();
    const TensorMeta& im = g->input->meta;
    TensorMeta out = im;
    out.offset = 0;
    out.strides = stridesLike(im.shape, im);
    if (a.op().schema.name == "group_norm") return metaValue(out);
    // Unlike layer and batch norm, group norm saves its statistics in the input's dtype.
    TensorMeta st = TensorMeta::contiguous({g->N, g->G}, im.dtype, im.device);
    return metaTuple({out, st, st});
}

Expected<Value> groupNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto g = gnArgs(a);
    if (!g.ok()) return g.error();
    const int64_t per = g->C / g->G, span = per * g->HxW;
    auto x = toDoubles(*g->input);
    std::vector<double> w, b;
    if (g->weight) w = toDoubles(*g->weight);
    if (g->bias) b = toDoubles(*g->bias);
    std::vector<double> y(x.size()), mean(static_cast<size_t>(g->N * g->G)), rstd(mean.size());
    for (int64_t ng = 0; ng < g->N * g->G; ++ng) {
        const double* xs = x.data() + ng * span;
        double s = 0.0;
        for (int64_t i = 0; i < span; ++i) s += xs[i];
        const double mu = span > 0 ? s / double(span) : 0.0;
        double v = 0.0;
        for (int64_t i = 0; i < span; ++i) v += (xs[i] - mu) * (xs[i] - mu);
        const double r = 1.0 / std::sqrt((span > 0 ? v / double(span) : 0.0) + g->eps);
        mean[ng] = mu;
        rstd[ng] = r;
        for (int64_t i = 0; i < span; ++i) {
            const int64_t c = (ng % g->G) * per + i / g->HxW;
            double o = (xs[i] - mu) * r;
            if (!w.empty()) o *= w[c];
            if (!b.empty()) o += b[c];
            y[ng * span + i] = o;
        }
    }
    if (a.op().schema.name == "group_norm") return Value::ofTensor(makeTensor(out.t.meta, y));
    return fillTuple(out, {y, mean, rstd});
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group, output_mask)
Expected<Value> metaGroupNormBackward(const OpArgs& a) {
    std::vector<const Tensor*> t(5);
    for (size_t i = 0; i < 5; ++i) {
        auto x = i < 4 ? reqTensor(a, i) : optTensor(a, i);
        if (!x.ok()) return x.error();
        t[i] = *x;
    }
    const int64_t N = a.toInt(5), C = a.toInt(6), HxW = a.toInt(7), G = a.toInt(8);
    const TensorMeta& im = t[1]->meta;
    if (N * C * HxW != t[1]->numel())
        return opError(a, "N * C * HxW does not match the input's " + std::to_string(t[1]->numel()) + " elements");
    if (t[0]->shape() != im.shape)
        return opError(a,
                       "grad_out of shape " + shapeStr(t[0]->shape()) + " does not match input " + shapeStr(im.shape));
    if (G <= 0 || C % G != 0)
        return opError(a, "expected number of channels " + std::to_string(C) + " to be divisible by num_groups " +
                              std::to_string(G));
    for (size_t i = 2; i < 4; ++i)
        if (t[i]->numel() != N * G)
            return opError(a, "mean and rstd must have N * group = " + std::to_string(N * G) + " elements, got " +
                                  shapeStr(t[i]->shape()));
    if (t[4] && t[4]->numel() != C)
        return opError(a, "weight must have " + std::to_string(C) + " elements, got " + shapeStr(t[4]->shape()));
    const auto mask = boolList(a, 9);
    if (mask.size() != 3) return opError(a, "output_mask must have 3 entries");
    const DType wdt = t[4] ? t[4]->dtype() : im.dtype;
    std::optional<TensorMeta> gi, gw, gb;
    if (mask[0]) gi = TensorMeta::contiguous(im.shape, im.dtype, im.device);
    if (mask[1]) gw = TensorMeta::contiguous({C}, wdt, im.device);
    if (mask[2]) gb = TensorMeta::contiguous({C}, wdt, im.device);
    return metaTuple({gi, gw, gb});
}

Expected<Value> groupNormBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t N = a.toInt(5), C = a.toInt(6), HxW = a.toInt(7), G = a.toInt(8);
    const int64_t per = C / G, span = per * HxW;
    auto dy = toDoubles(a.tensor(0));
    auto x = toDoubles(a.tensor(1));
    auto mean = toDoubles(a.tensor(2));
    auto rstd = toDoubles(a.tensor(3));
    std::vector<double> w;
    if (!a.isNone(4)) w = toDoubles(a.tensor(4));
    std::vector<double> gi(x.size(), 0.0), gw(static_cast<size_t>(C), 0.0), gb(static_cast<size_t>(C), 0.0);
    for (int64_t ng = 0; ng < N * G; ++ng) {
        const int64_t base = ng * span;
        const double mu = mean[static_cast<size_t>(ng)], r = rstd[static_cast<size_t>(ng)];
        // With dy scaled by the channel weight (dyw) and xhat the normalised input:
        // dx = rstd * (dyw - mean(dyw) - xhat * mean(dyw * xhat)) over the group.
        double s1 = 0.0, s2 = 0.0;
        for (int64_t i = 0; i < span; ++i) {
            const int64_t c = (ng % G) * per + i / HxW;
            const size_t e = static_cast<size_t>(base + i);
            const double xhat = (x[e] - mu) * r;
            const double dyw = dy[e] * (w.empty() ? 1.0 : w[static_cast<size_t>(c)]);
            s1 += dyw;
            s2 += dyw * xhat;
            gw[static_cast<size_t>(c)] += dy[e] * xhat;
            gb[static_cast<size_t>(c)] += dy[e];
        }
        const double m1 = s1 / double(span), m2 = s2 / double(span);
        for (int64_t i = 0; i < span; ++i) {
            const int64_t c = (ng % G) * per + i / HxW;
            const size_t e = static_cast<size_t>(base + i);
            const double xhat = (x[e] - mu) * r;
            const double dyw = dy[e] * (w.empty() ? 1.0 : w[static_cast<size_t>(c)]);
            gi[e] = r * (dyw - m1 - xhat * m2);
        }
    }
    return fillTuple(out, {gi, gw, gb});
}

}  // namespace

void registerNormOps(OpRegistry& r) {
    r.add("aten.native_layer_norm.default",
          "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> "
          "(Tensor, Tensor, Tensor)",
          OpCategory::Other, metaNativeLayerNorm, nativeLayerNormKernel);
    r.add("aten.layer_norm.default",
          "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
          "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
          OpCategory::Other, metaNativeLayerNorm, nativeLayerNormKernel);
    r.add("aten.native_layer_norm_backward.default",
          "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
          "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaLayerNormBackward, layerNormBackwardKernel);

    r.add("aten._native_batch_norm_legit_functional.default",
          "_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, "
          "Tensor running_var, bool training, float momentum, float eps) -> "
          "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten._native_batch_norm_legit_no_training.default",
          "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, "
          "Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten._native_batch_norm_legit.default",
          "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
          "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten._native_batch_norm_legit.no_stats",
          "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, "
          "float momentum, float eps) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten.native_batch_norm.default",
          "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
          "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten.batch_norm.default",
          "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
          "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    // cuDNN's batch norm (what batch_norm and instance_norm call on CUDA) mutates the running
    // statistics in training mode although its schema does not say so.
    r.add("aten.cudnn_batch_norm.default",
          "cudnn_batch_norm(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
          "bool training, float exponential_average_factor, float epsilon) -> (Tensor, Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten._batch_norm_with_update.default",
          "_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
          "Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNorm, batchNormKernel);
    r.add("aten.native_batch_norm_backward.default",
          "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
          "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, "
          "bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaBatchNormBackward, batchNormBackwardKernel);

    r.add("aten.native_group_norm.default",
          "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, "
          "float eps) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaGroupNorm, groupNormKernel);
    r.add("aten.group_norm.default",
          "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
          "bool cudnn_enabled=True) -> Tensor",
          OpCategory::Other, metaGroupNorm, groupNormKernel);
    r.add("aten.native_group_norm_backward.default",
          "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
          "SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
          OpCategory::Other, metaGroupNormBackward, groupNormBackwardKernel);
}

}  // namespace fxray
