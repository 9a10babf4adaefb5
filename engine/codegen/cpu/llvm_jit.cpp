// LLVM IR generation for kernels, optimisation, and ORC LLJIT linking. The only file of the
// CPU backend that includes LLVM headers.
#include "codegen/cpu/llvm_jit.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

namespace fxray::cg::cpu {

std::string llvmVersion() { return LLVM_VERSION_STRING; }

namespace {

using namespace llvm;

void initLlvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        InitializeNativeTarget();
        InitializeNativeTargetAsmPrinter();
        InitializeNativeTargetAsmParser();
        // Vector variants of expf/logf/... for the loop vectoriser (glibc's libmvec).
        sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
    });
}

/// Emits one kernel function.
class KernelEmitter {
public:
    KernelEmitter(LLVMContext& ctx, Module& m, const Kernel& k) : C(ctx), M(m), K(k), B(ctx) {}

    Function* emit() {
        auto* ptrT = PointerType::getUnqual(C);
        auto* i64 = Type::getInt64Ty(C);
        auto* fnT = FunctionType::get(Type::getVoidTy(C), {ptrT, i64, i64}, false);
        F = Function::Create(fnT, Function::ExternalLinkage, K.name, M);
        F->addFnAttr(Attribute::NoUnwind);
        F->addParamAttr(0, Attribute::NoAlias);
        auto* entry = BasicBlock::Create(C, "entry", F);
        B.SetInsertPoint(entry);
        Value* argv = F->getArg(0);
        for (size_t i = 0; i < K.args.size(); ++i) {
            Value* p = B.CreateInBoundsGEP(ptrT, argv, B.getInt64(static_cast<int64_t>(i)));
            bases.push_back(B.CreateLoad(ptrT, p, "buf" + std::to_string(i)));
        }
        for (size_t a = 0; a < K.accTypes.size(); ++a)
            accs.push_back(B.CreateAlloca(ty(K.accTypes[a]), nullptr, "acc" + std::to_string(a)));
        vars.assign(K.sizes.size(), nullptr);
        Value* begin = F->getArg(1);
        Value* end = F->getArg(2);
        if (!K.isReduction()) {
            size_t n = K.sizes.size();
            loop(begin, end, [&](Value* q) {
                decompose(q, n == 0 ? 0 : n - 1, [](size_t) { return true; });
                if (n == 0) {
                    runStmts(K.phases[0].stmts);
                    return;
                }
                loop(B.getInt64(0), B.getInt64(K.sizes[n - 1]), [&](Value* iv) {
                    vars[n - 1] = iv;
                    runStmts(K.phases[0].stmts);
                });
            });
        } else {
            loop(begin, end, [&](Value* q) {
                decompose(q, K.sizes.size(), [&](size_t d) { return !K.reduced[d]; });
                for (const auto& ph : K.phases) {
                    if (!ph.inner) {
                        runStmts(ph.stmts);
                        continue;
                    }
                    for (const auto& st : ph.stmts)
                        if (st.kind == Stmt::Kind::Reduce) B.CreateStore(init(st.id), accs[static_cast<size_t>(st.id)]);
                    reduceLoops(0, ph.stmts);
                }
            });
        }
        B.CreateRetVoid();
        return F;
    }

private:
    Type* ty(DType t) {
        switch (t) {
        case DType::Float32: return Type::getFloatTy(C);
        case DType::Float64: return Type::getDoubleTy(C);
        case DType::Bool: return Type::getInt1Ty(C);
        default: return Type::getInt64Ty(C);
        }
    }
    Type* storageTy(DType t) {
        switch (t) {
        case DType::Float32: return Type::getFloatTy(C);
        case DType::Float64: return Type::getDoubleTy(C);
        case DType::Float16: return Type::getHalfTy(C);
        case DType::BFloat16: return Type::getInt16Ty(C);
        case DType::Bool:
        case DType::UInt8:
        case DType::Int8: return Type::getInt8Ty(C);
        case DType::Int16: return Type::getInt16Ty(C);
        case DType::Int32: return Type::getInt32Ty(C);
        default: return Type::getInt64Ty(C);
        }
    }

    /// for (iv = lo; iv < hi; ++iv) body(iv), with the counter in an alloca (mem2reg makes it
    /// a phi; loop-rotate and the vectoriser take it from there).
    void loop(Value* lo, Value* hi, const std::function<void(Value*)>& body) {
        IRBuilder<> eb(&F->getEntryBlock(), F->getEntryBlock().begin());
        AllocaInst* iv = eb.CreateAlloca(B.getInt64Ty());
        B.CreateStore(lo, iv);
        auto* cond = BasicBlock::Create(C, "loop", F);
        auto* bodyBB = BasicBlock::Create(C, "body", F);
        auto* exit = BasicBlock::Create(C, "exit", F);
        B.CreateBr(cond);
        B.SetInsertPoint(cond);
        Value* cur = B.CreateLoad(B.getInt64Ty(), iv);
        B.CreateCondBr(B.CreateICmpSLT(cur, hi), bodyBB, exit);
        B.SetInsertPoint(bodyBB);
        body(cur);
        B.CreateStore(B.CreateNSWAdd(B.CreateLoad(B.getInt64Ty(), iv), B.getInt64(1)), iv);
        B.CreateBr(cond);
        B.SetInsertPoint(exit);
    }

