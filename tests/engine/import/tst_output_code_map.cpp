// Kernels of Inductor's output code with their lines and post-grad nodes (import/output_code_map.h),
// on the real PyTorch 2.11 inductor_provenance log. Expected values are worked out from the log by
// tests/views/data/story_output_code_expect.py and a reading of its payloads: the forward code
// (302 lines, AOT id 0_forward) has 5 kernels whose nodes are the provenance map's cppCodeToPost;
// the backward code (0_backward) has an empty provenance map ({"version": 2.0}), so its Triton
// kernels take the `%node = call_function` lines of their graph fragments and its 4 mm calls none.
#include "test_util.h"

#include "import/loader.h"
#include "import/output_code_map.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path traces() { return fxtest::corpus().parent_path() / "traces"; }

std::set<std::string> asSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

const OutputCodeKernel* kernel(const OutputCodeMap& m, const std::string& name) {
    for (const auto& k : m.kernels)
        if (k.name == name) return &k;
    return nullptr;
}

}  // namespace

class TestOutputCodeMap : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(traces() / "inductor_provenance")) QSKIP("traces not found next to FXRAY_CORPUS_DIR");
        auto f = loadFile(traces() / "inductor_provenance" / "trace");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        for (const Artifact& a : f->artifacts) {
            if (a.name == "inductor_output_code") codes.push_back(a.text);
            if (a.name == "inductor_provenance_tracking_node_mappings") provs.push_back(a.text);
        }
        QCOMPARE(codes.size(), size_t(2));
        QCOMPARE(provs.size(), size_t(2));
    }

    void forwardWithProvenance() {
        const OutputCodeMap m = mapOutputCode(codes[0], provs[0]);
        QCOMPARE(m.aotId, std::string("0_forward"));
        QCOMPARE(m.kernels.size(), size_t(5));
        // Every kernel's nodes are the provenance map's entry for its call site's handle.
        auto j = nlohmann::json::parse(provs[0])["cppCodeToPost"];
        for (const auto& k : m.kernels) {
            QVERIFY2(j.contains(k.handle), k.name.c_str());
            QCOMPARE(asSet(k.nodes), asSet(j[k.handle].get<std::vector<std::string>>()));
        }
        const OutputCodeKernel* gelu = kernel(m, "triton_poi_fused_gelu_view_1");
        QVERIFY(gelu);
        QCOMPARE(gelu->handle, std::string("triton_poi_fused_gelu_view_1:3"));
        QCOMPARE(gelu->ranges, (std::vector<std::pair<int, int>>{{120, 167}, {258, 261}}));
        const OutputCodeKernel* addmm = kernel(m, "extern_kernels.addmm");
        QVERIFY(addmm);
        QCOMPARE(addmm->ranges, (std::vector<std::pair<int, int>>{{253, 255}}));
        QCOMPARE(m.kernelsAtLine(162), std::vector<int>{int(gelu - m.kernels.data())});
        QCOMPARE(m.kernelsOfNode("erf"), std::vector<int>{int(gelu - m.kernels.data())});
        QVERIFY(m.kernelsAtLine(0).empty());
    }

    void backwardFromGraphFragments() {
        const OutputCodeMap m = mapOutputCode(codes[1], provs[1]);
        QCOMPARE(m.aotId, std::string("0_backward"));
        QCOMPARE(m.kernels.size(), size_t(8));  // 4 Triton kernels, 4 extern_kernels.mm calls
        const OutputCodeKernel* sum = kernel(m, "triton_per_fused_sum_view_0");
        QVERIFY(sum);
        QCOMPARE(asSet(sum->nodes), (std::set<std::string>{"sum_1", "view_4"}));
        const OutputCodeKernel* ln = kernel(m, "triton_per_fused_native_layer_norm_native_layer_norm_backward_view_3");
        QVERIFY(ln);
        QCOMPARE(asSet(ln->nodes), (std::set<std::string>{"mul", "mul_17", "sub", "sum_5", "sum_6", "view_9"}));
        int mms = 0;
        for (const auto& k : m.kernels)
            if (k.name == "extern_kernels.mm") {
                ++mms;
                QVERIFY(k.nodes.empty());
                QCOMPARE(k.ranges.size(), size_t(1));
            }
        QCOMPARE(mms, 4);
    }

    // Text that is not output code, or is cut short, gives what it can and never crashes.
    void damaged() {
        QVERIFY(mapOutputCode("").kernels.empty());
        QVERIFY(mapOutputCode("hello\nworld", "{not json").kernels.empty());
        const OutputCodeMap cut = mapOutputCode("# a\nk = async_compile.triton('k', '''\nx = 1\n", "[1, 2]");
        QCOMPARE(cut.kernels.size(), size_t(1));
        QCOMPARE(cut.kernels[0].ranges, (std::vector<std::pair<int, int>>{{0, 1}}));
        std::string half = codes[0].substr(0, codes[0].size() / 2);
        const OutputCodeMap h = mapOutputCode(half, provs[0]);
        QVERIFY(h.kernels.size() <= 5);
        std::string noise;
        for (int i = 0; i < 4000; ++i) noise += char((i * 7919) % 251 + 1);
        mapOutputCode(noise + codes[0] + noise, R"({"cppCodeToPost": {"x": 3, "y": [1, "a"]}})");
    }

private:
    std::vector<std::string> codes, provs;
};

QTEST_GUILESS_MAIN(TestOutputCodeMap)
#include "tst_output_code_map.moc"
