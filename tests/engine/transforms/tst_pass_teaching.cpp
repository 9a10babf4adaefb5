// Every registered pass has a teaching paragraph (what, why, the PyTorch file and function), and
// every PyTorch file named is one that was checked to exist in the pytorch tree. A new pass
// without a paragraph, or a typo in a path, fails here.
#include "test_util.h"

#include "transforms/pass_teaching.h"
#include "transforms/passes.h"

#include <QTest>

#include <set>
#include <string>

using namespace fxray;

namespace {

/// Paths confirmed in pytorch/pytorch (the GitHub tree, 2026-11-29, with the function named
/// found in the file where noted). Add a path here only after checking it in the tree.
const std::set<std::string> kVerifiedPytorchFiles = {
    "torch/_inductor/fx_passes/post_grad.py",          // remove_noop_ops, remove_assert_ops
    "torch/_inductor/fx_passes/joint_graph.py",        // constant_fold_uniform_value, pointless_view
    "torch/_inductor/fx_passes/fuse_attention.py",     // _sfdp_init
    "torch/_inductor/fx_passes/misc_patterns.py",      // _misc_patterns_init
    "torch/_inductor/fx_passes/pad_mm.py",             // _pad_mm_init
    "torch/_inductor/fx_passes/binary_folding.py",     // binary_folding_init
    "torch/_inductor/fx_passes/freezing_patterns.py",  // addmm_patterns_init
    "torch/_inductor/pattern_matcher.py",              // stable_topological_sort
    "torch/_inductor/freezing.py",                     // replace_params_with_constants
    "torch/_inductor/constant_folding.py",             // constant_fold
    "torch/_functorch/compile_utils.py",               // fx_graph_cse
    "torch/_functorch/aot_autograd.py",                // aot_module_simplified
    "torch/fx/graph.py",                               // Graph.eliminate_dead_code
    "torch/fx/experimental/optimization.py",           // remove_dropout
};

}  // namespace

class TestPassTeaching : public QObject {
    Q_OBJECT
private slots:
    void everyRegisteredPassHasAParagraph() {
        for (const std::string& name : knownPassNames()) {
            const PassTeaching* t = passTeaching(name);
            QVERIFY2(t, qPrintable(QString::fromStdString("no teaching paragraph for pass " + name)));
            // A paragraph says something: a sentence for what and for why, not a stub.
            QVERIFY2(t->what.size() >= 40, qPrintable(QString::fromStdString(name + ": 'what' is a stub")));
            QVERIFY2(t->why.size() >= 40, qPrintable(QString::fromStdString(name + ": 'why' is a stub")));
            QVERIFY2(!t->pytorchFunction.empty(), qPrintable(QString::fromStdString(name + ": no PyTorch function")));
        }
    }

    void everyParagraphIsOfARegisteredPass() {
        const auto names = knownPassNames();
        const std::set<std::string> known(names.begin(), names.end());
        std::set<std::string> seen;
        for (const PassTeaching& t : passTeachings()) {
            const std::string name(t.pass);
            QVERIFY2(known.count(name), qPrintable(QString::fromStdString("paragraph for unknown pass " + name)));
            QVERIFY2(seen.insert(name).second, qPrintable(QString::fromStdString("two paragraphs for " + name)));
        }
    }

    void pytorchFilesAreRealPaths() {
        for (const PassTeaching& t : passTeachings()) {
            const std::string file(t.pytorchFile);
            QVERIFY2(
                kVerifiedPytorchFiles.count(file),
                qPrintable(QString::fromStdString(std::string(t.pass) + " names " + file +
                                                  ", which is not in the list of paths checked in the pytorch tree")));
        }
    }

    void unknownPassHasNone() { QVERIFY(passTeaching("no_such_pass") == nullptr); }
};

QTEST_GUILESS_MAIN(TestPassTeaching)
#include "tst_pass_teaching.moc"