    /// Splits the linear outer index q into the selected dims below `upto` (row-major).
    void decompose(Value* q, size_t upto, const std::function<bool(size_t)>& selected) {
        for (size_t i = upto; i-- > 0;) {
            if (!selected(i)) continue;
            Value* sz = B.getInt64(K.sizes[i]);
            vars[i] = B.CreateURem(q, sz);
            q = B.CreateUDiv(q, sz);
        }
    }

    void reduceLoops(size_t d, const std::vector<Stmt>& stmts) {
        while (d < K.sizes.size() && !K.reduced[d]) ++d;
        if (d >= K.sizes.size()) {
            runStmts(stmts);
            return;
        }
        loop(B.getInt64(0), B.getInt64(K.sizes[d]), [&](Value* iv) {
            vars[d] = iv;
            reduceLoops(d + 1, stmts);
        });
    }

    Value* init(int acc) {
        DType t = K.accTypes[static_cast<size_t>(acc)];
        ReduceOp op = K.accOps[static_cast<size_t>(acc)];
        double v = 0;
        switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Any: v = 0; break;
        case ReduceOp::Prod: v = 1; break;
        case ReduceOp::Max: v = -INFINITY; break;
        case ReduceOp::Min: v = INFINITY; break;
        }
        if (t == DType::Float32 || t == DType::Float64) return ConstantFP::get(ty(t), v);
        if (t == DType::Bool) return B.getInt1(op == ReduceOp::Min || op == ReduceOp::Prod);
        if (op == ReduceOp::Max) return B.getInt64(std::numeric_limits<int64_t>::min());
        if (op == ReduceOp::Min) return B.getInt64(std::numeric_limits<int64_t>::max());
        return B.getInt64(static_cast<int64_t>(v));
    }

    void runStmts(const std::vector<Stmt>& stmts) {
        memo.clear();
        for (const auto& st : stmts) {
            switch (st.kind) {
            case Stmt::Kind::Let: lets[st.id] = expr(st.value); break;
            case Stmt::Kind::Store: store(st.buf, st.index, expr(st.value)); break;
            case Stmt::Kind::Reduce: {
                AllocaInst* a = accs[static_cast<size_t>(st.id)];
                Value* cur = B.CreateLoad(a->getAllocatedType(), a);
                Value* v = expr(st.value);
                B.CreateStore(combine(st.rop, cur, v, K.accTypes[static_cast<size_t>(st.id)]), a);
                break;
            }
            }
        }
    }

    Value* combine(ReduceOp op, Value* a, Value* b, DType t) {
        bool fp = t == DType::Float32 || t == DType::Float64;
        FastMathFlags fmf;
        fmf.setAllowReassoc();
        fmf.setAllowContract();
        IRBuilder<>::FastMathFlagGuard guard(B);
        B.setFastMathFlags(fmf);
        switch (op) {
        case ReduceOp::Sum: return fp ? B.CreateFAdd(a, b) : t == DType::Bool ? B.CreateOr(a, b) : B.CreateAdd(a, b);
        case ReduceOp::Prod: return fp ? B.CreateFMul(a, b) : t == DType::Bool ? B.CreateAnd(a, b) : B.CreateMul(a, b);
        case ReduceOp::Max:
            if (fp) return B.CreateBinaryIntrinsic(Intrinsic::maximum, a, b);
            return t == DType::Bool ? B.CreateOr(a, b) : B.CreateBinaryIntrinsic(Intrinsic::smax, a, b);
        case ReduceOp::Min:
            if (fp) return B.CreateBinaryIntrinsic(Intrinsic::minimum, a, b);
            return t == DType::Bool ? B.CreateAnd(a, b) : B.CreateBinaryIntrinsic(Intrinsic::smin, a, b);
        case ReduceOp::Any: return fp ? B.CreateFAdd(a, b) : B.CreateOr(a, b);
        }
        return a;
    }

    Value* index(const Index& i) {
        Value* r = B.getInt64(i->c);
        for (const auto& [coef, at] : i->terms) {
            Value* a = nullptr;
            switch (at.kind) {
            case IndexAtom::Kind::Var: a = vars[static_cast<size_t>(at.var)]; break;
            case IndexAtom::Kind::FloorDiv: a = B.CreateUDiv(index(at.arg), B.getInt64(at.divisor)); break;
            case IndexAtom::Kind::Mod: a = B.CreateURem(index(at.arg), B.getInt64(at.divisor)); break;
            case IndexAtom::Kind::Value: a = expr(at.value); break;
            }
            if (!a) a = B.getInt64(0);
            r = B.CreateAdd(r, coef == 1 ? a : B.CreateMul(a, B.getInt64(coef)));
        }
        return r;
    }

    Value* load(int slot, DType t, const Index& idx) {
        Type* st = storageTy(t);
        Value* p = B.CreateInBoundsGEP(st, bases[static_cast<size_t>(slot)], index(idx));
        Value* v = B.CreateLoad(st, p);
        switch (t) {
        case DType::Float16: return B.CreateFPExt(v, B.getFloatTy());
        case DType::BFloat16: return B.CreateBitCast(B.CreateShl(B.CreateZExt(v, B.getInt32Ty()), 16), B.getFloatTy());
        case DType::Bool: return B.CreateICmpNE(v, B.getInt8(0));
        case DType::UInt8: return B.CreateZExt(v, B.getInt64Ty());
        case DType::Int8:
        case DType::Int16:
        case DType::Int32: return B.CreateSExt(v, B.getInt64Ty());
        default: return v;
        }
    }

    Value* toBf16Bits(Value* f) {
        // Round to nearest even: bits + 0x7fff + ((bits >> 16) & 1), NaN kept quiet.
        Value* bits = B.CreateBitCast(f, B.getInt32Ty());
        Value* lsb = B.CreateAnd(B.CreateLShr(bits, 16), B.getInt32(1));
        Value* rounded = B.CreateLShr(B.CreateAdd(bits, B.CreateAdd(lsb, B.getInt32(0x7fff))), 16);
        Value* nan = B.CreateFCmpUNO(f, f);
        Value* r = B.CreateSelect(nan, B.getInt32(0x7fc0), rounded);
        return B.CreateTrunc(r, B.getInt16Ty());
    }

    void store(int slot, const Index& idx, Value* v) {
        DType t = K.args[static_cast<size_t>(slot)].dtype;
        Type* st = storageTy(t);
        Value* p = B.CreateInBoundsGEP(st, bases[static_cast<size_t>(slot)], index(idx));
        Value* s = v;
        switch (t) {
        case DType::Float16: s = B.CreateFPTrunc(v, B.getHalfTy()); break;
        case DType::BFloat16: s = toBf16Bits(v); break;
        case DType::Bool: s = B.CreateZExt(v, B.getInt8Ty()); break;
        case DType::UInt8:
        case DType::Int8:
        case DType::Int16:
        case DType::Int32: s = B.CreateTrunc(v, st); break;
        default: break;
        }
        B.CreateStore(s, p);
    }

    /// Converts between compute types.
    Value* convert(Value* v, DType from, DType to) {
        if (from == to) return v;
        bool ff = from == DType::Float32 || from == DType::Float64, tf = to == DType::Float32 || to == DType::Float64;
        if (ff && tf) return to == DType::Float64 ? B.CreateFPExt(v, ty(to)) : B.CreateFPTrunc(v, ty(to));
        if (to == DType::Bool)
            return ff ? B.CreateFCmpUNE(v, ConstantFP::get(ty(from), 0.0))
                      : B.CreateICmpNE(v, ConstantInt::get(ty(from), 0));
        if (from == DType::Bool) return tf ? B.CreateUIToFP(v, ty(to)) : B.CreateZExt(v, ty(to));
        if (tf) return B.CreateSIToFP(v, ty(to));
        return B.CreateFPToSI(v, ty(to));
    }

    Value* cast(Value* v, DType from, DType storage) {
        DType ct = computeType(storage);
        Value* r = convert(v, from, ct);
        switch (storage) {
        case DType::Float16: return B.CreateFPExt(B.CreateFPTrunc(r, B.getHalfTy()), B.getFloatTy());
        case DType::BFloat16:
            return B.CreateBitCast(B.CreateShl(B.CreateZExt(toBf16Bits(r), B.getInt32Ty()), 16), B.getFloatTy());
        case DType::Int32: return B.CreateSExt(B.CreateTrunc(r, B.getInt32Ty()), B.getInt64Ty());
        case DType::Int16: return B.CreateSExt(B.CreateTrunc(r, B.getInt16Ty()), B.getInt64Ty());
        case DType::Int8: return B.CreateSExt(B.CreateTrunc(r, B.getInt8Ty()), B.getInt64Ty());
        case DType::UInt8: return B.CreateZExt(B.CreateTrunc(r, B.getInt8Ty()), B.getInt64Ty());
        default: return r;
        }
    }

    // tanh and erf in fp32 as straight-line IR (exp + polynomials + selects) instead of calls to
    // libm's tanhf/erff: glibc's libmvec has no vector variants of those two, so a libm call
    // keeps the whole loop scalar (GELU in gpt2 and bert spent most of its time there).
    // Accuracy is a few fp32 ulps, well inside the 1e-4 fp32 tolerance.
    Value* fconst(Value* like, double c) { return ConstantFP::get(like->getType(), c); }

    /// Horner: c[0] + x*(c[1] + x*(c[2] + ...)).
    Value* horner(Value* x, std::initializer_list<double> c) {
        std::vector<double> v(c);
        Value* r = fconst(x, v.back());
        for (size_t i = v.size() - 1; i-- > 0;) r = B.CreateFAdd(B.CreateFMul(r, x), fconst(x, v[i]));
        return r;
    }

    Value* tanhF32(Value* x) {
        Value* ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, x);
        // |x| >= 1/16: (1 - e) / (1 + e) with e = exp(-2|x|) (no cancellation to speak of there).
        Value* e = B.CreateUnaryIntrinsic(Intrinsic::exp, B.CreateFMul(ax, fconst(x, -2.0)));
        Value* big = B.CreateFDiv(B.CreateFSub(fconst(x, 1.0), e), B.CreateFAdd(fconst(x, 1.0), e));
        // |x| < 1/16: the odd Taylor series, next term below 1e-9 relative.
        Value* x2 = B.CreateFMul(ax, ax);
        Value* small =
            B.CreateFAdd(ax, B.CreateFMul(B.CreateFMul(ax, x2), horner(x2, {-1.0 / 3, 2.0 / 15, -17.0 / 315})));
        Value* r = B.CreateSelect(B.CreateFCmpOLT(ax, fconst(x, 0.0625)), small, big);
        return B.CreateBinaryIntrinsic(Intrinsic::copysign, r, x);
    }

    Value* erfF32(Value* x) {
        Value* ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, x);
        Value* x2 = B.CreateFMul(ax, ax);
        // |x| < 1/2: 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)), next term below 3e-8 relative.
        Value* small =
            B.CreateFMul(ax, horner(x2, {1.1283791670955126, -0.37612638903183754, 0.11283791670955126,
                                         -0.026866170645131252, 0.005223977625442188, -0.0008548327023450852}));
        // |x| >= 1/2: Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7).
        Value* t = B.CreateFDiv(fconst(x, 1.0), B.CreateFAdd(fconst(x, 1.0), B.CreateFMul(ax, fconst(x, 0.3275911))));
        Value* poly = B.CreateFMul(t, horner(t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
        Value* big =
            B.CreateFSub(fconst(x, 1.0), B.CreateFMul(poly, B.CreateUnaryIntrinsic(Intrinsic::exp, B.CreateFNeg(x2))));
        Value* r = B.CreateSelect(B.CreateFCmpOLT(ax, fconst(x, 0.5)), small, big);
        return B.CreateBinaryIntrinsic(Intrinsic::copysign, r, x);
    }

    Value* libm(const char* f32, const char* f64, Value* x, bool isF32) {
        Type* t = x->getType();
        FunctionCallee fn = M.getOrInsertFunction(isF32 ? f32 : f64, FunctionType::get(t, {t}, false));
        if (auto* fdecl = dyn_cast<Function>(fn.getCallee())) {
            fdecl->setDoesNotThrow();
            fdecl->setDoesNotAccessMemory();
            fdecl->setWillReturn();
        }
        return B.CreateCall(fn, {x});
    }

    Value* libm2(const char* f32, const char* f64, Value* x, Value* y, bool isF32) {
        Type* t = x->getType();
        FunctionCallee fn = M.getOrInsertFunction(isF32 ? f32 : f64, FunctionType::get(t, {t, t}, false));
        if (auto* fdecl = dyn_cast<Function>(fn.getCallee())) {
            fdecl->setDoesNotThrow();
            fdecl->setDoesNotAccessMemory();
            fdecl->setWillReturn();
        }
        return B.CreateCall(fn, {x, y});
    }

    Value* expr(const ExprP& e) {
        auto it = memo.find(e.get());
        if (it != memo.end()) return it->second;
        Value* v = exprUncached(e);
        memo[e.get()] = v;
        return v;
    }

    Value* exprUncached(const ExprP& e) {
        DType t = e->type;
        bool fp = t == DType::Float32 || t == DType::Float64;
        bool f32 = t == DType::Float32;
        auto a = [&](size_t i) { return expr(e->args[i]); };
        auto one = [&]() { return ConstantFP::get(ty(t), 1.0); };
        switch (e->op) {
        case Op::Const:
            if (fp) return ConstantFP::get(ty(t), e->c);
            if (t == DType::Bool) return B.getInt1(e->ic != 0);
            return B.getInt64(e->ic);
        case Op::Load: return load(e->buf, e->bufType, e->index);
        case Op::IndexValue: return index(e->index);
        case Op::AccRef: {
            AllocaInst* al = accs[static_cast<size_t>(e->ref)];
            return B.CreateLoad(al->getAllocatedType(), al);
        }
        case Op::LetRef: return lets.at(e->ref);
        case Op::Cast: return cast(a(0), e->args[0]->type, e->castTo);
        case Op::Neg: return fp ? B.CreateFNeg(a(0)) : B.CreateNeg(a(0));
        case Op::Abs:
            return fp ? B.CreateUnaryIntrinsic(Intrinsic::fabs, a(0))
                      : B.CreateBinaryIntrinsic(Intrinsic::abs, a(0), B.getFalse());
        case Op::Exp: return B.CreateUnaryIntrinsic(Intrinsic::exp, a(0));
        case Op::Log: return B.CreateUnaryIntrinsic(Intrinsic::log, a(0));
        case Op::Sqrt: return B.CreateUnaryIntrinsic(Intrinsic::sqrt, a(0));
        case Op::Rsqrt: return B.CreateFDiv(one(), B.CreateUnaryIntrinsic(Intrinsic::sqrt, a(0)));
        case Op::Recip: return B.CreateFDiv(one(), a(0));
        case Op::Tanh: return f32 ? tanhF32(a(0)) : libm("tanhf", "tanh", a(0), f32);
        case Op::Sigmoid:
            return B.CreateFDiv(one(), B.CreateFAdd(one(), B.CreateUnaryIntrinsic(Intrinsic::exp, B.CreateFNeg(a(0)))));
        case Op::Erf: return f32 ? erfF32(a(0)) : libm("erff", "erf", a(0), f32);
        case Op::Sin: return B.CreateUnaryIntrinsic(Intrinsic::sin, a(0));
        case Op::Cos: return B.CreateUnaryIntrinsic(Intrinsic::cos, a(0));
        case Op::Floor: return B.CreateUnaryIntrinsic(Intrinsic::floor, a(0));
        case Op::Ceil: return B.CreateUnaryIntrinsic(Intrinsic::ceil, a(0));
        case Op::Trunc: return B.CreateUnaryIntrinsic(Intrinsic::trunc, a(0));
        case Op::Round: return B.CreateUnaryIntrinsic(Intrinsic::roundeven, a(0));
        case Op::Expm1: return libm("expm1f", "expm1", a(0), f32);
        case Op::Log1p: return libm("log1pf", "log1p", a(0), f32);
        case Op::Not: return B.CreateNot(a(0));
        case Op::Sign: {
            Value* x = a(0);
            Value* zero = Constant::getNullValue(x->getType());
            Value* pos = fp ? B.CreateFCmpOGT(x, zero) : B.CreateICmpSGT(x, zero);
            Value* neg = fp ? B.CreateFCmpOLT(x, zero) : B.CreateICmpSLT(x, zero);
            Value* p = fp ? B.CreateUIToFP(pos, x->getType()) : B.CreateZExt(pos, x->getType());
            Value* n = fp ? B.CreateUIToFP(neg, x->getType()) : B.CreateZExt(neg, x->getType());
            return fp ? B.CreateFSub(p, n) : B.CreateSub(p, n);
        }
        case Op::IsNan: {
            Value* x = a(0);
            return x->getType()->isFloatingPointTy() ? B.CreateFCmpUNO(x, x) : B.getFalse();
        }
        case Op::Tan: return libm("tanf", "tan", a(0), f32);
        case Op::Asin: return libm("asinf", "asin", a(0), f32);
        case Op::Acos: return libm("acosf", "acos", a(0), f32);
        case Op::Atan: return libm("atanf", "atan", a(0), f32);
        case Op::Sinh: return libm("sinhf", "sinh", a(0), f32);
        case Op::Cosh: return libm("coshf", "cosh", a(0), f32);
        case Op::Asinh: return libm("asinhf", "asinh", a(0), f32);
        case Op::Acosh: return libm("acoshf", "acosh", a(0), f32);
        case Op::Atanh: return libm("atanhf", "atanh", a(0), f32);
        case Op::Erfc: return libm("erfcf", "erfc", a(0), f32);
        case Op::Log2: return B.CreateUnaryIntrinsic(Intrinsic::log2, a(0));
        case Op::Log10: return B.CreateUnaryIntrinsic(Intrinsic::log10, a(0));
        case Op::Exp2: return B.CreateUnaryIntrinsic(Intrinsic::exp2, a(0));
        case Op::Lgamma: return libm("lgammaf", "lgamma", a(0), f32);
        case Op::Atan2: return libm2("atan2f", "atan2", a(0), a(1), f32);
        case Op::Hypot: return libm2("hypotf", "hypot", a(0), a(1), f32);
        case Op::Copysign: return B.CreateBinaryIntrinsic(Intrinsic::copysign, a(0), a(1));
        case Op::NextAfter: return libm2("nextafterf", "nextafter", a(0), a(1), f32);
        case Op::Shl: return B.CreateShl(a(0), a(1));
        case Op::Shr: return B.CreateAShr(a(0), a(1));
        case Op::Add:
            return fp ? B.CreateFAdd(a(0), a(1)) : t == DType::Bool ? B.CreateOr(a(0), a(1)) : B.CreateAdd(a(0), a(1));
        case Op::Sub: return fp ? B.CreateFSub(a(0), a(1)) : B.CreateSub(a(0), a(1));
        case Op::Mul:
            return fp ? B.CreateFMul(a(0), a(1)) : t == DType::Bool ? B.CreateAnd(a(0), a(1)) : B.CreateMul(a(0), a(1));
        case Op::Div: return fp ? B.CreateFDiv(a(0), a(1)) : B.CreateSDiv(a(0), a(1));
        case Op::Pow: return B.CreateBinaryIntrinsic(Intrinsic::pow, a(0), a(1));
        case Op::Max:
            if (fp) return B.CreateBinaryIntrinsic(Intrinsic::maximum, a(0), a(1));
            return t == DType::Bool ? B.CreateOr(a(0), a(1)) : B.CreateBinaryIntrinsic(Intrinsic::smax, a(0), a(1));
        case Op::Min:
            if (fp) return B.CreateBinaryIntrinsic(Intrinsic::minimum, a(0), a(1));
            return t == DType::Bool ? B.CreateAnd(a(0), a(1)) : B.CreateBinaryIntrinsic(Intrinsic::smin, a(0), a(1));
        case Op::Fmod: return fp ? B.CreateFRem(a(0), a(1)) : B.CreateSRem(a(0), a(1));
        case Op::FloorDivOp: {
            if (fp) return B.CreateUnaryIntrinsic(Intrinsic::floor, B.CreateFDiv(a(0), a(1)));
            Value *x = a(0), *y = a(1);
            Value* q = B.CreateSDiv(x, y);
            Value* r = B.CreateSRem(x, y);
            Value* adjust =
                B.CreateAnd(B.CreateICmpNE(r, B.getInt64(0)),
                            B.CreateICmpNE(B.CreateICmpSLT(x, B.getInt64(0)), B.CreateICmpSLT(y, B.getInt64(0))));
            return B.CreateSub(q, B.CreateZExt(adjust, B.getInt64Ty()));
        }
        case Op::ModOp: {
            Value *x = a(0), *y = a(1);
            if (fp) {
                Value* r = B.CreateFRem(x, y);
                Value* zero = ConstantFP::get(ty(t), 0.0);
                Value* fix = B.CreateAnd(B.CreateFCmpONE(r, zero),
                                         B.CreateXor(B.CreateFCmpOLT(r, zero), B.CreateFCmpOLT(y, zero)));
                return B.CreateSelect(fix, B.CreateFAdd(r, y), r);
            }
            Value* r = B.CreateSRem(x, y);
            Value* fix = B.CreateAnd(B.CreateICmpNE(r, B.getInt64(0)),
                                     B.CreateXor(B.CreateICmpSLT(r, B.getInt64(0)), B.CreateICmpSLT(y, B.getInt64(0))));
            return B.CreateSelect(fix, B.CreateAdd(r, y), r);
        }
        case Op::And: return B.CreateAnd(a(0), a(1));
        case Op::Or: return B.CreateOr(a(0), a(1));
        case Op::Xor: return B.CreateXor(a(0), a(1));
        case Op::Eq:
        case Op::Ne:
        case Op::Lt:
        case Op::Le:
        case Op::Gt:
        case Op::Ge: {
            Value *x = a(0), *y = a(1);
            DType ot = e->args[0]->type;
            if (ot == DType::Float32 || ot == DType::Float64) {
                switch (e->op) {
                case Op::Eq: return B.CreateFCmpOEQ(x, y);
                case Op::Ne: return B.CreateFCmpUNE(x, y);
                case Op::Lt: return B.CreateFCmpOLT(x, y);
                case Op::Le: return B.CreateFCmpOLE(x, y);
                case Op::Gt: return B.CreateFCmpOGT(x, y);
                default: return B.CreateFCmpOGE(x, y);
                }
            }
            bool u = ot == DType::Bool;
            switch (e->op) {
            case Op::Eq: return B.CreateICmpEQ(x, y);
            case Op::Ne: return B.CreateICmpNE(x, y);
            case Op::Lt: return u ? B.CreateICmpULT(x, y) : B.CreateICmpSLT(x, y);
            case Op::Le: return u ? B.CreateICmpULE(x, y) : B.CreateICmpSLE(x, y);
            case Op::Gt: return u ? B.CreateICmpUGT(x, y) : B.CreateICmpSGT(x, y);
            default: return u ? B.CreateICmpUGE(x, y) : B.CreateICmpSGE(x, y);
            }
        }
        case Op::Where: return B.CreateSelect(a(0), a(1), a(2));
        }
        return Constant::getNullValue(ty(t));
    }

    LLVMContext& C;
    Module& M;
    const Kernel& K;
    IRBuilder<> B;
    Function* F = nullptr;
    std::vector<Value*> bases;
    std::vector<AllocaInst*> accs;
    std::vector<Value*> vars;
    std::map<int, Value*> lets;
    std::map<const Expr*, Value*> memo;
};

