#pragma once
/// The loop-level kernel IR shared by the CPU (LLVM) and CUDA backends.
///
/// A Kernel iterates over one iteration space: the sizes of a tensor shape X, some of whose dims
/// are reduction dims. Its body is a list of phases run once per point of the outer (non-reduced)
/// dims: a *scalar* phase computes per-outer-point values and stores; an *inner* phase loops over
/// the reduction dims, accumulating reductions and storing (outer x reduction)-shaped values. A
/// pure pointwise kernel is one scalar phase over X (no reduction dims). Softmax is one kernel:
/// inner phase {amax}, inner phase {sum exp(x - amax)}, inner phase {store exp(x - amax) / sum}.
///
/// Values are expression trees (Expr) over loads, constants and math; indices are affine
/// combinations of loop variables with floor-division, modulo and indirect (data-dependent)
/// atoms (Index), so that views, broadcasting and reshapes are pure index arithmetic derived
/// from sizes, strides and storage offsets.
#include "ir/dtype.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray::cg {

struct Expr;
using ExprP = std::shared_ptr<const Expr>;
struct IndexNode;
using Index = std::shared_ptr<const IndexNode>;

// ----- indices -------------------------------------------------------------------------------

/// A non-affine part of an index: a loop variable, floor(i / d), i mod d, or an integer value
/// computed from data (gather/embedding indices). FloorDiv and Mod operands are never negative
/// (idiv and imod keep it so): the C and LLVM emitters divide with truncating / and %.
struct IndexAtom {
    enum class Kind : uint8_t { Var, FloorDiv, Mod, Value };
    Kind kind = Kind::Var;
    int var = -1;         ///< Var: the kernel dim it iterates
    int64_t extent = 1;   ///< Var: its range is [0, extent)
    Index arg;            ///< FloorDiv/Mod operand
    int64_t divisor = 1;  ///< FloorDiv/Mod
    ExprP value;          ///< Value: an Int64 expression
};

/// c + sum(coef_k * atom_k). Built only through the functions below, which simplify.
struct IndexNode {
    int64_t c = 0;
    std::vector<std::pair<int64_t, IndexAtom>> terms;
};

Index iconst(int64_t c);
/// Loop variable `var` with range [0, extent); extent 1 gives the constant 0.
Index ivar(int var, int64_t extent);
Index iadd(const Index& a, const Index& b);
Index imul(const Index& a, int64_t k);
/// floor(a / d) for a >= 0, simplified with the variables' ranges.
Index idiv(const Index& a, int64_t d);
/// a mod d for a >= 0, simplified with the variables' ranges.
Index imod(const Index& a, int64_t d);
/// A data-dependent index (an Int64 expression).
Index ivalue(ExprP e);
/// Bounds [lo, hi] of an index (wide bounds for data-dependent atoms).
std::pair<int64_t, int64_t> indexBounds(const Index& i);
/// True when i is exactly the loop variable `var` (or 0 when extent is 1).
bool indexIsVar(const Index& i, int var, int64_t extent);
/// storageOffset + sum(coords[d] * strides[d]).
Index linearIndex(const std::vector<Index>& coords, const std::vector<int64_t>& strides, int64_t offset);
/// Readable form: "128*x0 + x2 + (x1//4)".
std::string indexStr(const Index& i);

// ----- values --------------------------------------------------------------------------------

/// Operations of value expressions. Unless noted, operands and result have the node's type.
enum class Op : uint8_t {
    Const,       ///< c (float types) or ic (integer/bool)
    Load,        ///< element `index` of kernel argument `buf` (stored as `bufType`)
    IndexValue,  ///< the integer value of `index`
    AccRef,      ///< the finished accumulator `ref` of an earlier inner phase
    LetRef,      ///< the value bound by Let `ref`
    Cast,        ///< convert args[0] to `type`; `castTo` is the storage dtype rounded through
    // unary
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Recip,
    Tanh,
    Sigmoid,
    Erf,
    Sin,
    Cos,
    Floor,
    Ceil,
    Trunc,
    Round,
    Expm1,
    Log1p,
    Not,
    Sign,
    IsNan,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Erfc,
    Log2,
    Log10,
    Exp2,
    Lgamma,
    // binary
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    Fmod,
    FloorDivOp,
    ModOp,
    And,
    Or,
    Xor,
    Atan2,
    Hypot,
    Copysign,
    NextAfter,
    Shl,
    Shr,  ///< Int64: x << y, x >> y (arithmetic) for 0 <= y < 64; the caller clamps y
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,  ///< result Bool; operands of one type
    // ternary
    Where,  ///< args[0] (Bool) ? args[1] : args[2]
};
std::string_view opName(Op op);

