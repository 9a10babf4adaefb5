// pad_mm: PyTorch's fx_passes/pad_mm.py. A matrix multiply (mm, bmm, addmm) on CUDA whose
// sizes are not multiples of the alignment (8 elements for fp16/bf16, 4 for fp32) gets its
// operands zero-padded with constant_pad_nd, the padded product computed, and the result sliced
// back: tensor-core GEMMs want aligned leading dimensions.
//
// Whether to pad follows PyTorch's can_pad / _should_pad: CUDA float operands, static non-zero
// sizes, some dimension misaligned (a size-1 dimension is never padded), and the product
// compute bound (arithmetic intensity above half the machine balance). PyTorch then times the
// original and the padded version on the GPU and pads only when the original is more than 1.1x
// slower. fxray cannot benchmark while compiling (it needs no GPU, and its output must not
// depend on a timing), so a time model stands in for the benchmark (estimateTimes): a roofline
// GEMM that runs at half speed when misaligned, plus for padding the copy kernels' memory
// traffic and one launch each. That launch cost is what decides small products: on the corpus
// model `pad_mm` (1023x1001x511 fp16, about 1 GFLOP, a microsecond of tensor-core time) two
// pad kernels cost more than the misalignment, and PyTorch's benchmark declined there too (its
// post-grad graphs keep the plain mm); large products (thousands in every dimension) are padded.
// The machine is an H200 (the corpus' GPU): 989 dense fp16/bf16 TFLOPS, 67 fp32 TFLOPS
// (TF32 off), 4.8 TB/s. The bf16 large-K rule (only for pre-Hopper GPUs) and the autoheuristic
// are not ported.
//
// Like PyTorch, which runs pad_mm, sfdp and misc patterns as one PatternMatcherPass walking the
// graph from the last node, attention's bmm's are claimed by fuse_attention first: the joint
// pipeline runs this pass after fuse_attention.
#include "ir/op_registry.h"
#include "rewrite/pattern_rewriter.h"
#include "rewrite/rewriter.h"
#include "rewrite/sym_meta_eq.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <unordered_set>