void optimize(Module& M, TargetMachine& TM, int level) {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PipelineTuningOptions pto;
    pto.LoopVectorization = level >= 2;
    pto.SLPVectorization = level >= 2;
    PassBuilder PB(&TM, pto);
    Triple triple(M.getTargetTriple());
    TargetLibraryInfoImpl tlii(triple);
    tlii.addVectorizableFunctionsFromVecLib(TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    FAM.registerPass([&] { return TargetLibraryAnalysis(tlii); });
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    OptimizationLevel ol = level <= 0   ? OptimizationLevel::O0
                           : level == 1 ? OptimizationLevel::O1
                           : level == 2 ? OptimizationLevel::O2
                                        : OptimizationLevel::O3;
    ModulePassManager MPM = level <= 0 ? PB.buildO0DefaultPipeline(ol) : PB.buildPerModuleDefaultPipeline(ol);
    MPM.run(M, MAM);
}

std::string errStr(Error e) {
    std::string s;
    raw_string_ostream os(s);
    os << e;
    return os.str();
}

// ----- structural keys: identical kernels are compiled once ----------------------------------

void keyIndex(std::string& o, const Index& i);

void keyExpr(std::string& o, const ExprP& e) {
    if (!e) {
        o += "_";
        return;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%d %d %a %lld %d %d %d %d", int(e->op), int(e->type), e->c,
                  static_cast<long long>(e->ic), e->buf, int(e->bufType), int(e->castTo), e->ref);
    o += buf;
    if (e->index) keyIndex(o, e->index);
    for (const auto& a : e->args) keyExpr(o, a);
    o += ')';
}

void keyIndex(std::string& o, const Index& i) {
    o += '[' + std::to_string(i->c);
    for (const auto& [k, a] : i->terms) {
        o += ' ' + std::to_string(k) + ':' + std::to_string(int(a.kind)) + ',' + std::to_string(a.var) + ',' +
             std::to_string(a.extent) + ',' + std::to_string(a.divisor);
        if (a.arg) keyIndex(o, a.arg);
        if (a.value) keyExpr(o, a.value);
    }
    o += ']';
}

/// Everything the generated code depends on (not names, nodes or origins).
std::string structuralKey(const Kernel& k) {
    std::string o;
    for (size_t d = 0; d < k.sizes.size(); ++d) o += std::to_string(k.sizes[d]) + (k.reduced[d] ? "r," : ",");
    o += '|';
    for (const auto& a : k.args) o += std::to_string(int(a.dtype)) + (a.written ? "w," : ",");
    o += '|';
    for (auto t : k.accTypes) o += std::to_string(int(t)) + ',';
    for (auto r : k.accOps) o += std::to_string(int(r)) + ',';
    for (auto t : k.letTypes) o += std::to_string(int(t)) + ',';
    for (const auto& ph : k.phases) {
        o += ph.inner ? "{I" : "{S";
        for (const auto& st : ph.stmts) {
            o += '<' + std::to_string(int(st.kind)) + ',' + std::to_string(st.buf) + ',' + std::to_string(st.id) + ',' +
                 std::to_string(int(st.rop));
            if (st.index) keyIndex(o, st.index);
            keyExpr(o, st.value);
            o += '>';
        }
        o += '}';
    }
    return o;
}

int defaultCompileThreads() {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::min(hw, 8u));
}

