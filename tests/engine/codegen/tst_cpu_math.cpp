// The CPU backend's inline fp32 tanh and erf (codegen/cpu/llvm_jit.cpp: exp + polynomials, so
// that GELU loops vectorise) against the C library in double, element by element over the
// whole float range that matters: tiny values (relative accuracy), both polynomial/exp branch
// boundaries, saturation, infinities and NaN.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/ops/kernel_util.h"
#include "import/loader.h"

#include <cmath>
#include <fstream>
#include <limits>

using namespace fxray;

class TestCpuMath : public QObject {
    Q_OBJECT
private slots:
    void tanhAndErf() {
        std::vector<double> xs;
        for (double m = 1e-30; m < 1e-2; m *= 3.7) xs.insert(xs.end(), {m, -m});
        for (int i = -6000; i <= 6000; ++i) xs.push_back(i * 0.002);  // [-12, 12], both boundaries
        for (double b : {0.0625, 0.5}) xs.insert(xs.end(), {std::nextafter(b, 0.0), b, -b, std::nextafter(b, 1.0)});
        const double inf = std::numeric_limits<double>::infinity();
        xs.insert(xs.end(), {0.0, 30.0, -30.0, inf, -inf, std::nan("")});
        const size_t n = xs.size();
        const std::string dir = QDir::tempPath().toStdString() + "/fxray_tst_cpu_math_" +
                                std::to_string(QCoreApplication::applicationPid());
        QDir().mkpath(QString::fromStdString(dir));
        const std::string file = dir + "/math.py";
        {
            std::ofstream f(file);
            const std::string ty = "\"f32[" + std::to_string(n) + "][1]cpu\"";
            f << "class GraphModule(torch.nn.Module):\n"
              << "    def forward(self, x: " << ty << "):\n"
              << "        tanh: " << ty << " = torch.ops.aten.tanh.default(x)\n"
              << "        erf: " << ty << " = torch.ops.aten.erf.default(x)\n"
              << "        return (tanh, erf)\n";
        }
        auto lf = loadFile(file);
        QVERIFY2(lf.ok(), lf.ok() ? "" : lf.error().str().c_str());
        Graph& g = lf->graphs[0].executable();
        TensorMeta m = TensorMeta::contiguous({static_cast<int64_t>(n)}, DType::Float32, Device{});
        std::vector<Value> in{Value::ofTensor(kern::makeTensor(m, xs))};
        auto cg = cg::cpu::CompiledGraph::compile(g, in);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        auto out = (*cg)->run(in);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        QCOMPARE(out->size(), size_t(2));
        const auto th = kern::toDoubles((*out)[0].t), er = kern::toDoubles((*out)[1].t);
        for (size_t i = 0; i < n; ++i) {
            const double x = static_cast<float>(xs[i]);  // the fp32 input the kernel saw
            const double et = std::tanh(x), ee = std::erf(x);
            if (std::isnan(x)) {
                QVERIFY(std::isnan(th[i]) && std::isnan(er[i]));
                continue;
            }
            // tanh: relative everywhere (a few ulps of exp in the 1/16 <= |x| branch).
            QVERIFY2(std::abs(th[i] - et) <= 4e-6 * std::abs(et) + 1e-45,
                     qPrintable(QString("tanh(%1) = %2, want %3").arg(x).arg(th[i]).arg(et)));
            // erf: relative below 1/2 (the series), absolute 3e-7 above (A&S 7.1.26).
            const double tol = std::abs(x) < 0.5 ? 1e-6 * std::abs(ee) + 1e-45 : 3e-7;
            QVERIFY2(std::abs(er[i] - ee) <= tol,
                     qPrintable(QString("erf(%1) = %2, want %3").arg(x).arg(er[i]).arg(ee)));
        }
        QDir(QString::fromStdString(dir)).removeRecursively();
    }
};

QTEST_GUILESS_MAIN(TestCpuMath)
#include "tst_cpu_math.moc"
