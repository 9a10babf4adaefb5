#include "codegen/lowering.h"

#include "exec/interpreter.h"
#include "exec/ops/copy_variants.h"
#include "exec/ops/inplace.h"
#include "ir/sym_expr.h"

#include <set>
#include <tuple>

namespace fxray::cg {

namespace {

Diagnostic nodeError(const Node& n, const Graph& g, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.node = n.name();
    d.file = g.sourceFile;
    d.line = n.sourceLine;
    return d;
}

int addBuffer(LoweredGraph& lg, const Node* origin, const TensorMeta& m, std::string name) {
    LNode b;
    b.id = static_cast<int>(lg.nodes.size());
    b.kind = LKind::Buffer;
    b.name = std::move(name);
    b.origin = origin;
    b.meta = m;
    lg.nodes.push_back(std::move(b));
    return lg.nodes.back().id;
}

/// A Pointwise LNode with no elements (the value of a node whose result is empty).
int emptyNode(LoweredGraph& lg, const Node& origin, TensorMeta m) {
    LNode e;
    e.id = static_cast<int>(lg.nodes.size());
    e.kind = LKind::Pointwise;
    e.name = origin.name() + ".empty";
    e.origin = &origin;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    m.offset = 0;
    const DType ct = computeType(m.dtype);
    e.meta = std::move(m);
    e.body = [ct](Loader&, const std::vector<Index>&) { return econst(0, ct); };
    lg.nodes.push_back(std::move(e));
    return lg.nodes.back().id;
}

/// Buffers for a value an opaque call or a pin produces.
LValue buffersFor(LoweredGraph& lg, const Node* origin, const Value& v, const std::string& name) {
    LValue r;
    if (v.isTensor()) {
        r.kind = LValue::Kind::Tensor;
        r.node = addBuffer(lg, origin, v.t.meta, name);
    } else if (v.isList()) {
        r.kind = LValue::Kind::List;
        r.isTuple = v.isTuple;
        for (size_t i = 0; i < v.list.size(); ++i)
            r.items.push_back(buffersFor(lg, origin, v.list[i], name + "." + std::to_string(i)));
    } else if (!v.isNone()) {
        r.kind = LValue::Kind::Other;
        r.other = v;
    }
    return r;
}

bool hasTensor(const Value& v) {
    if (v.isTensor()) return true;
    for (const auto& x : v.list)
        if (hasTensor(x)) return true;
    return false;
}

/// How a node without a rule of its own borrows one.
enum class Borrow : uint8_t { None, Inplace, Copy, InplaceView };

/// The op an in-place op (`add_` -> `add`) or a *_copy variant (`permute_copy` -> `permute`)
/// computes with, and how it borrows it (both take the same arguments at the same positions);
/// empty when there is none.
std::string borrowedName(const OpRegistry& r, const std::string& qualname, Borrow& how) {
    std::string f = qualname == "aten.copy_.default" ? std::string("aten.copy.default") : inplaceFunctionalOp(qualname);
    how = Borrow::Inplace;
    if (f.empty()) {
        f = copyVariantViewOp(qualname);
        how = Borrow::Copy;
    }
    if (f.empty()) {
        // An in-place view op (squeeze_, unsqueeze_, transpose_, t_) computes the view op's
        // value and only changes self's geometry. Other in-place ops registered beside their
        // functional form rather than in exec/ops/inplace.cpp's table (scatter_.value,
        // scatter_add_, ...) write the functional op's value into self, as the table's do.
        const OpInfo* self = r.find(qualname);
        const size_t dot = qualname.rfind('.');
        if (self && self->inplace && self->aliasesInput && dot != std::string::npos && dot > 0 &&
            qualname[dot - 1] == '_') {
            f = qualname.substr(0, dot - 1) + qualname.substr(dot);
            how = self->category == OpCategory::View ? Borrow::InplaceView : Borrow::Inplace;
        }
    }
    if (f.empty()) how = Borrow::None;
    return f;
}

/// The rule a node without one of its own borrows (borrowedName), and how.
std::pair<const LoweringRule*, Borrow> borrowedRule(const std::string& qualname) {
    Borrow how = Borrow::None;
    const std::string f = borrowedName(OpRegistry::instance(), qualname, how);
    if (f.empty()) return {nullptr, Borrow::None};
    const OpInfo* op = OpRegistry::instance().find(f);
    if (!op || !op->lowering) return {nullptr, Borrow::None};
    return {op->lowering, how};
}

/// The functional op of in-place node n (its first argument a node) when that op runs as an
/// extern kernel with the same arguments; null otherwise.
const OpInfo* inplaceExternOf(const Node& n) {
    if (n.args.empty() || !n.args[0].isNode()) return nullptr;
    // borrowedName also finds the in-place ops registered beside their functional form
    // (index_put_ in exec/ops/indexing.cpp), not only exec/ops/inplace.cpp's table.
    Borrow how = Borrow::None;
    const std::string f = borrowedName(OpRegistry::instance(), n.opName(), how);
    if (f.empty() || how != Borrow::Inplace || n.opName() == "aten.copy_.default") return nullptr;
    const OpInfo* op = OpRegistry::instance().find(f);
    return op && !op->externKernel.empty() ? op : nullptr;
}

bool holds(const LValue& v, int lnode) {
    if (v.kind == LValue::Kind::Tensor) return v.node == lnode;
    for (const auto& x : v.items)
        if (holds(x, lnode)) return true;
    return false;
}

/// True when PyTorch's in-place write into LNode `self` could be seen through another name: self
/// is a view (it writes into its base), a view aliases it, it is what a call returned (which may
/// alias the call's input), or a call that returns an alias of its input read it. Only unaliased
/// self is rebound.
bool selfIsAliased(const LoweredGraph& lg, int self) {
    if (lg.nodes[static_cast<size_t>(self)].kind == LKind::View) return true;
    for (const auto& n : lg.nodes)
        if (n.kind == LKind::View && n.base == self) return true;
    for (const auto& call : lg.calls) {
        const OpInfo* op = call.node->op();
        // An extern kernel writes a new buffer: its result aliases nothing when its op returns a
        // new tensor, or when it stands for an in-place op by that op's functional form
        // (referenceOp: index_put_ computed as index_put). A fallback's result may be its input.
        if (call.kind == OpaqueCall::Kind::Extern && (!call.referenceOp.empty() || (op && !op->aliasesInput))) continue;
        if (holds(call.result, self)) return true;
        if (!op || !op->aliasesInput) continue;
        for (const Node* in : call.inputs) {
            auto it = lg.values.find(in);
            if (it != lg.values.end() && holds(it->second, self)) return true;
        }
    }
    return false;
}

/// A copy variant's value: each tensor of the view op's value copied into a contiguous buffer.
LValue copiedValue(LowerCtx& c, const LValue& v, size_t& item) {
    if (v.kind == LValue::Kind::Tensor) {
        const TensorMeta& m = c.outMeta(item++);
        int src = v.node;
        return tensorValue(c.pointwise(TensorMeta::contiguous(m.shape, m.dtype, m.device), {src},
                                       [src](Loader& L, const std::vector<Index>& co) { return L.load(src, co); }));
    }
    LValue r = v;
    for (auto& x : r.items) x = copiedValue(c, x, item);
    return r;
}

}  // namespace

const std::vector<LoweringRule>& loweringRuleTable() {
    static const std::vector<LoweringRule> t = [] {
        std::map<std::string, LowerFn> m;
        addPointwiseLowerings(m);
        addViewLowerings(m);
        addReductionLowerings(m);
        addNormLowerings(m);
        addMathLowerings(m);
        addShapeLowerings(m);
        addScanLowerings(m);
        addScatterLowerings(m);
        addPoolLowerings(m);
        addLossLowerings(m);
        addMutationLowerings(m);
        addUpsampleLowerings(m);
        addRnnLowerings(m);
        std::vector<LoweringRule> v;
        for (auto& [op, fn] : m) v.push_back({op, fn});
        return v;
    }();
    return t;
}

Status attachLowerings(OpRegistry& r, const std::vector<LoweringRule>& rules,
                       const std::map<std::string, std::string>& externs) {
    for (const auto& rule : rules) {
        auto e = r.entryFor("the lowering rules (codegen/lower_*.cpp)", rule.qualname);
        if (!e.ok()) return e.error();
        (*e)->lowering = &rule;
    }
    for (const auto& [op, kernel] : externs) {
        auto e = r.entryFor("the extern kernels (codegen/lowering.cpp)", op);
        if (!e.ok()) return e.error();
        (*e)->externKernel = kernel;
    }
    return Status::success();
}

const OpInfo* borrowedOpOf(const OpRegistry& r, const std::string& qualname) {
    Borrow how = Borrow::None;
    const std::string f = borrowedName(r, qualname, how);
    const OpInfo* op = f.empty() ? nullptr : r.find(f);
    if (!op) return nullptr;
    // Only in-place ops run their functional form's extern (inplaceExternOf).
    return op->lowering || (how == Borrow::Inplace && !op->externKernel.empty() && f != "aten.copy.default") ? op
                                                                                                             : nullptr;
}

const std::map<std::string, std::string>& externKernelNames() {
    // GEMMs and convolution run as extern kernels (see cpu/extern_kernels.cpp for the choice of
    // implementation); cat copies its inputs into slices of one buffer.
    static const std::map<std::string, std::string> m = {
        {"aten.mm.default", "mm"},
        {"aten.bmm.default", "bmm"},
        {"aten.addmm.default", "addmm"},
        {"aten.convolution.default", "conv"},
        {"aten.cat.default", "cat"},
        {"aten._chunk_cat.default", "chunk_cat"},
        {"aten.baddbmm.default", "baddbmm"},
        {"aten.addbmm.default", "addbmm"},
        // Scatters, windowed reductions with indices, training-mode batch norm and convolution
        // backward: compiled C++ kernels (cpu/extern_train.cpp), not generated loops.
        {"aten.embedding_dense_backward.default", "embedding_backward"},
        {"aten.index_add.default", "index_add"},
        {"aten.index_put.default", "index_put"},
        {"aten._unsafe_index_put.default", "index_put"},
        {"aten.max_pool2d_with_indices.default", "max_pool2d"},
        {"aten.max_pool2d_with_indices_backward.default", "max_pool2d_backward"},
        {"aten._native_batch_norm_legit_functional.default", "batch_norm_train"},
        {"aten.native_batch_norm.default", "batch_norm_update"},
        {"aten._native_batch_norm_legit.default", "batch_norm_update"},
        {"aten.cudnn_batch_norm.default", "batch_norm_update"},
        {"aten._batch_norm_with_update.default", "batch_norm_with_update"},
        {"aten.native_batch_norm_backward.default", "batch_norm_backward"},
        // Dynamo-stage batch_norm in training mode (evaluation mode is a lowering rule).
        {"aten.batch_norm.default", "batch_norm_composite"},
        {"aten.convolution_backward.default", "conv_backward"},
        // Fused attention (what fuse_attention puts into joint graphs): GEMMs around a row
        // softmax (cpu/extern_attention.cpp).
        {"aten._scaled_dot_product_efficient_attention.default", "sdpa_efficient"},
        {"aten._scaled_dot_product_efficient_attention_backward.default", "sdpa_efficient_backward"},
        {"aten.scaled_dot_product_attention.default", "sdpa"},
        {"aten._efficient_attention_forward.default", "efficient_attention_forward"},
        {"aten._efficient_attention_backward.default", "efficient_attention_backward"},
        {"aten._scaled_dot_product_cudnn_attention.default", "sdpa_cudnn"},
        {"aten._scaled_dot_product_cudnn_attention_backward.default", "sdpa_cudnn_backward"},
        // Composites as Dynamo-stage graphs keep them: linear is one GEMM over the input's rows,
        // matmul a GEMM, the convolutions aten.convolution's kernels.
        {"aten.linear.default", "linear"},
        {"aten.matmul.default", "matmul"},
        {"aten.conv1d.default", "conv1d"},
        {"aten.conv2d.default", "conv2d"},
        {"aten.conv3d.default", "conv3d"},
        {"aten.conv1d.padding", "conv1d"},
        {"aten.conv2d.padding", "conv2d"},
        {"aten.conv3d.padding", "conv3d"},
        {"aten.conv_transpose1d.input", "conv_transpose"},
        {"aten.conv_transpose2d.input", "conv_transpose"},
        {"aten.conv_transpose3d.input", "conv_transpose"},
        // Ops Inductor does not lower but runs as fallback kernels (make_fallback): sorting,
        // adaptive max pooling, segment reductions and histc (cpu/extern_fallback_ops.cpp).
        {"aten.sort.default", "sort"},
        {"aten.sort.stable", "sort_stable"},
        {"aten.topk.default", "topk"},
        {"aten.adaptive_max_pool2d.default", "adaptive_max_pool"},
        {"aten.adaptive_max_pool3d.default", "adaptive_max_pool"},
        {"aten.adaptive_max_pool2d_backward.default", "adaptive_max_pool_backward"},
        {"aten.adaptive_max_pool3d_backward.default", "adaptive_max_pool_backward"},
        {"aten.max_pool3d_with_indices.default", "max_pool3d"},
        {"aten.max_pool3d_with_indices_backward.default", "max_pool3d_backward"},
        {"aten.fractional_max_pool2d.default", "fractional_max_pool"},
        {"aten.fractional_max_pool3d.default", "fractional_max_pool"},
        {"aten.fractional_max_pool2d_backward.default", "fractional_max_pool_backward"},
        {"aten.fractional_max_pool3d_backward.default", "fractional_max_pool_backward"},
        {"aten.segment_reduce.default", "segment_reduce"},
        {"aten.histc.default", "histc"},
        {"aten._segment_reduce_backward.default", "segment_reduce_backward"},
        // Linear algebra Inductor leaves to LAPACK (cpu/extern_linalg.cpp).
        {"aten.triangular_solve.default", "triangular_solve"},
        {"aten._linalg_slogdet.default", "slogdet"},
        {"aten.linalg_matrix_exp.default", "matrix_exp"},
        {"aten._linalg_svd.default", "svd"},
        {"aten.linalg_pinv.atol_rtol_tensor", "pinv"},
        {"aten.linalg_lu_solve.default", "lu_solve"},
        // Data-dependent writes by index, as index_put above (cpu/extern_fallback_ops.cpp).
        {"aten.put.default", "put"},
        {"aten.masked_select.default", "masked_select"},
        // masked_scatter's rules count the mask quadratically: large ones run as extern kernels
        // (a device scan on CUDA, a loop on the CPU).
        {"aten.masked_scatter.default", "masked_scatter"},
        {"aten.masked_scatter_backward.default", "masked_scatter_backward"},
        // index.Tensor's rule gathers by integer indices; a boolean mask (a data-dependent
        // length) runs as an extern kernel.
        {"aten.index.Tensor", "index_by_mask"},
        {"aten._unsafe_masked_index_put_accumulate.default", "masked_index_put_accumulate"},
        // copy_ the in-place rule cannot express as a new value (a write into a graph input or an
        // alias of one, which the caller sees): written in place (cpu/extern_fallback_ops.cpp).
        {"aten.copy_.default", "copy_into_input"},
        // Elementwise ops whose scalar function loops (Euclid, series to convergence): Inductor
        // falls back for gcd and calls a C++ helper for igamma (cpu/extern_pointwise.cpp).
        {"aten.gcd.default", "gcd"},
        {"aten.lcm.default", "lcm"},
        {"aten.igamma.default", "igamma"},
        {"aten.igammac.default", "igammac"},
        // _to_copy's rule declines complex outputs (the kernel IR has no complex values).
        {"aten._to_copy.default", "to_complex"},
        // Embedding bags: Inductor has no lowering and runs ATen's (cpu/extern_embedding_bag.cpp).
        {"aten._embedding_bag.default", "embedding_bag"},
        {"aten._embedding_bag_forward_only.default", "embedding_bag"},
        {"aten._embedding_bag_backward.default", "embedding_bag_backward"},
        {"aten._embedding_bag_per_sample_weights_backward.default", "embedding_bag_per_sample_weights_backward"},
        // Backwards Inductor falls back for (the margin losses, pdist), the norm backwards it
        // decomposes and fxray does not yet, and the storage-less zero tensor
        // (cpu/extern_backward_ops.cpp).
        {"aten.multi_margin_loss_backward.default", "multi_margin_loss_backward"},
        {"aten.multilabel_margin_loss_backward.default", "multilabel_margin_loss_backward"},
        {"aten._pdist_backward.default", "pdist_backward"},
        {"aten.native_group_norm_backward.default", "group_norm_backward"},
        {"aten._fused_rms_norm_backward.default", "rms_norm_backward"},
        {"aten._efficientzerotensor.default", "efficient_zero_tensor"},
        // Grid sampling Inductor runs as fallback kernels: the 3-D sampler and every backward, a
        // scatter into the corners each position read (cpu/extern_grid_sample.cpp).
        {"aten.grid_sampler_3d.default", "grid_sampler_3d"},
        {"aten.grid_sampler_2d_backward.default", "grid_sampler_backward"},
        {"aten.grid_sampler_3d_backward.default", "grid_sampler_backward"},
        {"aten.cudnn_grid_sampler_backward.default", "cudnn_grid_sampler_backward"},
        // Antialiased resampling: windows whose start and length vary per output position
        // (cpu/extern_upsample_aa.cpp).
        {"aten._upsample_bilinear2d_aa.default", "upsample_bilinear2d_aa"},
        {"aten._upsample_bilinear2d_aa_backward.default", "upsample_bilinear2d_aa_backward"},
    };
    return m;
}

LValue tensorValue(int lnode) {
    LValue v;
    v.kind = LValue::Kind::Tensor;
    v.node = lnode;
    return v;
}

const TensorMeta& LowerCtx::outMeta(size_t i) const {
    if (m_out.isTensor()) return m_out.t.meta;
    return m_out.list[i].t.meta;
}

int LowerCtx::in(size_t i) const {
    if (i >= m_argOf.size() || !m_argOf[i] || !m_argOf[i]->isNode()) return -1;
    auto it = m_lg.values.find(m_argOf[i]->node);
    if (it == m_lg.values.end() || it->second.kind != LValue::Kind::Tensor) return -1;
    return it->second.node;
}

std::vector<int> LowerCtx::inList(size_t i) const {
    std::vector<int> r;
    if (i >= m_argOf.size() || !m_argOf[i]) return r;
    for (const auto& item : m_argOf[i]->items) {
        if (!item.isNode()) return {};
        auto it = m_lg.values.find(item.node);
        if (it == m_lg.values.end() || it->second.kind != LValue::Kind::Tensor) return {};
        r.push_back(it->second.node);
    }
    return r;
}

int LowerCtx::pointwise(TensorMeta m, std::vector<int> inputs, BodyFn body, std::string suffix) {
    LNode n;
    n.id = static_cast<int>(m_lg.nodes.size());
    n.kind = LKind::Pointwise;
    n.name = m_node.name() + suffix;
    n.origin = &m_node;
    n.meta = std::move(m);
    if (n.meta.strides.size() != n.meta.shape.size()) n.meta.strides = TensorMeta::contiguousStrides(n.meta.shape);
    n.meta.offset = 0;
    n.inputs = std::move(inputs);
    n.body = std::move(body);
    m_lg.nodes.push_back(std::move(n));
    return m_lg.nodes.back().id;
}

int LowerCtx::reduction(TensorMeta m, int input, std::vector<int64_t> inShape, std::vector<bool> rmask, bool keepdim,
                        ReduceOp op, BodyFn body, std::vector<int> extraInputs, std::string suffix) {
    LNode n;
    n.id = static_cast<int>(m_lg.nodes.size());
    n.kind = LKind::Reduction;
    n.name = m_node.name() + suffix;
    n.origin = &m_node;
    n.meta = std::move(m);
    n.meta.strides = TensorMeta::contiguousStrides(n.meta.shape);
    n.meta.offset = 0;
    if (input >= 0) n.inputs.push_back(input);
    n.inputs.insert(n.inputs.end(), extraInputs.begin(), extraInputs.end());
    n.inShape = std::move(inShape);
    n.rmask = std::move(rmask);
    n.keepdim = keepdim;
    n.rop = op;
    n.body = std::move(body);
    m_lg.nodes.push_back(std::move(n));
    return m_lg.nodes.back().id;
}

int LowerCtx::view(TensorMeta m, int base, ViewFn map, bool aliasing) {
    LNode n;
    n.id = static_cast<int>(m_lg.nodes.size());
    n.kind = LKind::View;
    n.name = m_node.name();
    n.origin = &m_node;
    n.meta = std::move(m);
    n.inputs = {base};
    n.base = base;
    n.viewMap = std::move(map);
    n.aliasing = aliasing;
    m_lg.nodes.push_back(std::move(n));
    return m_lg.nodes.back().id;
}

ExprP loadBroadcast(Loader& L, int lnode, const std::vector<int64_t>& inShape, const std::vector<Index>& outCoords) {
    std::vector<Index> c(inShape.size());
    size_t off = outCoords.size() - inShape.size();
    for (size_t d = 0; d < inShape.size(); ++d) c[d] = inShape[d] == 1 ? iconst(0) : outCoords[d + off];
    return L.load(lnode, c);
}

ExprP operand(LowerCtx& c, size_t i, Loader& L, const std::vector<Index>& coords, DType ct) {
    const Value& v = c.args()[i];
    if (v.isTensor()) {
        int id = c.in(i);
        return eto(loadBroadcast(L, id, c.meta(id).shape, coords), ct);
    }
    if (ct == DType::Bool) return econst(v.toDouble() != 0.0, DType::Bool);
    return econst(v.toDouble(), ct);
}

std::vector<Index> reshapeCoords(const std::vector<Index>& coords, const std::vector<int64_t>& to,
                                 const std::vector<int64_t>& from) {
    // An empty tensor has no element to map (and a size-0 dim would divide by zero below).
    for (const auto* shape : {&to, &from})
        for (int64_t d : *shape)
            if (d == 0) return std::vector<Index>(from.size(), iconst(0));
    auto st = TensorMeta::contiguousStrides(to);
    Index lin = iconst(0);
    for (size_t d = 0; d < coords.size(); ++d)
        if (to[d] != 1) lin = iadd(lin, imul(coords[d], st[d]));
    auto sf = TensorMeta::contiguousStrides(from);
    std::vector<Index> r(from.size());
    for (size_t d = 0; d < from.size(); ++d) r[d] = from[d] == 1 ? iconst(0) : imod(idiv(lin, sf[d]), from[d]);
    return r;
}

namespace {

/// Every tensor input holds data (a compile for real inputs, not for metadata only).
bool inputsCarryValues(const std::vector<Value>& inputs) {
    bool any = false;
    for (const auto& v : inputs)
        if (v.isTensor()) {
            if (!v.t.hasData()) return false;
            any = true;
        }
    return any;
}

/// One of the nodes meta inference left to their annotations has a size the data gives (an
/// unbacked symbol, u0, in its annotation). Not x.item()'s numbers ("Sym(zf0)"): a value taken
/// from that run would be compiled in as a constant.
bool unresolvedUnbacked(const Graph& g, const std::vector<std::string>& unresolved) {
    if (unresolved.empty()) return false;
    const std::set<std::string> names(unresolved.begin(), unresolved.end());
    for (const auto& n : g.nodes()) {
        if (!names.count(n->name())) continue;
        for (const auto& m : n->meta)
            for (const auto& d : m.symShape)
                if (d.isSymbolic() && sym::mentionsUnbacked(d.text())) return true;
    }
    return false;
}

/// x.item() of a 0-d floating tensor (a SymFloat, "Sym(zf0)", whose value meta inference does
/// not know) used only as Tensor operands of pointwise-style ops (`mul.Tensor(x, item)`, as the
/// Dynamo lowering writes `x * s.item()`), as pins for inference: the node takes the 0-d
/// tensor's metadata, its rule
/// (lower_views.cpp) makes it an alias, and its users broadcast the tensor. The number is then
/// read at run time. A 0-d tensor promotes as a Python float does against a floating tensor, so
/// only uses beside another floating tensor operand qualify.
std::map<std::string, Value> scalarsAsZeroDim(const Graph& g, std::map<const Node*, Value>& env) {
    std::map<std::string, Value> pins;
    for (const auto& up : g.nodes()) {
        const Node& n = *up;
        const std::string& op = n.opName();
        if (op != "aten._local_scalar_dense.default" && op != "aten.item.default") continue;
        if (n.args.size() != 1 || !n.args[0].isNode()) continue;
        const Value& in = env[n.args[0].node];
        const Value& cur = env[&n];
        if (!in.isTensor() || !in.t.meta.shape.empty() || !isFloating(in.t.meta.dtype) || cur.isNumber() ||
            cur.isTensor())
            continue;
        // Its users, read off the arguments (a graph fresh from a parser has no user lists yet).
        std::vector<const Node*> users;
        for (const auto& other : g.nodes()) {
            bool reads = false;
            for (const Node* src : other->inputNodes()) reads = reads || src == &n;
            if (reads) users.push_back(other.get());
        }
        bool ok = !users.empty();
        for (const Node* u : users) {
            const OpInfo* uop = u->op();
            if (!uop || u->kwargs.size() != 0) {
                ok = false;
                break;
            }
            bool otherFloatTensor = false;
            for (size_t i = 0; i < u->args.size() && ok; ++i) {
                const Argument& a = u->args[i];
                const std::string type = i < uop->schema.args.size() ? uop->schema.args[i].type : "";
                if (a.isNode() && a.node == &n)
                    ok = type == "Tensor";
                else if (a.isNode() && env[a.node].isTensor() && isFloating(env[a.node].t.meta.dtype))
                    otherFloatTensor = true;
            }
            ok = ok && otherFloatTensor;
            if (!ok) break;
        }
        if (ok) pins[n.name()] = Value::ofTensor(Tensor::metaOnly(in.t.meta));
    }
    return pins;
}

/// v with its tensors' data dropped (the metadata the lowering keeps per node).
Value metaOnlyValue(const Value& v) {
    if (v.isTensor()) return Value::ofTensor(Tensor::metaOnly(v.t.meta));
    if (v.isList()) {
        Value r = v;
        for (auto& it : r.list) it = metaOnlyValue(it);
        return r;
    }
    return v;
}

}  // namespace

Expected<LoweredGraph> lowerGraph(const Graph& g, const std::vector<Value>& inputMetas,
                                  const std::vector<std::string>& pinned, const std::vector<Value>* values) {
    LoweredGraph lg;
    // Shapes, dtypes and layouts as the reference executor's meta functions give them.
    std::map<const Node*, Value> env;
    {
        Interpreter meta(Interpreter::Mode::Meta, nullptr);
        meta.metaFallbackToAnnotation = true;
        meta.onNode = [&env](const Node& n, const Value& v) { env[&n] = v; };
        std::vector<Value> ins;
        for (const auto& v : inputMetas) {
            if (v.isTensor())
                ins.push_back(Value::ofTensor(Tensor::metaOnly(v.t.meta)));
            else
                ins.push_back(v);
        }
        auto r = meta.run(g, ins);
        if (!r.ok()) return r.error();
        // x.item() numbers that can stay 0-d tensors: inference runs again with them as such, so
        // that their users' shapes are computed rather than read off annotations.
        if (auto pins = scalarsAsZeroDim(g, env); !pins.empty()) {
            env.clear();
            Interpreter again(Interpreter::Mode::Meta, nullptr);
            again.metaFallbackToAnnotation = true;
            again.pins = std::move(pins);
            again.onNode = [&env](const Node& n, const Value& v) { env[&n] = v; };
            auto r2 = again.run(g, ins);
            if (!r2.ok()) return r2.error();
        }
        // Ops whose output length the data gives (nonzero, masked_select, bincount: annotated
        // with an unbacked u0) have no meta without values, and their annotation has no length.
        // Given real inputs, the reference executor runs the graph once and its values fix those
        // lengths, and every length computed from them, for the compiled program.
        if (values && unresolvedUnbacked(g, meta.unresolvedNodes()) && inputsCarryValues(*values)) {
            ExecContext ctx;
            Interpreter exec(Interpreter::Mode::Execute, &ctx);
            std::map<const Node*, Value> real;
            exec.onNode = [&real](const Node& n, const Value& v) { real[&n] = metaOnlyValue(v); };
            if (exec.run(g, *values).ok()) env = std::move(real);
        }
    }
    // A multi-output op whose outputs only its input values size (_unique) has no meta and, being
    // a tuple, no annotation; its getitem users' annotations stand for its outputs, so that the
    // host call's results land in buffers the getitems read (they were left without a value and
    // fell back as "operator.getitem", which no kernel runs).
    {
        std::map<const Node*, std::vector<Value>> items;  // source -> its annotated items
        std::set<const Node*> other;                      // sources also read another way
        for (const auto& up : g.nodes()) {
            const Node& u = *up;
            const bool getitem = u.kind() == NodeKind::CallFunction && u.target() == "operator.getitem" &&
                                 u.args.size() == 2 && u.args[0].isNode() && u.args[1].kind == Argument::Kind::Int;
            if (getitem && u.args[1].i >= 0 && env[&u].isTensor()) {
                auto& list = items[u.args[0].node];
                const auto i = static_cast<size_t>(u.args[1].i);
                if (list.size() <= i) list.resize(i + 1);
                list[i] = env[&u];
                continue;
            }
            for (const Node* in : u.inputNodes()) other.insert(in);
        }
        for (auto& [src, list] : items) {
            Value& v = env[src];
            if (v.isNone() && !other.count(src)) v = Value::ofList(std::move(list), true);
        }
    }
    std::set<std::string> pinSet(pinned.begin(), pinned.end());

    auto makeCall = [&](const Node& n, OpaqueCall::Kind kind, std::string fn) {
        OpaqueCall call;
        call.kind = kind;
        call.node = &n;
        call.fn = std::move(fn);
        for (Node* in : n.inputNodes()) {
            call.inputs.push_back(in);
            if (auto it = lg.values.find(in); it != lg.values.end()) call.inputValues[in] = it->second;
        }
        call.position = static_cast<int>(lg.nodes.size());
        call.result = buffersFor(lg, &n, env[&n], n.name());
        lg.values[&n] = call.result;
        if (kind == OpaqueCall::Kind::Fallback) ++lg.fallbackOps[n.opName()];
        lg.calls.push_back(std::move(call));
    };

    for (const auto& up : g.nodes()) {
        const Node& n = *up;
        const Value& v = env[&n];
        lg.order.push_back(&n);
        switch (n.kind()) {
        case NodeKind::Placeholder: {
            LValue lv;
            if (v.isTensor())
                lv = tensorValue(addBuffer(lg, &n, v.t.meta, n.name()));
            else if (!v.isNone())
                lv.kind = LValue::Kind::Other, lv.other = v;
            lg.inputNodes.push_back(lv.kind == LValue::Kind::Tensor ? lv.node : -1);
            lg.values[&n] = lv;
            continue;
        }
        case NodeKind::Output:
            for (const auto& a : g.outputs()) {
                if (a.isNode())
                    lg.outputs.push_back(lg.values[a.node]);
                else
                    lg.outputs.push_back(LValue{});
            }
            continue;
        case NodeKind::GetAttr: {
            if (g.constants.count(n.target()) && v.isTensor()) {
                int id = addBuffer(lg, &n, v.t.meta, n.name());
                lg.constants[id] = n.target();
                lg.values[&n] = tensorValue(id);
            } else {
                LValue lv;
                lv.kind = LValue::Kind::Other;
                lv.other = v;
                lg.values[&n] = lv;
            }
            continue;
        }
        default: break;
        }
        if (pinSet.count(n.name())) {
            LValue lv = buffersFor(lg, &n, v, n.name());
            if (lv.kind == LValue::Kind::Tensor) lg.pinned[lv.node] = n.name();
            lg.values[&n] = lv;
            continue;
        }
        if (n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem" && n.args.size() == 2 &&
            n.args[0].isNode() && n.args[1].kind == Argument::Kind::Int) {
            const LValue& seq = lg.values[n.args[0].node];
            int64_t i = n.args[1].i;
            if (seq.kind == LValue::Kind::List) {
                if (i < 0) i += static_cast<int64_t>(seq.items.size());
                if (i < 0 || i >= static_cast<int64_t>(seq.items.size()))
                    return nodeError(n, g, "getitem index out of range");
                lg.values[&n] = seq.items[static_cast<size_t>(i)];
                continue;
            }
        }
        if (!hasTensor(v) && !v.isNone() && n.kind() == NodeKind::CallFunction &&
            n.opName().rfind("higher_order.", 0) != 0) {
            // Shape arithmetic on static sizes: known now.
            LValue lv;
            lv.kind = LValue::Kind::Other;
            lv.other = v;
            lg.values[&n] = lv;
            continue;
        }
        const OpInfo* op = n.op();
        if (op) {
            // The entry names the op's lowering rule and extern kernel (attached at assembly).
            const LoweringRule* rule = op->lowering;
            Borrow how = Borrow::None;
            if (!rule) std::tie(rule, how) = borrowedRule(n.opName());
            if (rule) {
                std::vector<Value> args;
                for (const auto& a : n.args) args.push_back(argumentValue(a, env));
                std::vector<std::pair<std::string, Value>> kwargs;
                for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, argumentValue(a, env));
                auto bound = bindArgs(*op, std::move(args), std::move(kwargs));
                if (!bound.ok()) return nodeError(n, g, bound.error().message);
                std::vector<const Argument*> argOf(op->schema.args.size(), nullptr);
                for (size_t i = 0; i < n.args.size() && i < argOf.size(); ++i) argOf[i] = &n.args[i];
                for (const auto& [k, a] : n.kwargs) {
                    int idx = op->schema.indexOf(k);
                    if (idx >= 0) argOf[static_cast<size_t>(idx)] = &a;
                }
                LowerCtx ctx(lg, n, *bound, v, argOf);
                size_t before = lg.nodes.size();
                auto lv = rule->fn(ctx);
                if (lv && how == Borrow::Inplace) {
                    // The functional value replaces self for the nodes after this one (the ones
                    // before read self's LNode already); refused where an alias would see it.
                    int self = ctx.in(0);
                    if (lv->kind != LValue::Kind::Tensor || self < 0 || n.args.empty() || !n.args[0].isNode())
                        lv.reset();
                    else if (selfIsAliased(lg, self))
                        lv = writeThroughView(ctx, self, n.args[0].node, *lv);  // a scatter into the root, rebound
                    else
                        lg.values[n.args[0].node] = *lv;
                }
                if (lv && how == Borrow::InplaceView) {
                    // self is rebound to the new view whatever aliases it: other views keep
                    // their own geometry, as in PyTorch.
                    if (lv->kind != LValue::Kind::Tensor || n.args.empty() || !n.args[0].isNode())
                        lv.reset();
                    else
                        lg.values[n.args[0].node] = *lv;
                }
                if (lv && how == Borrow::Copy) {
                    size_t item = 0;
                    lv = copiedValue(ctx, *lv, item);
                }
                if (lv) {
                    lg.values[&n] = *lv;
                    continue;
                }
                lg.nodes.resize(before);  // a rule gave up half-way: drop what it made
            }
            if (v.isTensor() && v.t.meta.numel() == 0) {
                // Nothing to compute: an empty result is an empty kernel, whether the op has no
                // rule or its rule declined (rules guard their index arithmetic against empty
                // operands).
                lg.values[&n] = tensorValue(emptyNode(lg, n, v.t.meta));
                continue;
            }
            if (!op->externKernel.empty()) {
                makeCall(n, OpaqueCall::Kind::Extern, std::string(op->externKernel));
                continue;
            }
            // An in-place op whose functional form runs as an extern kernel (index_add_ ->
            // index_add): that kernel's value, a new buffer, replaces self for the nodes after
            // this one, as a borrowed rule's does (the calls before it read their snapshot of
            // self); where an alias would see self, the reference kernel writes it.
            if (const OpInfo* f = inplaceExternOf(n); f && v.isTensor()) {
                auto it = lg.values.find(n.args[0].node);
                const int self =
                    it != lg.values.end() && it->second.kind == LValue::Kind::Tensor ? it->second.node : -1;
                if (self >= 0 && !selfIsAliased(lg, self)) {
                    makeCall(n, OpaqueCall::Kind::Extern, std::string(f->externKernel));
                    lg.calls.back().referenceOp = f->qualname;
                    lg.values[n.args[0].node] = lg.values[&n];
                    continue;
                }
            }
        }
        makeCall(n, OpaqueCall::Kind::Fallback, {});
    }
    return lg;
}

const LValue* callInput(const LoweredGraph& lg, const OpaqueCall& call, const Node* n) {
    if (auto it = call.inputValues.find(n); it != call.inputValues.end()) return &it->second;
    auto it = lg.values.find(n);
    return it == lg.values.end() ? nullptr : &it->second;
}

Expected<std::vector<Value>> annotatedStaticInputs(const Graph& g, const std::string& backend) {
    std::vector<Value> r;
    for (const Node* ph : g.placeholders()) {
        if (ph->meta.empty()) {
            Diagnostic d = makeError("input '" + ph->name() + "' has no tensor annotation; give inputs");
            d.file = g.sourceFile;
            return d;
        }
        TensorMeta m = ph->meta[0];
        if (m.isSymbolic()) {
            Diagnostic d = makeError("input '" + ph->name() + "' has a symbolic shape; the " + backend +
                                     " backend compiles static shapes");
            d.file = g.sourceFile;
            return d;
        }
        if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
        r.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    return r;
}

}  // namespace fxray::cg