/// What one compile thread produces: an object file and (optionally) the optimised IR.
struct UnitResult {
    std::string error;
    std::unique_ptr<MemoryBuffer> object;
    std::string moduleIr;
    std::map<std::string, std::string> fnIr;
};

/// Generates, optimises and emits one module holding the given kernels, with its own context
/// and target machine so that units compile in parallel.
void compileUnit(const std::vector<const Kernel*>& ks, orc::JITTargetMachineBuilder jtmb, const JitOptions& opts,
                 UnitResult& out) {
    auto tm = jtmb.createTargetMachine();
    if (!tm) {
        out.error = "LLVM: " + errStr(tm.takeError());
        return;
    }
    TargetMachine& TM = **tm;
    LLVMContext ctx;
    auto mod = std::make_unique<Module>("fxray_kernels", ctx);
    mod->setDataLayout(TM.createDataLayout());
    mod->setTargetTriple(TM.getTargetTriple().str());
    for (const Kernel* k : ks) {
        KernelEmitter em(ctx, *mod, *k);
        Function* f = em.emit();
        f->addFnAttr("target-cpu", TM.getTargetCPU());
        f->addFnAttr("target-features", TM.getTargetFeatureString());
        std::string err;
        raw_string_ostream es(err);
        if (verifyFunction(*f, &es)) {
            out.error = "internal error: LLVM IR of kernel " + k->name + " is invalid: " + es.str();
            return;
        }
    }
    optimize(*mod, TM, opts.optLevel);
    if (opts.keepIr) {
        for (const Kernel* k : ks) {
            std::string s;
            raw_string_ostream os(s);
            if (Function* f = mod->getFunction(k->name)) f->print(os);
            out.fnIr[k->name] = os.str();
        }
        raw_string_ostream ms(out.moduleIr);
        mod->print(ms, nullptr);
    }
    SmallString<0> obj;
    raw_svector_ostream os(obj);
    legacy::PassManager pm;
    if (TM.addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::ObjectFile)) {
        out.error = "LLVM: the target cannot emit object files";
        return;
    }
    pm.run(*mod);
    out.object = MemoryBuffer::getMemBufferCopy(StringRef(obj.data(), obj.size()), "fxray_kernels.o");
}