namespace fxray {

namespace {

using namespace passutil;

/// PyTorch's get_alignment_size_dtype.
int64_t alignmentOf(DType t) {
    if (t == DType::Float16 || t == DType::BFloat16) return 8;
    if (t == DType::Float32) return 4;
    return 0;
}

/// PyTorch's get_padded_length: symbolic, aligned and size-1 dims are not padded.
int64_t paddedLength(int64_t x, int64_t align) {
    if (align == 0 || x < 0 || x % align == 0 || x == 1) return 0;
    return (x / align + 1) * align - x;
}

/// The GPU the cost rule assumes (see the file comment).
struct DeviceModel {
    double halfTflops = 989.4;
    double fp32Tflops = 66.9;
    double dramGbps = 4800.0;
};

/// PyTorch's is_mm_compute_bound (its bf16 pre-Hopper exception does not apply to an H200).
bool computeBound(int64_t M, int64_t K, int64_t N, DType dt, double* intensity, double* balance) {
    const DeviceModel dev;
    const double m = double(M), k = double(K), n = double(N);
    const double denom = m * k + n * k + m * n;
    if (denom == 0) return false;
    *intensity = m * n * k / denom;
    const double tflops = dt == DType::Float32 ? dev.fp32Tflops : dev.halfTflops;
    *balance = 0.5 * (1000.0 * tflops) / dev.dramGbps;
    return *intensity > *balance;
}

/// Estimated times in microseconds of the original and the padded product (the stand-in for
/// PyTorch's do_bench of both). A GEMM takes the longer of its compute time at a realistic 70%
/// of peak and its memory time, halved in speed when a dimension is misaligned (no 16-byte
/// vector loads, no tensor-core tiles without predication); each pad copy reads and writes its
/// operand; every kernel pays a launch.
struct TimeEstimate {
    double originalUs = 0;
    double paddedUs = 0;
};
TimeEstimate estimateTimes(int64_t B, int64_t M, int64_t K, int64_t N, int64_t mpad, int64_t kpad, int64_t npad,
                           DType dt) {
    const DeviceModel dev;
    constexpr double kLaunchUs = 4.0;
    constexpr double kEfficiency = 0.7;
    constexpr double kMisalignedSlowdown = 2.0;
    const double item = dtypeItemSize(dt);
    const double tflops = dt == DType::Float32 ? dev.fp32Tflops : dev.halfTflops;
    auto gemmUs = [&](double m, double k, double n, bool aligned) {
        const double flops = 2.0 * double(B) * m * k * n;
        const double bytes = double(B) * (m * k + k * n + m * n) * item;
        const double compute = flops / (tflops * 1e12 * kEfficiency) * 1e6;
        const double memory = bytes / (dev.dramGbps * 1e9) * 1e6;
        return std::max(compute, memory) * (aligned ? 1.0 : kMisalignedSlowdown) + kLaunchUs;
    };
    auto copyUs = [&](double rows, double cols, double prow, double pcol) {
        const double bytes = double(B) * (rows * cols + (rows + prow) * (cols + pcol)) * item;
        return bytes / (dev.dramGbps * 1e9) * 1e6 + kLaunchUs;
    };
    const double m = double(M), k = double(K), n = double(N);
    TimeEstimate t;
    t.originalUs = gemmUs(m, k, n, false);
    t.paddedUs = gemmUs(m + double(mpad), k + double(kpad), n + double(npad), true);
    if (mpad || kpad) t.paddedUs += copyUs(m, k, double(mpad), double(kpad));
    if (kpad || npad) t.paddedUs += copyUs(k, n, double(kpad), double(npad));
    return t;
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

/// Whether a consumer reached through ops that alias their input is a view, which would need
/// the result's original (dense) strides.
bool viewDependsOnLayout(const Node* n) {
    std::deque<const Node*> q{n};
    std::unordered_set<const Node*> seen{n};
    while (!q.empty()) {
        const Node* x = q.front();
        q.pop_front();
        for (const Node* u : x->users) {
            if (!seen.insert(u).second) continue;
            const OpInfo* op = u->op();
            if (!op) continue;
            if (op->qualname == "aten.view.default" || op->qualname == "aten._unsafe_view.default" ||
                op->qualname == "aten.as_strided.default")
                return true;
            if (op->aliasesInput && !op->inplace) q.push_back(u);
        }
    }
    return false;
}

class PadMmPass : public Pass {
public:
    PadMmPass() {
        m_mm = declareStatistic("mm_pattern", "mm nodes padded");
        m_bmm = declareStatistic("bmm_pattern", "bmm nodes padded");
        m_addmm = declareStatistic("addmm_pattern", "addmm nodes padded");
    }
    std::string_view name() const override { return "pad_mm"; }
    std::string_view summary() const override {
        return "pad mm/bmm/addmm on misaligned CUDA sizes to the alignment (constant_pad_nd, then slice back) when "
               "compute bound and estimated 1.1x faster padded; PyTorch benchmarks both versions on the GPU instead, "
               "fxray estimates them (roofline GEMM, half speed misaligned, pad copies and launches)";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::vector<Node*> cands;
        for (const auto& n : g.nodes()) {
            std::string op = opOf(*n);
            if (op == "aten.mm.default" || op == "aten.bmm.default" || op == "aten.addmm.default")
                cands.push_back(n.get());
        }
        bool changed = false;
        // Last node first, as PatternMatcherPass.apply walks the graph.
        for (auto it = cands.rbegin(); it != cands.rend(); ++it) changed |= tryPad(*it, rw, ctx);
        return PassResult::success(changed);
    }

private:
    bool tryPad(Node* n, Rewriter& rw, PassContext& ctx) {
        const std::string op = opOf(*n);
        const bool bmm = op == "aten.bmm.default", addmm = op == "aten.addmm.default";
        const std::string rule = op == "aten.mm.default" ? "mm_pattern" : bmm ? "bmm_pattern" : "addmm_pattern";
        auto args = n->args;
        if (args.size() < (addmm ? 3u : 2u)) return false;
        const Argument& a1 = args[addmm ? 1 : 0];
        const Argument& a2 = args[addmm ? 2 : 1];
        if (!a1.isNode() || !a2.isNode()) return false;
        Node* mat1 = a1.node;
        Node* mat2 = a2.node;
        const TensorMeta *m1 = tensorMeta(*mat1), *m2 = tensorMeta(*mat2), *out = tensorMeta(*n);
        if (!m1 || !m2 || !out) return ctx.notifyMatchFailure(rule, *n, "operands have no tensor metadata");
        // can_pad: trivially inapplicable candidates (CPU, non-float) are not near-misses.
        if (m1->device.type != "cuda" || m2->device.type != "cuda") return false;
        if (!isFloating(m1->dtype) || !isFloating(m2->dtype)) return false;
        if (m1->isSymbolic() || m2->isSymbolic())
            return ctx.notifyMatchFailure(rule, *n, "symbolic sizes are not padded");
        const size_t rank = bmm ? 3 : 2;
        if (m1->shape.size() != rank || m2->shape.size() != rank) return false;
        for (int64_t d : m1->shape)
            if (d == 0) return ctx.notifyMatchFailure(rule, *n, "a zero-size dimension");
        for (int64_t d : m2->shape)
            if (d == 0) return ctx.notifyMatchFailure(rule, *n, "a zero-size dimension");
        const size_t o = bmm ? 1 : 0;
        const int64_t M = m1->shape[o], K = m1->shape[o + 1], N = m2->shape[o + 1];
        const int64_t mpad = paddedLength(M, alignmentOf(m1->dtype));
        const int64_t kpad = paddedLength(K, alignmentOf(m1->dtype));
        const int64_t npad = paddedLength(N, alignmentOf(m2->dtype));
        if (mpad == 0 && kpad == 0 && npad == 0) return false;
        double intensity = 0, balance = 0;
        if (!computeBound(M, K, N, m1->dtype, &intensity, &balance))
            return ctx.notifyMatchFailure(rule, *n,
                                          "memory bound: arithmetic intensity " + fmt(intensity) +
                                              " <= half the machine balance " + fmt(balance) +
                                              " (PyTorch pads only compute-bound products)");
        const int64_t batch = bmm ? m1->shape[0] : 1;
        const TimeEstimate est = estimateTimes(batch, M, K, N, mpad, kpad, npad, m1->dtype);
        // PyTorch pads when the original is more than 1.1x slower than the padded version.
        if (!(est.originalUs > 1.1 * est.paddedUs))
            return ctx.notifyMatchFailure(rule, *n,
                                          "padding does not pay: estimated " + fmt(est.paddedUs) +
                                              " us padded (copies and launches "
                                              "included) vs " +
                                              fmt(est.originalUs) + " us misaligned; PyTorch's benchmark needs 1.1x");
        if (npad != 0 && viewDependsOnLayout(n))
            return ctx.notifyMatchFailure(
                rule, *n, "a view of the result needs its dense strides; the sliced result has other strides");

        std::vector<Node*> created;
        const size_t eventsBefore = ctx.log().events.size();
        auto undo = [&](const Diagnostic& d) {
            for (auto c = created.rbegin(); c != created.rend(); ++c) rw.erase(*c);
            // The replacement was undone: its events describe nothing that happened.
            ctx.log().events.resize(eventsBefore);
            rw.setPattern("");
            return ctx.notifyMatchFailure(rule, *n, "replacement failed: " + d.str());
        };
        auto padList = [&](int64_t last, int64_t second) {
            std::vector<Argument> p = {Argument::ofInt(0), Argument::ofInt(last), Argument::ofInt(0),
                                       Argument::ofInt(second)};
            if (bmm) {
                p.push_back(Argument::ofInt(0));
                p.push_back(Argument::ofInt(0));
            }
            return Argument::ofList(std::move(p));
        };
        rw.setPattern(rule);
        Node* p1 = mat1;
        if (mpad || kpad) {
            auto r = rw.createOp(n, "aten.constant_pad_nd.default", {Argument::ofNode(mat1), padList(kpad, mpad)});
            if (!r.ok()) return undo(r.error());
            created.push_back(p1 = *r);
        }
        Node* p2 = mat2;
        if (kpad || npad) {
            auto r = rw.createOp(n, "aten.constant_pad_nd.default", {Argument::ofNode(mat2), padList(npad, kpad)});
            if (!r.ok()) return undo(r.error());
            created.push_back(p2 = *r);
        }
        std::vector<Argument> newArgs = args;
        newArgs[addmm ? 1 : 0] = Argument::ofNode(p1);
        newArgs[addmm ? 2 : 1] = Argument::ofNode(p2);
        if (addmm && args[0].isNode()) {
            // The bias broadcasts: only a dimension that is not 1 is padded (pad_addmm).
            Node* in = args[0].node;
            const TensorMeta* im = tensorMeta(*in);
            if (!im) return undo(makeError("the bias has no metadata"));
            int64_t padLast = 0, padFirst = 0;
            if (npad && im->dim() == 2 && im->shape[1] != 1) padLast = npad;
            if (npad && im->dim() == 1 && im->shape[0] != 1) padLast = npad;
            if (mpad && im->dim() == 2 && im->shape[0] != 1) padFirst = mpad;
            if (padLast || padFirst) {
                std::vector<Argument> p = {Argument::ofInt(0), Argument::ofInt(padLast)};
                if (im->dim() == 2) {
                    p.push_back(Argument::ofInt(0));
                    p.push_back(Argument::ofInt(padFirst));
                }
                auto r = rw.createOp(n, "aten.constant_pad_nd.default",
                                     {Argument::ofNode(in), Argument::ofList(std::move(p))});
                if (!r.ok()) return undo(r.error());
                created.push_back(*r);
                newArgs[0] = Argument::ofNode(*r);
            }
        }
        auto prod = rw.createOp(n, op, newArgs, n->kwargs);
        if (!prod.ok()) return undo(prod.error());
        created.push_back(*prod);
        Node* res = *prod;
        if (mpad) {
            auto r = rw.createOp(
                n, "aten.slice.Tensor",
                {Argument::ofNode(res), Argument::ofInt(int64_t(o)), Argument::ofInt(0), Argument::ofInt(-mpad)});
            if (!r.ok()) return undo(r.error());
            created.push_back(res = *r);
        }
        if (npad) {
            auto r = rw.createOp(
                n, "aten.slice.Tensor",
                {Argument::ofNode(res), Argument::ofInt(int64_t(o) + 1), Argument::ofInt(0), Argument::ofInt(-npad)});
            if (!r.ok()) return undo(r.error());
            created.push_back(res = *r);
        }
        const TensorMeta* rm = tensorMeta(*res);
        if (!rm || !sameSizes(*rm, *out) || rm->dtype != out->dtype)
            return undo(makeError("the padded product does not have the original's shape and dtype"));
        std::vector<std::string> newNames;
        for (Node* c : created) newNames.push_back(c->name());
        const std::string oldName = n->name();
        rw.replaceAllUsesWith(n, res);
        rw.erase(n);
        rw.setPattern("");
        refreshDownstreamMeta(res);
        ctx.recordMatch(rule, {oldName}, std::move(newNames));
        bump(bmm ? m_bmm : addmm ? m_addmm : m_mm);
        return true;
    }

    size_t m_mm = 0, m_bmm = 0, m_addmm = 0;
};

}  // namespace

std::unique_ptr<Pass> createPadMmPass() { return std::make_unique<PadMmPass>(); }

}  // namespace fxray
