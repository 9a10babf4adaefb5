#include "codegen/cuda/cuda_source.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

namespace fxray::cg::cuda {

const std::string& cudaPrelude() {
    static const std::string s = R"(// fxray CUDA kernels (generated from the kernel IR)
typedef long long i64;
#define FX_INF_F __int_as_float(0x7f800000)
#define FX_NAN_F __int_as_float(0x7fc00000)
#define FX_INF_D __longlong_as_double(0x7ff0000000000000LL)
#define FX_NAN_D __longlong_as_double(0x7ff8000000000000LL)
__device__ __forceinline__ float fx_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short fx_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float fx_bf2f(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ __forceinline__ unsigned short fx_f2bf(float f) {
    unsigned b = __float_as_uint(f);
    if (f != f) return 0x7fc0;
    return (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
// NaN-propagating like torch.maximum / LLVM's llvm.maximum (fmaxf would drop NaNs).
template <class T> __device__ __forceinline__ T fx_max(T a, T b) { return (a != a) ? a : (b != b) ? b : (a > b ? a : b); }
template <class T> __device__ __forceinline__ T fx_min(T a, T b) { return (a != a) ? a : (b != b) ? b : (a < b ? a : b); }
__device__ __forceinline__ i64 fx_floordiv(i64 x, i64 y) { i64 q = x / y, r = x % y; return (r != 0 && ((x < 0) != (y < 0))) ? q - 1 : q; }
__device__ __forceinline__ i64 fx_mod(i64 x, i64 y) { i64 r = x % y; return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; }
__device__ __forceinline__ float fx_modf(float x, float y) { float r = fmodf(x, y); return (r != 0.0f && ((r < 0.0f) != (y < 0.0f))) ? r + y : r; }
__device__ __forceinline__ double fx_modd(double x, double y) { double r = fmod(x, y); return (r != 0.0 && ((r < 0.0) != (y < 0.0))) ? r + y : r; }
__device__ __forceinline__ i64 fx_ipow(i64 b, i64 e) { i64 r = 1; if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0); while (e) { if (e & 1) r *= b; b *= b; e >>= 1; } return r; }
struct FxSum { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; } };
struct FxProd { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; } };
struct FxMax { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return fx_max(a, b); } };
struct FxMin { template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return fx_min(a, b); } };
template <class T> __device__ __forceinline__ T fx_shfl_xor(T v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ bool fx_shfl_xor(bool v, int o) { return __shfl_xor_sync(0xffffffffu, (int)v, o) != 0; }
// Butterfly: every lane ends with the warp's result.
template <class T, class Op> __device__ __forceinline__ T fx_warp_all(T v, Op op) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, fx_shfl_xor(v, o));
    return v;
}
// Column reductions over W columns: thread t holds a partial result for column t % W of the
// block's tile; every thread ends with its column's result, combined in thread order
// (deterministic).
template <int W, class T, class Op> __device__ __forceinline__ T fx_col_all(T v, Op op) {
    __shared__ T sh[1024];
    const int c = threadIdx.x % W, n = blockDim.x / W;
    __syncthreads();
    sh[threadIdx.x] = v;
    __syncthreads();
    T x = sh[c];
    for (int i = 1; i < n; ++i) x = op(x, sh[i * W + c]);
    return x;
}
// Every thread of the block ends with the block's result (blockDim.x a multiple of 32).
template <class T, class Op> __device__ __forceinline__ T fx_block_all(T v, Op op, T ident) {
    __shared__ T sh[33];
    v = fx_warp_all(v, op);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads();
    if (lane == 0) sh[w] = v;
    __syncthreads();
    if (w == 0) {
        T x = lane < nw ? sh[lane] : ident;
        x = fx_warp_all(x, op);
        if (lane == 0) sh[32] = x;
    }
    __syncthreads();
    return sh[32];
}
)";
    return s;
}

namespace {

const char* ctype(DType t) {
    switch (t) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Bool: return "bool";
    default: return "i64";
    }
}

const char* storageType(DType t) {
    switch (t) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16:
    case DType::BFloat16: return "unsigned short";
    case DType::Bool:
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short";
    case DType::Int32: return "int";
    case DType::Int64: return "i64";
    default: return nullptr;
    }
}

std::string i64lit(int64_t v) {
    if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
    return std::to_string(v) + "LL";
}