/// Which kernels are compiled (one representative per structural key) and in which unit.
struct UnitPlan {
    std::vector<size_t> repOf;   ///< per kernel: the kernel whose code it runs
    std::vector<size_t> reps;    ///< distinct kernels
    std::vector<int> unitOfRep;  ///< per kernel (meaningful for reps): its unit
    std::vector<std::vector<const Kernel*>> units;
};

UnitPlan planUnits(const std::vector<Kernel>& kernels, const JitOptions& opts) {
    UnitPlan p;
    // Structurally identical kernels (the 12 layers of a transformer) share one function.
    std::map<std::string, size_t> seen;
    p.repOf.resize(kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
        auto [it, fresh] = seen.emplace(opts.dedupe ? structuralKey(kernels[i]) : std::to_string(i), i);
        p.repOf[i] = it->second;
        if (fresh) p.reps.push_back(i);
    }
    // Distinct kernels in units compiled on parallel threads, balanced by statement count.
    int threads = std::max(
        1, std::min<int>(opts.threads > 0 ? opts.threads : defaultCompileThreads(), static_cast<int>(p.reps.size())));
    p.units.resize(static_cast<size_t>(threads));
    std::vector<size_t> load(p.units.size(), 0);
    p.unitOfRep.assign(kernels.size(), 0);
    for (size_t r : p.reps) {
        size_t u = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        size_t w = 1;
        for (const auto& ph : kernels[r].phases) w += ph.stmts.size();
        load[u] += w;
        p.units[u].push_back(&kernels[r]);
        p.unitOfRep[r] = static_cast<int>(u);
    }
    return p;
}

