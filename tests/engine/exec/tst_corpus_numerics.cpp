// The reference executor against PyTorch: every recorded AOT graph run of the corpus (joint,
// forward, backward, inference) is re-executed on its recorded inputs and must reproduce the
// recorded outputs (rel_err <= 1e-4 fp32, <= 1e-2 fp16, exact for integers and bool).
#include "numerics_case.h"

#include "exec/compare.h"
#include "exec/interpreter.h"
#include "exec/run_check.h"
#include "import/loader.h"

#include <filesystem>
#include <set>

using namespace fxray;
namespace fs = std::filesystem;

class TestCorpusNumerics : public QObject {
    Q_OBJECT
private slots:
    void run_data() { fxtest::addNumericsRows(); }

    void run() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase(model.toStdString(), stage.toStdString(), nc);
        QVERIFY2(problem.empty(), problem.c_str());
        Graph& g = nc.graph();
        RunRequest& req = nc.req;
        const std::vector<Value>* expect = &nc.expect;
        auto res = runAndCheck(g, req, expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            if (c.fp64Judged)
                qInfo("output %zu judged against fp64 (rel_err %.3g is rounding noise): %s", c.index, c.relErr,
                      c.note.c_str());
            compared += (*expect)[c.index].isTensor();
        }
        QVERIFY(compared > 0);
    }
};

QTEST_GUILESS_MAIN(TestCorpusNumerics)
#include "tst_corpus_numerics.moc"
