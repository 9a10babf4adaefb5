// The one op table: the registry assembled at start-up links every layer's concern to its entry
// (VJP rule, partitioner class, lowering, CPU and CUDA paths), and assembly fails, naming the
// table and the op, when a table names an op the registry lacks.
#include "test_util.h"

#include "autodiff/vjp.h"
#include "codegen/cuda/cuda_ops.h"
#include "codegen/lowering.h"
#include "exec/complex_to_real.h"
#include "exec/ops/register.h"
#include "partition/op_classes.h"
#include "registry/assemble.h"
#include "registry/coverage.h"
#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/cpu_ops.h"
#endif

#include <set>

using namespace fxray;

namespace {

/// A registry holding exec's reference ops only (what the upper tables attach to).
std::unique_ptr<OpRegistry> referenceOnly() {
    auto r = std::make_unique<OpRegistry>();
    registerAllOps(*r);
    return r;
}

void noRule(VjpCall&) {}
std::optional<cg::LValue> noLowering(cg::LowerCtx&) { return std::nullopt; }

/// The failure names the table (by a word of it) and the op.
void expectNames(const Status& s, const std::string& table, const std::string& op) {
    QVERIFY2(!s.ok(), ("attaching a table that names " + op + " succeeded").c_str());
    const std::string& m = s.error().message;
    QVERIFY2(m.find(table) != std::string::npos, m.c_str());
    QVERIFY2(m.find(op) != std::string::npos, m.c_str());
}

}  // namespace

class TestOpTable : public QObject {
    Q_OBJECT
private slots:
    /// What the test programs run on: assembled before the first test function.
    void processRegistryIsAssembled() {
        QVERIFY(OpRegistry::installed());
        QVERIFY(OpRegistry::instance().find("aten.mm.default"));
        // initOpRegistry is idempotent; a second registry is not installed over the first.
        const OpRegistry* before = &OpRegistry::instance();
        initOpRegistry();
        QCOMPARE(&OpRegistry::instance(), before);
        QVERIFY(!OpRegistry::install(std::make_unique<OpRegistry>()));
        QCOMPARE(&OpRegistry::instance(), before);
    }

    /// Every real table's names exist: a scratch assembly succeeds, and each table is checked
    /// name by name so that a failure lists every missing op at once.
    void everyTableNamesRegisteredOps() {
        OpRegistry scratch;
        Status s = assembleOpRegistry(scratch);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
        QCOMPARE(scratch.all().size(), OpRegistry::instance().all().size());

        const OpRegistry& reg = OpRegistry::instance();
        std::vector<std::string> missing;
        for (const auto& rule : vjpRuleTable())
            if (!reg.find(rule.qualname)) missing.push_back("vjp: " + std::string(rule.qualname));
        for (std::string_view op : nonDifferentiableOps())
            if (!reg.find(op)) missing.push_back("non-differentiable: " + std::string(op));
        for (const auto& rule : cg::loweringRuleTable())
            if (!reg.find(rule.qualname)) missing.push_back("lowering: " + rule.qualname);
        for (const auto& [op, kernel] : cg::externKernelNames())
            if (!reg.find(op)) missing.push_back("extern " + kernel + ": " + op);
#ifdef FXRAY_HAVE_CPU_BACKEND
        for (const auto& re : cg::cpu::qualnameExterns())
            if (!reg.find(re.qualname)) missing.push_back("cpu extern by qualname: " + std::string(re.qualname));
#endif
        std::string list;
        for (const auto& m : missing) list += m + "\n";
        QVERIFY2(missing.empty(), list.c_str());
    }

    /// The entries link to what each layer has: a sample of ops with known facts.
    void entriesLinkEveryConcern() {
        const OpRegistry& reg = OpRegistry::instance();
        const OpInfo* mm = reg.find("aten.mm.default");
        QVERIFY(mm && mm->kernel && mm->meta);
        QVERIFY(mm->vjp);
        QCOMPARE(std::string(mm->vjp->qualname), std::string("aten.mm.default"));
        QCOMPARE(std::string(mm->externKernel), std::string("mm"));
        QVERIFY(mm->cuda == BackendPath::Extern);
        QVERIFY(mm->opClass && mm->opClass->computeIntensive);
#ifdef FXRAY_HAVE_CPU_BACKEND
        QVERIFY(mm->cpu == BackendPath::Extern);
#endif
        const OpInfo* add = reg.find("aten.add.Tensor");
        QVERIFY(add && add->lowering && add->vjp);
        QVERIFY(add->cuda == BackendPath::Lowered);
        QVERIFY(add->opClass && add->opClass->recomputable && !add->opClass->view);
        const OpInfo* view = reg.find("aten.view.default");
        QVERIFY(view && view->opClass && view->opClass->view);
        const OpInfo* detach = reg.find("aten.detach.default");
        QVERIFY(detach && detach->nonDifferentiable && !detach->vjp);
        // The string-keyed lookups answer from the entries.
        QCOMPARE(findVjp("aten.mm.default"), mm->vjp);
        QVERIFY(isNonDifferentiable("aten.detach.default"));
        QVERIFY(!findVjp("aten.no_such_op.default"));
#ifdef FXRAY_HAVE_CPU_BACKEND
        // Random ops are attached by qualname (no lowering names them): randperm runs as an extern
        // on both backends; an op with neither stays on the reference kernel.
        const OpInfo* randperm = reg.find("aten.randperm.default");
        QVERIFY(randperm && randperm->cpu == BackendPath::Extern && randperm->cuda == BackendPath::Extern);
        const OpInfo* pad = reg.find("aten.pad.default");
        QVERIFY(pad && pad->cpu == BackendPath::Reference && pad->cuda == BackendPath::Reference);
#endif
    }