std::vector<UnitResult> compileUnits(const UnitPlan& plan, const orc::JITTargetMachineBuilder& jtmb,
                                     const JitOptions& opts) {
    std::vector<UnitResult> results(plan.units.size());
    std::vector<std::thread> pool;
    for (size_t u = 1; u < plan.units.size(); ++u)
        pool.emplace_back([&, u] { compileUnit(plan.units[u], jtmb, opts, results[u]); });
    if (!plan.units.empty()) compileUnit(plan.units[0], jtmb, opts, results[0]);
    for (auto& t : pool) t.join();
    return results;
}

}  // namespace

struct KernelJit::Impl {
    std::unique_ptr<orc::LLJIT> jit;
    std::unique_ptr<TargetMachine> tm;
    std::vector<std::string> moduleIr;  ///< per compile unit
    std::vector<int> unitOf;            ///< per kernel
};

KernelJit::~KernelJit() = default;

Expected<std::unique_ptr<KernelJit>> KernelJit::compile(const std::vector<Kernel>& kernels, const JitOptions& opts) {
    initLlvm();
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<KernelJit> kj(new KernelJit());
    kj->m_impl = std::make_unique<Impl>();
    if (opts.prebuilt) {
        // Machine code from an AOT library: nothing to compile, no IR or assembly to show.
        auto entries = opts.prebuilt(kernels);
        if (!entries.ok()) return entries.error();
        if (entries->size() != kernels.size())
            return makeError("AOT library has " + std::to_string(entries->size()) + " kernels, the program " +
                             std::to_string(kernels.size()));
        kj->m_entries = std::move(entries).value();
        std::map<KernelEntry, int> distinct;
        for (size_t i = 0; i < kernels.size(); ++i) {
            kj->m_names.push_back(kernels[i].name);
            kj->m_ir.push_back("; kernel " + kernels[i].name + " was loaded from an AOT library (no IR kept)\n");
            distinct[kj->m_entries[i]] = 1;
        }
        kj->m_distinct = distinct.size();
        kj->m_target = hostTarget();
        kj->m_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return kj;
    }
    auto jtmb = orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) return makeError("LLVM: cannot target this host: " + errStr(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(opts.optLevel >= 3 ? CodeGenOptLevel::Aggressive : CodeGenOptLevel::Default);
    auto tm = jtmb->createTargetMachine();
    if (!tm) return makeError("LLVM: " + errStr(tm.takeError()));
    kj->m_impl->tm = std::move(*tm);
    TargetMachine& TM = *kj->m_impl->tm;
    kj->m_target = TM.getTargetTriple().str() + " " + TM.getTargetCPU().str();

    UnitPlan plan = planUnits(kernels, opts);
    const std::vector<size_t>& repOf = plan.repOf;
    const std::vector<size_t>& reps = plan.reps;
    const std::vector<int>& unitOfRep = plan.unitOfRep;
    kj->m_distinct = reps.size();
    std::vector<UnitResult> results = compileUnits(plan, *jtmb, opts);
    for (const auto& r : results)
        if (!r.error.empty()) return makeError(r.error);

    auto jit = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!jit) return makeError("LLVM: " + errStr(jit.takeError()));
    auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
    if (!gen) return makeError("LLVM: " + errStr(gen.takeError()));
    (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
    for (auto& r : results) {
        if (!r.object) continue;
        if (auto e = (*jit)->addObjectFile(std::move(r.object))) return makeError("LLVM: " + errStr(std::move(e)));
        kj->m_impl->moduleIr.push_back(std::move(r.moduleIr));
    }
    std::map<size_t, KernelEntry> entryOf;
    for (size_t r : reps) {
        auto sym = (*jit)->lookup(kernels[r].name);
        if (!sym) return makeError("LLVM: " + errStr(sym.takeError()));
        entryOf[r] = sym->toPtr<KernelEntry>();
    }
    for (size_t i = 0; i < kernels.size(); ++i) {
        size_t r = repOf[i];
        kj->m_entries.push_back(entryOf[r]);
        kj->m_names.push_back(kernels[r].name);
        kj->m_impl->unitOf.push_back(unitOfRep[r]);
        const auto& fnIr = results[static_cast<size_t>(unitOfRep[r])].fnIr;
        auto it = fnIr.find(kernels[r].name);
        kj->m_ir.push_back(it == fnIr.end() ? std::string()
                           : r == i         ? it->second
                                    : "; identical to kernel " + kernels[r].name + " (compiled once)\n" + it->second);
    }
    kj->m_impl->jit = std::move(*jit);
    kj->m_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return kj;
}

std::string KernelJit::assembly(size_t kernel) const {
    if (kernel >= m_names.size() || kernel >= m_impl->unitOf.size()) return {};
    const std::string& text = m_impl->moduleIr[static_cast<size_t>(m_impl->unitOf[kernel])];
    if (text.empty()) return {};
    LLVMContext ctx;
    SMDiagnostic diag;
    auto mod = parseIR(MemoryBufferRef(text, "kernels"), diag, ctx);
    if (!mod) return "; cannot re-parse the module: " + diag.getMessage().str();
    // Only the requested function.
    for (Function& f : *mod)
        if (f.getName() != m_names[kernel] && !f.isDeclaration()) f.deleteBody();
    SmallString<0> out;
    raw_svector_ostream os(out);
    legacy::PassManager pm;
    if (m_impl->tm->addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::AssemblyFile)) return "; no assembly printer";
    pm.run(*mod);
    return std::string(out.str());
}

