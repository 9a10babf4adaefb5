#include "models/kernel_report.h"

#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/lowering.h"
#include "codegen/scheduler.h"
#include "ir/graph.h"

#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/llvm_jit.h"
#endif

#include <QCoreApplication>

#include <chrono>
#include <map>

namespace fxray::views {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString shapeText(const cg::Kernel& k) {
    QStringList sizes, reduced;
    for (size_t d = 0; d < k.sizes.size(); ++d) {
        sizes << QString::number(k.sizes[d]);
        if (d < k.reduced.size() && k.reduced[d]) reduced << QString::number(d);
    }
    QString s = QLatin1Char('[') + sizes.join(QStringLiteral(", ")) + QLatin1Char(']');
    if (!reduced.isEmpty())
        s += QCoreApplication::translate("KernelReport", " reduce dim %1").arg(reduced.join(QStringLiteral(", ")));
    return s;
}

/// The "input N" Values the lowering needs: metadata only, at offset 0 as the backends relay them.
Expected<std::vector<Value>> inputMetas(const Graph& g) {
    auto in = cg::cuda::annotatedInputs(g);
    if (!in.ok()) return in.error();
    std::vector<Value> metas = std::move(in).value();
    for (Value& v : metas)
        if (v.isTensor()) {
            TensorMeta m = v.t.meta;
            m.offset = 0;
            v = Value::ofTensor(Tensor::metaOnly(m));
        }
    return metas;
}

}  // namespace

std::vector<int> KernelReport::kernelsOf(const QString& node) const {
    std::vector<int> out;
    for (size_t k = 0; k < kernels.size(); ++k)
        if (kernels[k].nodes.contains(node)) out.push_back(static_cast<int>(k));
    if (out.empty())
        for (const Group& g : groups)
            if (g.node == node && g.kernel >= 0) out.push_back(g.kernel);
    return out;
}

namespace {
struct JitHolder {
#ifdef FXRAY_HAVE_CPU_BACKEND
    std::unique_ptr<cg::cpu::KernelJit> jit;
#endif
    std::map<int, QString> assembly;  ///< generated on demand, on the UI thread
};
}  // namespace

QString KernelReport::assembly(int k) const {
    auto* h = static_cast<JitHolder*>(jit.get());
    if (!h || k < 0 || k >= static_cast<int>(kernels.size())) return {};
    auto it = h->assembly.find(k);
    if (it != h->assembly.end()) return it->second;
    QString text;
#ifdef FXRAY_HAVE_CPU_BACKEND
    if (h->jit) text = qs(h->jit->assembly(static_cast<size_t>(k)));
#endif
    h->assembly[k] = text;
    return text;
}

QString checkCudaModule(const std::string& module) {
    auto ptx = cg::cuda::nvrtcCompile(module, "fxray_graph", "compute_80");
    if (!ptx.ok())
        return QCoreApplication::translate("KernelReport", "CUDA source only: %1").arg(qs(ptx.error().message));
    return QCoreApplication::translate("KernelReport", "NVRTC compiled the module to PTX (compute_80) in %1 ms")
        .arg(ptx->ms, 0, 'f', 0);
}

bool kernelReportHasCpuBackend() {
#ifdef FXRAY_HAVE_CPU_BACKEND
    return true;
#else
    return false;
#endif
}

std::shared_ptr<KernelReport> buildKernelReport(const Graph& g, bool checkNvrtc) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = std::make_shared<KernelReport>();
    r->fingerprint = g.fingerprint();
    auto done = [&] {
        r->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return r;
    };
    auto metas = inputMetas(g);
    if (!metas.ok()) {
        r->error = qs(metas.error().str());
        return done();
    }
    auto lg = cg::lowerGraph(g, *metas);
    if (!lg.ok()) {
        r->error = qs(lg.error().str());
        return done();
    }
    auto prog = cg::schedule(std::move(lg).value());
    if (!prog.ok()) {
        r->error = qs(prog.error().str());
        return done();
    }
    const cg::Program& P = *prog;
    for (const cg::Kernel& k : P.kernels) {
        KernelReport::Kernel rk;
        rk.name = qs(k.name);
        for (const std::string& n : k.nodes) rk.nodes << qs(n);
        rk.shape = shapeText(k);
        rk.listing = qs(cg::kernelToText(k));
        r->kernels.push_back(std::move(rk));
    }
    for (const cg::NodeGroup& ng : P.groups)
        r->groups.push_back(
            {qs(ng.node), qs(std::string(cg::nodeGroupKindName(ng.kind))), ng.kernel, qs(ng.kernelName)});

    // The CUDA backend lowers and schedules exactly as above, so these are the same kernels.
    auto src = cg::cuda::generateCudaSource(P.kernels);
    if (src.ok()) {
        for (size_t k = 0; k < r->kernels.size() && k < src->kernelSources.size(); ++k)
            r->kernels[k].cuda = qs(src->kernelSources[k]);
        r->cudaModule = src->source;
        if (checkNvrtc && !P.kernels.empty()) r->nvrtcStatus = checkCudaModule(r->cudaModule);
    } else {
        r->nvrtcStatus = QCoreApplication::translate("KernelReport", "no CUDA source: %1").arg(qs(src.error().str()));
    }

    auto holder = std::make_shared<JitHolder>();
#ifdef FXRAY_HAVE_CPU_BACKEND
    auto jit = cg::cpu::KernelJit::compile(P.kernels);
    if (!jit.ok()) {
        r->error = qs(jit.error().str());
    } else {
        holder->jit = std::move(jit).value();
        r->haveCpu = true;
        r->cpuTarget = qs(holder->jit->target());
        for (size_t k = 0; k < r->kernels.size(); ++k) r->kernels[k].llvmIr = qs(holder->jit->irText(k));
    }
#endif
    r->jit = holder;
    return done();
}

}  // namespace fxray::views
