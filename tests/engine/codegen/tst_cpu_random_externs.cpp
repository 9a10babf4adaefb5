// The CPU backend's random extern kernels continue the reference executor's generator exactly:
// randn / randn_like (Box-Muller, two draws per element), rand and randperm in one graph give the
// reference's values for a seed, so a later random op sees the same stream position on both;
// Inductor's seed ops (inductor_seeds, inductor_lookup_seed, inductor_random) likewise.
#include "cpu_lowering_check.h"
#include "test_util.h"

#include "exec/run_check.h"

#include <algorithm>
#include <cmath>

using namespace fxray;

class TestCpuRandomExterns : public QObject {
    Q_OBJECT
private slots:
    void normalsAndUniformsAreTheReferenceStream() {
        auto g = fxtest::parseForward(
            "x: \"f64[3, 5][5, 1]cpu\"",
            "        randn: \"f32[700][1]cpu\" = torch.ops.aten.randn.default([700], dtype = torch.float32, device = "
            "device(type='cpu'), pin_memory = False)\n"
            "        randn_like: \"f64[3, 5][5, 1]cpu\" = torch.ops.aten.randn_like.default(x, pin_memory = False)\n"
            "        randperm: \"i64[50][1]cpu\" = torch.ops.aten.randperm.default(50, device = device(type='cpu'), "
            "pin_memory = False)\n"
            "        rand: \"f32[9][1]cpu\" = torch.ops.aten.rand.default([9], dtype = torch.float32, device = "
            "device(type='cpu'), pin_memory = False)\n"
            "        return (randn, randn_like, randperm, rand)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({3, 5}, std::vector<double>(15, 0.5), DType::Float64)};
        RunRequest req;
        req.inputs = in;
        req.seed = 99;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        // Normals: mean near 0 and spread near 1 over 700 draws (a stream, not a constant).
        const auto n = fxtest::values(ref->outputs[0]);
        double mean = 0, sq = 0;
        for (double v : n) mean += v / double(n.size());
        for (double v : n) sq += (v - mean) * (v - mean) / double(n.size());
        QVERIFY(std::abs(mean) < 0.15 && std::abs(std::sqrt(sq) - 1.0) < 0.15);
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out, 99);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), ref->outputs.size());
        for (size_t i = 0; i < ref->outputs.size(); ++i)
            QCOMPARE(fxtest::values(out[i]), fxtest::values(ref->outputs[i]));
    }

    void inductorSeedOpsAreTheReference() {
        // What Inductor's post-grad graphs hold for random ops: a seed tensor drawn once, one
        // seed looked up per op, and inductor_random seeded by it ("rand" and "randn"). The CPU
        // backend runs them as its own kernels (lookup_seed as a lowered load) and gives the
        // reference's values for a run's seed.
        auto g = fxtest::parseForward(
            "x: \"f32[2][1]cpu\"",
            "        seeds: \"i64[3][1]cpu\" = torch.ops.prims.inductor_seeds.default(3, device(type='cpu'))\n"
            "        s1: \"i64[][]cpu\" = torch.ops.prims.inductor_lookup_seed.default(seeds, 1)\n"
            "        s2: \"i64[][]cpu\" = torch.ops.prims.inductor_lookup_seed.default(seeds, 2)\n"
            "        u: \"f32[4, 5][5, 1]cpu\" = torch.ops.prims.inductor_random.default([4, 5], s1, 'rand')\n"
            "        n: \"f32[300][1]cpu\" = torch.ops.prims.inductor_random.default([300], s2, 'randn')\n"
            "        return (seeds, u, n)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2}, {0, 0})};
        RunRequest req;
        req.inputs = in;
        req.seed = 7;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        const auto seeds = fxtest::values(ref->outputs[0]);
        QVERIFY(seeds[0] != seeds[1] && seeds[1] != seeds[2]);
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out, 7);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), ref->outputs.size());
        for (size_t i = 0; i < ref->outputs.size(); ++i)
            QCOMPARE(fxtest::values(out[i]), fxtest::values(ref->outputs[i]));
    }
};

QTEST_GUILESS_MAIN(TestCpuRandomExterns)
#include "tst_cpu_random_externs.moc"