std::string hostTarget() {
    initLlvm();
    return sys::getProcessTriple() + " " + sys::getHostCPUName().str();
}

uint64_t kernelCodeHash(const Kernel& k) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : structuralKey(k)) h = (h ^ c) * 1099511628211ull;
    return h;
}

Expected<ObjectEmission> emitObjectFiles(const std::vector<Kernel>& kernels, const std::string& pathPrefix,
                                         const JitOptions& opts) {
    initLlvm();
    auto t0 = std::chrono::steady_clock::now();
    auto jtmb = orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) return makeError("LLVM: cannot target this host: " + errStr(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(opts.optLevel >= 3 ? CodeGenOptLevel::Aggressive : CodeGenOptLevel::Default);
    // A shared library is loaded at any address.
    jtmb->setRelocationModel(Reloc::PIC_);
    JitOptions o = opts;
    o.keepIr = false;
    UnitPlan plan = planUnits(kernels, o);
    std::vector<UnitResult> results = compileUnits(plan, *jtmb, o);
    ObjectEmission em;
    for (size_t u = 0; u < results.size(); ++u) {
        if (!results[u].error.empty()) return makeError(results[u].error);
        if (!results[u].object) continue;
        std::string path = pathPrefix + std::to_string(u) + ".o";
        std::error_code ec;
        raw_fd_ostream f(path, ec);
        if (ec) return makeError("cannot write " + path + ": " + ec.message());
        f << results[u].object->getBuffer();
        f.close();
        if (f.has_error()) return makeError("cannot write " + path + ": " + f.error().message());
        em.objects.push_back(path);
    }
    for (size_t i = 0; i < kernels.size(); ++i) em.symbols.push_back(kernels[plan.repOf[i]].name);
    em.distinct = plan.reps.size();
    em.target = hostTarget();
    em.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return em;
}

}  // namespace fxray::cg::cpu