/// One node of a value expression. `type` is a compute type: Float32 (also for fp16/bf16
/// data), Float64, Int64 (every integer type) or Bool.
struct Expr {
    Op op = Op::Const;
    DType type = DType::Float32;
    std::vector<ExprP> args;
    double c = 0.0;
    int64_t ic = 0;
    int buf = -1;                    ///< Load: kernel argument slot
    DType bufType = DType::Float32;  ///< Load: element type in memory
    DType castTo = DType::Float32;   ///< Cast: target storage dtype
    Index index;                     ///< Load / IndexValue
    int ref = -1;                    ///< AccRef / LetRef
};

/// The compute type data of dtype t is loaded into.
DType computeType(DType t);

ExprP econst(double v, DType type);
ExprP eload(int buf, DType bufType, Index index);
ExprP eindex(Index i);
ExprP eunary(Op op, ExprP a);
/// Binary op; comparisons give Bool. Operands must already share a type.
ExprP ebinary(Op op, ExprP a, ExprP b);
ExprP ewhere(ExprP cond, ExprP a, ExprP b);
/// Converts to storage dtype `to` (computed in computeType(to); fp16/bf16 values are rounded).
ExprP ecast(ExprP a, DType to);
/// Converts to compute type `t` without rounding (a no-op when a already has it).
ExprP eto(ExprP a, DType computeT);
ExprP eref(Op op, int ref, DType type);
/// Readable form: "exp(load(buf1, x0*128 + x1) - acc0)".
std::string exprStr(const ExprP& e);

// ----- kernels -------------------------------------------------------------------------------

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod, Any };
std::string_view reduceOpName(ReduceOp r);

/// One statement of a phase.
struct Stmt {
    enum class Kind : uint8_t { Store, Reduce, Let };
    Kind kind = Kind::Store;
    int buf = -1;  ///< Store: kernel argument slot
    Index index;   ///< Store
    ExprP value;
    int id = -1;  ///< Reduce: accumulator id; Let: value id
    ReduceOp rop = ReduceOp::Sum;
    std::string origin;  ///< node the statement computes (for listings)
};

struct Phase {
    bool inner = false;  ///< loops over the reduction dims
    std::vector<Stmt> stmts;
};

/// A kernel argument: one buffer of the program.
struct KernelArg {
    int buffer = -1;  ///< program buffer id
    DType dtype = DType::Float32;
    bool written = false;
    std::string name;  ///< buffer name (node name) for listings
};

/// One fused loop nest.
struct Kernel {
    std::string name;            ///< "kernel_3_relu_add"
    std::vector<int64_t> sizes;  ///< the iteration space X
    std::vector<bool> reduced;   ///< per dim of X
    std::vector<KernelArg> args;
    std::vector<Phase> phases;
    std::vector<DType> accTypes;  ///< per accumulator
    std::vector<ReduceOp> accOps;
    std::vector<DType> letTypes;     ///< per Let
    std::vector<std::string> nodes;  ///< graph nodes fused here, in order

    bool isReduction() const;
    /// Points of the loop run by the parallel outer range: the product of the outer dims, and
    /// for pointwise kernels the product of all dims but the last (the vectorised inner loop).
    int64_t outerCount() const;
    /// Elements touched per outer point (to decide when threads pay off).
    int64_t innerCount() const;
};

/// A readable listing of the kernel (what the GUI kernel pane shows above the LLVM IR).
std::string kernelToText(const Kernel& k);

}  // namespace fxray::cg