    void bogusVjpRuleFailsAssembly() {
        auto r = referenceOnly();
        static const std::vector<VjpRule> rules = {{"aten.no_such_op.default", noRule}};
        expectNames(attachAutodiff(*r, rules, {}), "VJP", "aten.no_such_op.default");
    }

    void bogusNonDifferentiableOpFailsAssembly() {
        auto r = referenceOnly();
        static const std::vector<std::string_view> ops = {"aten.detach.default", "aten.not_an_op.default"};
        expectNames(attachAutodiff(*r, {}, ops), "non-differentiable", "aten.not_an_op.default");
    }

    void bogusLoweringFailsAssembly() {
        auto r = referenceOnly();
        static const std::vector<cg::LoweringRule> rules = {{"aten.relu.default", noLowering},
                                                            {"aten.no_such_lowering.default", noLowering}};
        expectNames(cg::attachLowerings(*r, rules, {}), "lowering", "aten.no_such_lowering.default");
    }

    void bogusExternKernelFailsAssembly() {
        auto r = referenceOnly();
        static const std::map<std::string, std::string> externs = {{"aten.mm.default", "mm"},
                                                                   {"aten.no_such_gemm.default", "gemm"}};
        expectNames(cg::attachLowerings(*r, {}, externs), "extern", "aten.no_such_gemm.default");
    }

    void bogusDeviceKernelFailsAssembly() {
        auto r = referenceOnly();
        expectNames(cg::cuda::attachCudaKernels(*r, {"mm", "no_such_kernel"}), "CUDA", "no_such_kernel");
    }

#ifdef FXRAY_HAVE_CPU_BACKEND
    void bogusCpuKernelFailsAssembly() {
        auto r = referenceOnly();
        expectNames(cg::cpu::attachCpuKernels(*r, {"no_such_kernel"}, {}), "CPU", "no_such_kernel");
        static const std::vector<cg::cpu::QualnameExtern> random = {{"aten.no_such_rand.default", "rand"}};
        expectNames(cg::cpu::attachCpuKernels(*r, {}, random), "CPU", "aten.no_such_rand.default");
    }
#endif

    /// Two rules for one op: the table is ambiguous and assembly says which op.
    void duplicateRuleFailsAssembly() {
        auto r = referenceOnly();
        static const std::vector<VjpRule> rules = {{"aten.relu.default", noRule}, {"aten.relu.default", noRule}};
        expectNames(attachAutodiff(*r, rules, {}), "twice", "aten.relu.default");
    }

    /// The coverage rows come from the entries: one per op, sorted, the columns' words.
    void coverageHasOneRowPerOp() {
        auto rows = opCoverage(OpRegistry::instance());
        QCOMPARE(rows.size(), OpRegistry::instance().all().size());
        QVERIFY(std::is_sorted(rows.begin(), rows.end(),
                               [](const OpCoverage& a, const OpCoverage& b) { return a.qualname < b.qualname; }));
        const std::set<std::string> cpu = {"lowered", "extern", "reference", "n/a", "rewritten"},
                                    cuda = {"lowered", "extern", "host", "rewritten"},
                                    vjp = {"rule", "non-diff", "none"};
        for (const auto& r : rows) {
            QVERIFY2(cpu.count(r.cpu) && cuda.count(r.cuda) && vjp.count(r.vjp), r.qualname.c_str());
            // "rewritten" is for the complex-only ops (exec/complex_to_real.h), and always for them.
            QCOMPARE(r.cuda == "rewritten", isComplexOnlyOp(r.qualname));
        }
    }
};

QTEST_GUILESS_MAIN(TestOpTable)
#include "tst_op_table.moc"
