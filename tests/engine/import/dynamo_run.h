#pragma once
// What the Dynamo-lowering tests of popular blocks share: a torch-level graph written in the test,
// lowered to ATen and run on the reference executor.
#include "test_util.h"

#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"

#include <string>
#include <vector>

namespace fxtest {

/// The outputs of a Dynamo graph (`forward(self, <params>)`, body lines) lowered to ATen and run
/// on `in`; empty (the test failed) on any error.
inline std::vector<fxray::Value> lowerAndRun(const std::string& params, const std::string& body,
                                             const std::vector<fxray::Value>& in) {
    using namespace fxray;
    auto g =
        readFxText("class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body, "dynamo.py");
    if (!g.ok()) {
        QTest::qFail(g.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    if (Status st = lowerToAten(**g); !st.ok()) {
        QTest::qFail(st.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    resolveOps(**g);
    (void)inferMeta(**g);  // as the loader and the lower-to-ATen pass do after lowering
    RunRequest req;
    req.inputs = in;
    auto r = runAndCheck(**g, req, nullptr);
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return r->outputs;
}

/// Lowering the Dynamo graph (params, body as for lowerAndRun) to ATen fails with an error; the
/// test fails instead where the text does not parse.
inline bool loweringRefuses(const std::string& params, const std::string& body) {
    using namespace fxray;
    auto g =
        readFxText("class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body, "dynamo.py");
    if (!g.ok()) {
        QTest::qFail(g.error().str().c_str(), __FILE__, __LINE__);
        return false;
    }
    return !lowerToAten(**g).ok();
}

}  // namespace fxtest
