#include "minify/inject.h"

#include "ir/op_registry.h"
#include "transforms/passes.h"

#include <chrono>
#include <csignal>
#include <thread>

namespace fxray::minify {

size_t applyScaleFaults(Graph& g, const std::vector<InjectSpec>& faults) {
    const OpInfo* mul = OpRegistry::instance().find("aten.mul.Tensor");
    size_t count = 0;
    for (const auto& f : faults) {
        if (f.kind != InjectSpec::Kind::Scale) continue;
        std::vector<Node*> targets;
        for (const auto& n : g.nodes())
            if (n->kind() == NodeKind::CallFunction && n->opName() == f.op && !n->metaIsTuple && n->meta.size() == 1 &&
                isFloating(n->meta[0].dtype))
                targets.push_back(n.get());
        for (Node* n : targets) {
            const std::string name = n->name();
            g.rename(n, g.uniqueName(name + "__clean"));
            // Insert right after n: before its successor in the node list.
            Node* next = nullptr;
            for (size_t i = 0; i + 1 < g.nodes().size(); ++i)
                if (g.nodes()[i].get() == n) {
                    next = g.nodes()[i + 1].get();
                    break;
                }
            Node* m = g.insertBefore(next, NodeKind::CallFunction, name, "torch.ops.aten.mul.Tensor");
            m->setOp(mul);
            m->args = {Argument::ofNode(n), Argument::ofFloat(f.scale)};
            m->meta = n->meta;
            m->annotated = n->annotated;
            m->sourceComment = n->sourceComment;
            g.replaceAllUsesWith(n, m);
            m->args[0] = Argument::ofNode(n);  // the multiply itself keeps reading the clean value
            g.rebuildUsers();
            ++count;
        }
    }
    return count;
}

namespace {

/// A pass with a fault in front of it.
class FaultyPass final : public Pass {
public:
    FaultyPass(std::unique_ptr<Pass> inner, std::vector<InjectSpec> faults)
            : m_inner(std::move(inner)), m_faults(std::move(faults)) {}
    std::string_view name() const override { return m_inner->name(); }
    std::string_view summary() const override { return m_inner->summary(); }
    bool recurseIntoSubgraphs() const override { return m_inner->recurseIntoSubgraphs(); }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        for (const auto& f : m_faults) {
            bool holds = false;
            for (const auto& n : g.nodes()) holds = holds || n->opName() == f.op;
            if (!holds) continue;
            switch (f.kind) {
            case InjectSpec::Kind::FailIn: return PassResult::failure("injected fault: the graph holds " + f.op);
            case InjectSpec::Kind::CrashIn: std::raise(SIGSEGV); break;
            case InjectSpec::Kind::HangIn:
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            case InjectSpec::Kind::Scale: break;
            }
        }
        return m_inner->runOnGraph(g, ctx);
    }

private:
    std::unique_ptr<Pass> m_inner;
    std::vector<InjectSpec> m_faults;
};

}  // namespace

Expected<std::unique_ptr<PassManager>> buildFaultyPipeline(const std::vector<std::string>& passes,
                                                           const std::vector<InjectSpec>& faults,
                                                           PassManagerOptions opts) {
    auto pm = std::make_unique<PassManager>("minify", opts);
    for (const auto& name : passes) {
        auto p = createPassByName(name);
        if (!p) return makeError("unknown pass '" + name + "'");
        std::vector<InjectSpec> mine;
        for (const auto& f : faults)
            if (f.kind != InjectSpec::Kind::Scale && f.pass == name) mine.push_back(f);
        if (mine.empty())
            pm->addPass(std::move(p));
        else
            pm->addPass(std::make_unique<FaultyPass>(std::move(p), std::move(mine)));
    }
    return pm;
}

Expected<std::vector<std::string>> pipelinePassNames(const std::string& pipeline) {
    auto pm = buildPipeline(pipeline);
    if (!pm.ok()) return pm.error();
    std::vector<std::string> names;
    for (const auto& p : (*pm)->passes()) names.emplace_back(p->name());
    return names;
}

}  // namespace fxray::minify