std::string fplit(double v, DType t) {
    bool f32 = t == DType::Float32;
    if (std::isnan(v)) return f32 ? "FX_NAN_F" : "FX_NAN_D";
    if (std::isinf(v)) return std::string(v < 0 ? "(-" : "(") + (f32 ? "FX_INF_F" : "FX_INF_D") + ")";
    char buf[64];
    if (f32)
        std::snprintf(buf, sizeof buf, "%af", static_cast<double>(static_cast<float>(v)));
    else
        std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

std::string sanitize(const std::string& s) {
    std::string r;
    for (char ch : s) r += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
    return r;
}

bool isFp(DType t) { return t == DType::Float32 || t == DType::Float64; }

class Emitter {
public:
    Emitter(const Kernel& k, std::string fname) : K(k), m_name(std::move(fname)) {}

    Expected<std::string> emit(LaunchPlan& plan) {
        std::ostringstream sig;
        for (size_t i = 0; i < K.args.size(); ++i) {
            const char* st = storageType(K.args[i].dtype);
            if (!st)
                return makeError("CUDA codegen: kernel " + K.name + " argument '" + K.args[i].name + "' has dtype " +
                                 std::string(dtypeTorchName(K.args[i].dtype)) + ", which has no CUDA storage type");
            sig << (i ? ", " : "") << (K.args[i].written ? "" : "const ") << st << "* a" << i;
        }
        plan.name = m_name;
        int64_t outer = 1, inner = 1, total = 1;
        for (size_t d = 0; d < K.sizes.size(); ++d) {
            total *= K.sizes[d];
            (K.reduced.size() > d && K.reduced[d] ? inner : outer) *= K.sizes[d];
        }
        m_reduction = K.isReduction();
        if (!m_reduction) {
            plan.mode = LaunchPlan::Mode::Pointwise;
            plan.work = total;
            plan.threads = 256;
            if (vectorizable()) {
                m_vecVar = static_cast<int>(K.sizes.size()) - 1;
                plan.work = total / 4;
                plan.vector = 4;
            }
        } else if (columnReduction(outer, inner)) {
            plan.mode = LaunchPlan::Mode::ColumnReduce;
            plan.work = outer;
            splitRows(outer, inner);
            plan.rowsPerBlock = m_colRows;
            plan.threads = 32 * plan.rowsPerBlock;
            plan.columns = m_colWidth;
            plan.split = static_cast<int>(m_split);
        } else if (inner <= kWarpReduceMax) {
            plan.mode = LaunchPlan::Mode::WarpReduce;
            plan.work = outer;
            plan.threads = 256;
            plan.rowsPerBlock = 8;
        } else {
            plan.mode = LaunchPlan::Mode::BlockReduce;
            plan.work = outer;
            plan.threads = inner > 65536 ? 1024 : inner > 8192 ? 512 : 256;
        }
        m_block = plan.mode == LaunchPlan::Mode::BlockReduce;
        m_col = plan.mode == LaunchPlan::Mode::ColumnReduce;
        body << "extern \"C\" __global__ void __launch_bounds__(" << plan.threads << ") " << m_name << "(" << sig.str()
             << ") {\n";
        body << "    // " << K.name << ": sizes [";
        for (size_t d = 0; d < K.sizes.size(); ++d)
            body << (d ? ", " : "") << K.sizes[d] << (K.reduced.size() > d && K.reduced[d] ? "r" : "");
        body << "], nodes:";
        for (const auto& n : K.nodes) body << " " << n;
        body << "\n";
        if (!m_reduction && m_vecVar >= 0) {
            emitVectorLoop(total);
        } else if (!m_reduction) {
            body << "    for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < " << i64lit(total)
                 << "; q += (i64)gridDim.x * blockDim.x) {\n";
            m_indent = 2;
            decompose("q", [](size_t) { return true; });
            declareLocals();
            if (!K.phases.empty()) runStmts(K.phases[0].stmts, false);
            body << "    }\n}\n";
        } else {
            if (m_col) {
                // W neighbouring outer points per block (thread t takes point t % W and rows
                // t / W + k * threads / W). Threads past the end compute the last point again
                // (never stored) so that every thread reaches the block's barriers.
                const std::string w = std::to_string(m_colWidth);
                if (m_split > 1) emitSplitGlobals(outer);
                body << "    const int lane = threadIdx.x % " << w << ", wy = threadIdx.x / " << w << ";\n";
                if (m_split > 1) {
                    // This block's rows: part blockIdx.y of m_split, each a whole number of steps.
                    body << "    __shared__ int fx_last;\n";
                    body << "    const i64 rs = (i64)blockIdx.y * " << i64lit(m_chunk) << ", re = rs + "
                         << i64lit(m_chunk) << " < " << i64lit(inner) << " ? rs + " << i64lit(m_chunk) << " : "
                         << i64lit(inner) << ";\n";
                }
                body << "    for (i64 ob = (i64)blockIdx.x * " << w << "; ob < " << i64lit(outer)
                     << "; ob += (i64)gridDim.x * " << w << ") {\n";
                body << "        const bool live = ob + lane < " << i64lit(outer) << ";\n";
                body << "        const i64 o = live ? ob + lane : " << i64lit(outer - 1) << ";\n";
            } else if (m_block) {
                body << "    for (i64 o = blockIdx.x; o < " << i64lit(outer) << "; o += gridDim.x) {\n";
            } else {
                body << "    const int lane = threadIdx.x & 31;\n";
                body << "    for (i64 o = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); o < "
                     << i64lit(outer) << "; o += (i64)gridDim.x * (blockDim.x >> 5)) {\n";
            }
            m_indent = 2;
            decompose("o", [&](size_t d) { return !K.reduced[d]; });
            declareLocals();
            for (const auto& ph : K.phases) {
                if (!ph.inner) {
                    line("{");
                    ++m_indent;
                    runStmts(ph.stmts, true);
                    --m_indent;
                    line("}");
                    continue;
                }
                std::vector<int> reduced;
                for (const auto& st : ph.stmts)
                    if (st.kind == Stmt::Kind::Reduce) {
                        bool seen = false;
                        for (int r : reduced) seen = seen || r == st.id;
                        if (!seen) reduced.push_back(st.id);
                    }
                for (int a : reduced) line("acc" + std::to_string(a) + " = " + init(a) + ";");
                // NVRTC/cicc 13.0 crashes (SIGSEGV) optimising a short constant-step row loop whose
                // extent is not a multiple of the step, when its body splits the row by / and %
                // and recombines the parts in an index (wav2vec2's and DeBERTa's layer_norm
                // backward: 24 and 78 rows). An empty asm on the row hides its range from that
                // optimisation; short loops lose nothing by it.
                const int64_t step = m_col ? 32 * m_colRows / m_colWidth : 32;
                const bool opaqueRow =
                    !m_block && m_split == 1 && step > 0 && inner % step != 0 && inner / step < 64;
                const std::string rv = opaqueRow ? "r0" : "r";
                if (m_col && m_split > 1)
                    line("for (i64 r = rs + wy; r < re; r += " + std::to_string(step) + "LL) {");
                else if (m_col)
                    line("for (i64 " + rv + " = wy; " + rv + " < " + i64lit(inner) + "; " + rv +
                         " += " + std::to_string(step) + "LL) {");
                else
                    line("for (i64 " + rv + " = " + (m_block ? "threadIdx.x" : "lane") + "; " + rv + " < " +
                         i64lit(inner) + "; " + rv + " += " + (m_block ? "blockDim.x" : "32") + ") {");
                ++m_indent;
                if (opaqueRow) {
                    line("i64 r = r0;");
                    line("asm(\"\" : \"+l\"(r));");
                }
                decompose("r", [&](size_t d) { return K.reduced[d]; });
                runStmts(ph.stmts, false);
                --m_indent;
                line("}");
                for (int a : reduced) {
                    std::string acc = "acc" + std::to_string(a);
                    std::string fn = functor(K.accOps[static_cast<size_t>(a)]);
                    if (m_col)
                        line(acc + " = fx_col_all<" + std::to_string(m_colWidth) + ">(" + acc + ", " + fn + "());");
                    else if (m_block)
                        line(acc + " = fx_block_all(" + acc + ", " + fn + "(), (" +
                             ctype(K.accTypes[static_cast<size_t>(a)]) + ")(" + init(a) + "));");
                    else
                        line(acc + " = fx_warp_all(" + acc + ", " + fn + "());");
                }
                if (m_col && m_split > 1) emitSplitCombine(reduced, outer);
            }
            body << "    }\n}\n";
        }
        if (!m_error.empty()) return makeError(m_error);
        return body.str();
    }

private:
    // ----- float4 pointwise kernels ------------------------------------------------------------
    // Each thread computes 4 neighbouring points of the innermost dim (4 lanes, emitted one after
    // the other); fp32 loads and stores that are contiguous along that dim and 16-byte aligned
    // (the index is 4*q + lane plus multiples of 4: allocations are 512-byte aligned) become one
    // float4 access, everything else stays a scalar access per lane.

    static bool mentionsVar(const Index& i, int var) {
        for (const auto& [coef, at] : i->terms) {
            (void)coef;
            if (at.kind == IndexAtom::Kind::Value) return true;  // data-dependent: assume it does
            if (at.kind == IndexAtom::Kind::Var && at.var == var && at.extent > 1) return true;
            if ((at.kind == IndexAtom::Kind::FloorDiv || at.kind == IndexAtom::Kind::Mod) && mentionsVar(at.arg, var))
                return true;
        }
        return false;
    }

    /// index = 4k + var (var the innermost loop variable, coefficient 1), k free of var.
    bool vecIndex(const Index& i, int var) const {
        if (i->c % 4 != 0) return false;
        int unit = 0;
        for (const auto& [coef, at] : i->terms) {
            if (at.kind == IndexAtom::Kind::Var && at.var == var) {
                if (coef != 1) return false;
                ++unit;
                continue;
            }
            if (at.kind == IndexAtom::Kind::Value || coef % 4 != 0) return false;
            if ((at.kind == IndexAtom::Kind::FloorDiv || at.kind == IndexAtom::Kind::Mod) && mentionsVar(at.arg, var))
                return false;
        }
        return unit == 1;
    }

    template <typename F>
    static void visitLoads(const ExprP& e, F&& f) {
        if (!e) return;
        if (e->op == Op::Load) f(*e);
        for (const auto& a : e->args) visitLoads(a, f);
        if (e->index)
            for (const auto& [coef, at] : e->index->terms) {
                (void)coef;
                if (at.kind == IndexAtom::Kind::Value) visitLoads(at.value, f);
            }
    }

    /// A reduction whose innermost dim is kept (a sum over rows into columns: bias and LayerNorm
    /// weight gradients) with enough columns and rows: lanes take neighbouring columns, so that
    /// each warp's loads are one coalesced line per row, instead of one block per column reading
    /// it down with a stride. Few columns keep the block-per-column form (too few blocks else).
    /// FXRAY_CUDA_COLREDUCE=0 turns it off.
    bool columnReduction(int64_t outer, int64_t inner) {
        const char* env = std::getenv("FXRAY_CUDA_COLREDUCE");
        // Tile width: 32 columns (one 128-byte line per warp and row) down to 8 (four 32-byte
        // sectors per warp load, as efficient), so that fewer columns still make enough blocks.
        const int width = outer >= 4096 ? 32 : outer >= 2048 ? 16 : 8;
        if ((env && std::string(env) == "0") || K.sizes.empty() || K.reduced.size() != K.sizes.size() ||
            K.reduced.back() || K.sizes.back() < width || outer < kColumnReduceMinOuter || inner < 256)
            return false;
        m_colWidth = width;
        const int var = static_cast<int>(K.sizes.size()) - 1;
        bool coalesced = false;
        for (const auto& ph : K.phases)
            for (const auto& st : ph.stmts)
                if (ph.inner)
                    visitLoads(st.value, [&](const Expr& e) { coalesced = coalesced || unitStride(e.index, var); });
        if (coalesced) m_colRows = inner >= 1024 ? 32 : inner >= 512 ? 16 : 8;
        return coalesced;
    }

    /// Split rows (as Inductor's split reductions do): with few column tiles (384 columns are 48
    /// blocks of 8 on a 132-SM GPU) the rows are cut into m_split parts, one block per tile and
    /// part, 8 warps each. Each block leaves its partial result in a module-global workspace; the
    /// last block of a tile to finish (a counter per tile) combines the parts in part order, so
    /// the result does not depend on which block finished last, and runs the phases after the
    /// reduction. Only for one row loop followed by per-column phases: a second row loop would
    /// need the combined value in every part. FXRAY_CUDA_COLREDUCE=nosplit turns it off.
    void splitRows(int64_t outer, int64_t inner) {
        const char* env = std::getenv("FXRAY_CUDA_COLREDUCE");  // read each time: tests switch it
        const bool off = env && std::string(env) == "nosplit";
        m_split = 1;
        // With the rows cut, the tile need not be narrow to make enough blocks: 32 columns load
        // a whole 128-byte line per warp and row, where 8 columns load four 32-byte sectors of
        // four rows. (On an H200, widths 8 and 32 and 256..1024 blocks measured the same on ViT-S
        // and BERT backward, within 1%.)
        const int width = K.sizes.back() >= 32 && outer >= 32 ? 32 : m_colWidth;
        const int64_t tiles = (outer + width - 1) / width;
        int innerPhases = 0;
        bool afterInner = false, perColumnBefore = false;
        for (const auto& ph : K.phases) {
            if (ph.inner) {
                ++innerPhases;
                afterInner = true;
            } else if (!afterInner) {
                perColumnBefore = true;
            }
        }
        // ~1024 blocks of 256 threads fill an H100/H200 (132 SMs, 2048 threads each); a part
        // keeps at least 4 steps of rows so that the combine stays a small share.
        constexpr int64_t kTargetBlocks = 1024, minSteps = 4;
        const int64_t step = 256 / width;
        if (off || innerPhases != 1 || perColumnBefore || tiles >= 256 || inner < 8 * step ||
            K.sizes.back() < width)
            return;
        const int64_t want = std::min((kTargetBlocks + tiles - 1) / tiles, inner / (minSteps * step));
        if (want < 2) return;
        int64_t chunk = (inner + want - 1) / want;
        chunk = (chunk + step - 1) / step * step;
        if ((inner + chunk - 1) / chunk < 2) return;
        m_chunk = chunk;
        m_split = (inner + chunk - 1) / chunk;
        m_colRows = 8;
        m_colWidth = width;
    }

    std::string splitName(const std::string& what, size_t a) const {
        return m_name + "_" + what + std::to_string(a);
    }

    /// The workspace (one partial per part and column for each accumulator) and the per-tile
    /// counters, zero at module load; the last block puts its counter back to zero. They belong
    /// to the module: launches of it are ordered on the executor's stream, so two launches of
    /// one kernel never share them at once (a second stream would need its own workspace).
    void emitSplitGlobals(int64_t outer) {
        std::ostringstream g;
        const int64_t tiles = (outer + m_colWidth - 1) / m_colWidth;
        for (size_t a = 0; a < K.accTypes.size(); ++a)
            g << "__device__ " << ctype(K.accTypes[a]) << " " << splitName("ws", a) << "["
              << m_split * outer << "];\n";
        g << "__device__ unsigned " << m_name << "_cnt[" << tiles << "];\n";
        std::string head = body.str();
        body.str("");
        body << g.str() << head;
    }

    void emitSplitCombine(const std::vector<int>& reduced, int64_t outer) {
        const std::string w = std::to_string(m_colWidth);
        for (int a : reduced)
            line("if (wy == 0 && live) " + splitName("ws", static_cast<size_t>(a)) + "[(i64)blockIdx.y * " +
                 i64lit(outer) + " + o] = acc" + std::to_string(a) + ";");
        // The classic threadfence reduction: publish the partials, then count the part in.
        line("__threadfence();");
        line("__syncthreads();");
        line("if (threadIdx.x == 0) fx_last = atomicAdd(&" + m_name + "_cnt[ob / " + w + "], 1u) == " +
             std::to_string(m_split - 1) + "u;");
        line("__syncthreads();");
        line("if (!fx_last) continue;");
        line("__threadfence();");
        // The block's row groups share the parts (group wy takes parts wy, wy + groups, ...),
        // then combine as the row loop's partials do: a fixed order, so the same bits every run.
        const std::string groups = std::to_string(32 * m_colRows / m_colWidth);
        for (int a : reduced) {
            const std::string acc = "acc" + std::to_string(a);
            const DType t = K.accTypes[static_cast<size_t>(a)];
            const ReduceOp op = K.accOps[static_cast<size_t>(a)];
            const std::string ws = "((volatile " + std::string(ctype(t)) + "*)" + splitName("ws", static_cast<size_t>(a)) + ")";
            line(acc + " = " + init(a) + ";");
            line("for (int s = wy; s < " + std::to_string(m_split) + "; s += " + groups + ") " + acc + " = " +
                 combine(op, acc, ws + "[(i64)s * " + i64lit(outer) + " + o]", t) + ";");
            line(acc + " = fx_col_all<" + w + ">(" + acc + ", " + functor(op) + "());");
        }
        line("if (threadIdx.x == 0) " + m_name + "_cnt[ob / " + w + "] = 0u;");
    }

    /// index has the loop variable `var` with coefficient 1 (neighbouring points, neighbouring elements).
    static bool unitStride(const Index& i, int var) {
        if (!i) return false;
        for (const auto& [coef, at] : i->terms)
            if (at.kind == IndexAtom::Kind::Var && at.var == var && coef == 1) return true;
        return false;
    }

    bool vectorizable() const {
        static const bool off = [] {
            const char* v = std::getenv("FXRAY_CUDA_VEC");
            return v && std::string(v) == "0";
        }();
        if (off || K.sizes.empty() || K.phases.size() != 1 || K.phases[0].inner) return false;
        const int var = static_cast<int>(K.sizes.size()) - 1;
        const int64_t inner = K.sizes.back();
        if (inner < 4 || inner % 4 != 0) return false;
        std::vector<bool> loaded(K.args.size(), false);
        int vec = 0;
        for (const auto& st : K.phases[0].stmts) {
            visitLoads(st.value, [&](const Expr& e) {
                loaded[static_cast<size_t>(e.buf)] = true;
                vec += e.bufType == DType::Float32 && vecIndex(e.index, var);
            });
            if (st.kind == Stmt::Kind::Store) {
                visitLoads(eindex(st.index), [&](const Expr& e) { loaded[static_cast<size_t>(e.buf)] = true; });
                vec += K.args[static_cast<size_t>(st.buf)].dtype == DType::Float32 && vecIndex(st.index, var);
            }
        }
        // Stores are delayed to the end of the 4 lanes: a buffer read back in the kernel would
        // see stale values.
        for (size_t a = 0; a < K.args.size(); ++a)
            if (K.args[a].written && loaded[a]) return false;
        return vec > 0;
    }

    void emitVectorLoop(int64_t total) {
        const std::string v = "x" + std::to_string(m_vecVar);
        body << "    for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < " << i64lit(total / 4)
             << "; q += (i64)gridDim.x * blockDim.x) {\n";
        m_indent = 2;
        m_quad = true;
        decompose("q", [](size_t) { return true; });
        m_quad = false;
        for (int j = 0; j < 4; ++j)
            line("const i64 " + v + "_" + std::to_string(j) + " = " + v + " * 4LL + " + std::to_string(j) + "LL;");
        declareLocals();
        struct VecStore {
            int buf;
            Index index;
            std::string vals[4];
        };
        std::vector<VecStore> stores;
        const auto& stmts = K.phases[0].stmts;
        for (int j = 0; j < 4; ++j) {
            m_lane = j;
            memo.clear();
            size_t vs = 0;
            for (const auto& st : stmts) {
                if (st.kind == Stmt::Kind::Store && K.args[static_cast<size_t>(st.buf)].dtype == DType::Float32 &&
                    vecIndex(st.index, m_vecVar)) {
                    std::string val = ex(st.value);
                    if (j == 0) stores.push_back(VecStore{st.buf, st.index, {}});
                    stores[vs++].vals[j] = val;
                    continue;
                }
                runStmts({st}, false, false);
            }
        }
        m_lane = 0;
        for (const auto& s : stores) {
            std::string w = "w" + std::to_string(m_tmp++);
            line("float4 " + w + ";");
            line(w + ".x = " + s.vals[0] + "; " + w + ".y = " + s.vals[1] + "; " + w + ".z = " + s.vals[2] + "; " + w +
                 ".w = " + s.vals[3] + ";");
            line("*reinterpret_cast<float4*>(a" + std::to_string(s.buf) + " + (" + idx(s.index) + ")) = " + w + ";");
        }
        m_lane = -1;
        body << "    }\n}\n";
    }

    /// A Load in a vector kernel: a component of a float4 loaded in lane 0, or a scalar load.
    std::string vecLoad(const Expr& e) {
        static const char* comp[] = {"x", "y", "z", "w"};
        if (e.bufType != DType::Float32 || !vecIndex(e.index, m_vecVar)) return load(e.buf, e.bufType, e.index);
        auto it = m_vecLoads.find(&e);
        if (it == m_vecLoads.end()) {
            const int lane = m_lane;
            m_lane = 0;
            std::string base = idx(e.index);
            m_lane = lane;
            std::string r = "f" + std::to_string(m_tmp++);
            // Declared before lane 0's statements use it; later lanes read their component.
            line("const float4 " + r + " = *reinterpret_cast<const float4*>(a" + std::to_string(e.buf) + " + (" + base +
                 "));");
            it = m_vecLoads.emplace(&e, r).first;
        }
        return it->second + "." + comp[m_lane];
    }

    void line(const std::string& s) { body << std::string(static_cast<size_t>(m_indent) * 4, ' ') << s << "\n"; }

    /// Splits linear index `q` into the selected dims, innermost fastest.
    template <typename Sel>
    void decompose(const std::string& q, Sel selected) {
        std::vector<size_t> dims;
        for (size_t d = 0; d < K.sizes.size(); ++d)
            if (selected(d)) dims.push_back(d);
        std::string rest = q;
        for (size_t i = dims.size(); i-- > 0;) {
            size_t d = dims[i];
            std::string v = "x" + std::to_string(d);
            const int64_t size = m_quad && static_cast<int>(d) == m_vecVar ? K.sizes[d] / 4 : K.sizes[d];
            if (size == 1) {
                line("const i64 " + v + " = 0;");
                continue;
            }
            if (i == 0) {
                line("const i64 " + v + " = " + rest + ";");
                continue;
            }
            line("const i64 " + v + " = " + rest + " % " + i64lit(size) + ";");
            std::string next = "t" + q + std::to_string(i);
            line("const i64 " + next + " = " + rest + " / " + i64lit(size) + ";");
            rest = next;
        }
        for (size_t d : dims) body << std::string(static_cast<size_t>(m_indent) * 4, ' ') << "(void)x" << d << ";\n";
    }

    void declareLocals() {
        for (size_t a = 0; a < K.accTypes.size(); ++a)
            line(std::string(ctype(K.accTypes[a])) + " acc" + std::to_string(a) + " = " + init(static_cast<int>(a)) +
                 ";");
        for (size_t l = 0; l < K.letTypes.size(); ++l)
            line(std::string(ctype(K.letTypes[l])) + " let" + std::to_string(l) + ";");
    }

    std::string init(int acc) {
        DType t = K.accTypes[static_cast<size_t>(acc)];
        ReduceOp op = K.accOps[static_cast<size_t>(acc)];
        if (t == DType::Bool) return (op == ReduceOp::Min || op == ReduceOp::Prod) ? "true" : "false";
        if (isFp(t)) {
            double v = op == ReduceOp::Prod  ? 1.0
                       : op == ReduceOp::Max ? -INFINITY
                       : op == ReduceOp::Min ? INFINITY
                                             : 0.0;
            return fplit(v, t);
        }
        if (op == ReduceOp::Max) return i64lit(std::numeric_limits<int64_t>::min());
        if (op == ReduceOp::Min) return i64lit(std::numeric_limits<int64_t>::max());
        return op == ReduceOp::Prod ? "1LL" : "0LL";
    }

    static std::string functor(ReduceOp op) {
        switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Any: return "FxSum";
        case ReduceOp::Prod: return "FxProd";
        case ReduceOp::Max: return "FxMax";
        case ReduceOp::Min: return "FxMin";
        }
        return "FxSum";
    }

    std::string combine(ReduceOp op, const std::string& a, const std::string& b, DType t) {
        bool bl = t == DType::Bool;
        switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Any: return bl ? "(" + a + " || " + b + ")" : "(" + a + " + " + b + ")";
        case ReduceOp::Prod: return bl ? "(" + a + " && " + b + ")" : "(" + a + " * " + b + ")";
        case ReduceOp::Max: return bl ? "(" + a + " || " + b + ")" : "fx_max(" + a + ", " + b + ")";
        case ReduceOp::Min: return bl ? "(" + a + " && " + b + ")" : "fx_min(" + a + ", " + b + ")";
        }
        return a;
    }

    void runStmts(const std::vector<Stmt>& stmts, bool scalarOfReduction, bool fresh = true) {
        if (fresh) memo.clear();
        const char* guard = m_col ? "if (wy == 0 && live) " : m_block ? "if (threadIdx.x == 0) " : "if (lane == 0) ";
        // Column reductions: a store inside the row loop is guarded too (dead lanes repeat a point).
        const char* rowGuard = m_col && !scalarOfReduction ? "if (live) " : "";
        for (const auto& st : stmts) {
            switch (st.kind) {
            case Stmt::Kind::Let: {
                std::string v = ex(st.value);
                line("let" + std::to_string(st.id) + " = " + v + ";");
                break;
            }
            case Stmt::Kind::Store: {
                std::string v = ex(st.value);
                std::string i = idx(st.index);
                std::string s = storeConv(K.args[static_cast<size_t>(st.buf)].dtype, v);
                line(std::string(scalarOfReduction ? guard : rowGuard) + "a" + std::to_string(st.buf) + "[" + i +
                     "] = " + s + ";");
                break;
            }
            case Stmt::Kind::Reduce: {
                std::string v = ex(st.value);
                std::string acc = "acc" + std::to_string(st.id);
                line(acc + " = " + combine(st.rop, acc, v, K.accTypes[static_cast<size_t>(st.id)]) + ";");
                break;
            }
            }
        }
    }

    static std::string storeConv(DType t, const std::string& v) {
        switch (t) {
        case DType::Float16: return "fx_f2h(" + v + ")";
        case DType::BFloat16: return "fx_f2bf(" + v + ")";
        case DType::Bool:
        case DType::UInt8: return "(unsigned char)(" + v + ")";
        case DType::Int8: return "(signed char)(" + v + ")";
        case DType::Int16: return "(short)(" + v + ")";
        case DType::Int32: return "(int)(" + v + ")";
        default: return v;
        }
    }

    std::string idx(const Index& i) {
        std::string r = i64lit(i->c);
        for (const auto& [coef, at] : i->terms) {
            std::string a;
            switch (at.kind) {
            case IndexAtom::Kind::Var:
                a = at.extent == 1 ? "0LL"
                                   : "x" + std::to_string(at.var) +
                                         (m_lane >= 0 && at.var == m_vecVar ? "_" + std::to_string(m_lane) : "");
                break;
            case IndexAtom::Kind::FloorDiv: a = "((" + idx(at.arg) + ") / " + i64lit(at.divisor) + ")"; break;
            case IndexAtom::Kind::Mod: a = "((" + idx(at.arg) + ") % " + i64lit(at.divisor) + ")"; break;
            case IndexAtom::Kind::Value: a = ex(at.value); break;
            }
            r += " + " + (coef == 1 ? a : a + " * " + i64lit(coef));
        }
        return r;
    }

    std::string load(int slot, DType t, const Index& i) {
        std::string p = "a" + std::to_string(slot) + "[" + idx(i) + "]";
        switch (t) {
        case DType::Float16: return "fx_h2f(" + p + ")";
        case DType::BFloat16: return "fx_bf2f(" + p + ")";
        case DType::Bool: return "(" + p + " != 0)";
        case DType::UInt8:
        case DType::Int8:
        case DType::Int16:
        case DType::Int32: return "(i64)" + p;
        default: return p;
        }
    }

    static std::string convert(const std::string& v, DType from, DType to) {
        if (from == to) return v;
        if (to == DType::Bool) return "(" + v + (isFp(from) ? " != 0.0)" : " != 0)");
        return "(" + std::string(ctype(to)) + ")(" + v + ")";
    }

    static std::string cast(const std::string& v, DType from, DType storage) {
        std::string r = convert(v, from, computeType(storage));
        switch (storage) {
        case DType::Float16: return "fx_h2f(fx_f2h(" + r + "))";
        case DType::BFloat16: return "fx_bf2f(fx_f2bf(" + r + "))";
        case DType::Int32: return "(i64)(int)(" + r + ")";
        case DType::Int16: return "(i64)(short)(" + r + ")";
        case DType::Int8: return "(i64)(signed char)(" + r + ")";
        case DType::UInt8: return "(i64)(unsigned char)(" + r + ")";
        default: return r;
        }
    }

    std::string ex(const ExprP& e) {
        auto it = memo.find(e.get());
        if (it != memo.end()) return it->second;
        std::string v = exUncached(e);
        std::string name = "v" + std::to_string(m_tmp++);
        line("const " + std::string(ctype(e->type)) + " " + name + " = " + v + ";");
        memo[e.get()] = name;
        return name;
    }

    std::string exUncached(const ExprP& e) {
        DType t = e->type;
        bool fp = isFp(t), f32 = t == DType::Float32, bl = t == DType::Bool;
        auto a = [&](size_t i) { return ex(e->args[i]); };
        auto fn = [&](const char* f) { return std::string(f) + (f32 ? "f(" : "(") + a(0) + ")"; };
        std::string one = fplit(1.0, t);
        switch (e->op) {
        case Op::Const:
            if (fp) return fplit(e->c, t);
            if (bl) return e->ic ? "true" : "false";
            return i64lit(e->ic);
        case Op::Load: return m_lane >= 0 ? vecLoad(*e) : load(e->buf, e->bufType, e->index);
        case Op::IndexValue: return idx(e->index);
        case Op::AccRef: return "acc" + std::to_string(e->ref);
        case Op::LetRef: return "let" + std::to_string(e->ref);
        case Op::Cast: return cast(a(0), e->args[0]->type, e->castTo);
        case Op::Neg: return bl ? a(0) : "(-" + a(0) + ")";
        case Op::Abs: return fp ? fn("fabs") : "(" + a(0) + " < 0 ? -" + a(0) + " : " + a(0) + ")";
        case Op::Exp: return fn("exp");
        case Op::Log: return fn("log");
        case Op::Sqrt: return fn("sqrt");
        case Op::Rsqrt: return "(" + one + " / " + fn("sqrt") + ")";
        case Op::Recip: return "(" + one + " / " + a(0) + ")";
        case Op::Tanh: return fn("tanh");
        case Op::Sigmoid: {
            std::string x = a(0);
            return "(" + one + " / (" + one + " + " + (f32 ? "expf(-" : "exp(-") + x + ")))";
        }
        case Op::Erf: return fn("erf");
        case Op::Sin: return fn("sin");
        case Op::Cos: return fn("cos");
        case Op::Floor: return fp ? fn("floor") : a(0);
        case Op::Ceil: return fp ? fn("ceil") : a(0);
        case Op::Trunc: return fp ? fn("trunc") : a(0);
        case Op::Round: return fp ? fn("rint") : a(0);
        case Op::Expm1: return fn("expm1");
        case Op::Log1p: return fn("log1p");
        case Op::Not: return bl ? "(!" + a(0) + ")" : "(~" + a(0) + ")";
        case Op::Sign: {
            std::string x = a(0);
            std::string z = fp ? fplit(0.0, t) : "0LL";
            return "(" + std::string(ctype(t)) + ")((" + x + " > " + z + ") - (" + x + " < " + z + "))";
        }
        case Op::Tan: return fn("tan");
        case Op::Asin: return fn("asin");
        case Op::Acos: return fn("acos");
        case Op::Atan: return fn("atan");
        case Op::Sinh: return fn("sinh");
        case Op::Cosh: return fn("cosh");
        case Op::Asinh: return fn("asinh");
        case Op::Acosh: return fn("acosh");
        case Op::Atanh: return fn("atanh");
        case Op::Erfc: return fn("erfc");
        case Op::Log2: return fn("log2");
        case Op::Log10: return fn("log10");
        case Op::Exp2: return fn("exp2");
        case Op::Lgamma: return fn("lgamma");
        case Op::IsNan: {
            DType at = e->args[0]->type;
            std::string x = a(0);
            return isFp(at) ? "(" + x + " != " + x + ")" : "false";
        }
        default: break;
        }
        if (e->op == Op::Where) return "(" + a(0) + " ? " + a(1) + " : " + a(2) + ")";
        std::string x = a(0), y = a(1);
        switch (e->op) {
        case Op::Add: return bl ? "(" + x + " || " + y + ")" : "(" + x + " + " + y + ")";
        case Op::Sub: return "(" + x + " - " + y + ")";
        case Op::Mul: return bl ? "(" + x + " && " + y + ")" : "(" + x + " * " + y + ")";
        case Op::Div: return "(" + x + " / " + y + ")";
        case Op::Pow:
            return fp ? std::string(f32 ? "powf(" : "pow(") + x + ", " + y + ")" : "fx_ipow(" + x + ", " + y + ")";
        case Op::Max: return bl ? "(" + x + " || " + y + ")" : "fx_max(" + x + ", " + y + ")";
        case Op::Min: return bl ? "(" + x + " && " + y + ")" : "fx_min(" + x + ", " + y + ")";
        case Op::Fmod:
            return fp ? std::string(f32 ? "fmodf(" : "fmod(") + x + ", " + y + ")" : "(" + x + " % " + y + ")";
        case Op::FloorDivOp:
            return fp ? std::string(f32 ? "floorf(" : "floor(") + x + " / " + y + ")"
                      : "fx_floordiv(" + x + ", " + y + ")";
        case Op::ModOp:
            return fp ? std::string(f32 ? "fx_modf(" : "fx_modd(") + x + ", " + y + ")"
                      : "fx_mod(" + x + ", " + y + ")";
        case Op::And: return "(" + x + " & " + y + ")";
        case Op::Or: return "(" + x + " | " + y + ")";
        case Op::Xor: return "(" + x + " ^ " + y + ")";
        case Op::Atan2: return std::string(f32 ? "atan2f(" : "atan2(") + x + ", " + y + ")";
        case Op::Hypot: return std::string(f32 ? "hypotf(" : "hypot(") + x + ", " + y + ")";
        case Op::Copysign: return std::string(f32 ? "copysignf(" : "copysign(") + x + ", " + y + ")";
        case Op::NextAfter: return std::string(f32 ? "nextafterf(" : "nextafter(") + x + ", " + y + ")";
        case Op::Shl: return "(" + x + " << " + y + ")";
        case Op::Shr: return "(" + x + " >> " + y + ")";
        case Op::Eq: return "(" + x + " == " + y + ")";
        case Op::Ne: return "(" + x + " != " + y + ")";
        case Op::Lt: return "(" + x + " < " + y + ")";
        case Op::Le: return "(" + x + " <= " + y + ")";
        case Op::Gt: return "(" + x + " > " + y + ")";
        case Op::Ge: return "(" + x + " >= " + y + ")";
        default: break;
        }
        m_error =
            "CUDA codegen: kernel " + K.name + " uses op " + std::string(opName(e->op)) + ", which has no CUDA form";
        return "0";
    }

    const Kernel& K;
    std::string m_name;
    std::ostringstream body;
    int m_indent = 1;
    int m_tmp = 0;
    bool m_reduction = false, m_block = false, m_col = false;
    int m_colRows = 32;   ///< column reductions: warps per block
    int m_colWidth = 32;  ///< column reductions: columns per block
    int64_t m_split = 1;  ///< column reductions: parts the rows are cut into (splitRows)
    int64_t m_chunk = 0;  ///< column reductions: rows per part
    int m_vecVar = -1;    ///< float4 kernels: the innermost loop variable
    int m_lane = -1;      ///< float4 kernels: the lane being emitted (-1 outside the lanes)
    bool m_quad = false;
    std::map<const Expr*, std::string> m_vecLoads;
    std::map<const Expr*, std::string> memo;
    std::string m_error;
};

}  // namespace

Expected<CudaSource> generateCudaSource(const std::vector<Kernel>& kernels) {
    CudaSource out;
    std::string src = cudaPrelude();
    for (size_t i = 0; i < kernels.size(); ++i) {
        LaunchPlan plan;
        Emitter em(kernels[i], "fx" + std::to_string(i) + "_" + sanitize(kernels[i].name));
        auto text = em.emit(plan);
        if (!text.ok()) return text.error();
        src += "\n" + *text;
        out.kernelSources.push_back(std::move(text).value());
        out.plans.push_back(std::move(plan));
    }
    out.source = std::move(src);
    return out;
}

}  // namespace fxray::cg::cuda
