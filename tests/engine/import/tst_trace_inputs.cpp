// Input specs from TORCH_TRACE's describe_tensor / describe_source records, checked against the
// inputs PyTorch recorded for the same Dynamo graphs (numerics/dynamo/inputs/*.npy).
#include "test_util.h"

#include "import/fx_text_reader.h"
#include "import/npy.h"
#include "import/torch_trace_reader.h"
#include "import/trace_inputs.h"

#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

class TestTraceInputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void placeholderNames() {
        // Source strings and placeholder names as they appear in corpus/mlp's trace and graphs.
        QCOMPARE(dynamoPlaceholderName("L['fn']._modules['0']._parameters['weight']"),
                 std::string("L_fn_modules_0_parameters_weight_"));
        QCOMPARE(dynamoPlaceholderName("L['args'][0]"), std::string("L_args_0_"));
        QCOMPARE(dynamoPlaceholderName("L['x']"), std::string("L_x_"));
    }

    void specsMatchRecordedDynamoInputs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        int models = 0;
        for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
            fs::path trace = model.path() / "trace/torch_trace.log";
            fs::path inputs = model.path() / "numerics/dynamo/inputs";
            if (!fs::exists(trace) || !fs::exists(inputs)) continue;
            const std::string name = model.path().filename().string();
            auto f = readTorchTrace(trace);
            QVERIFY2(f.ok(), name.c_str());
            // The trace's Dynamo graph that numerics/dynamo.py is a dump of (same placeholders).
            auto ref = readFxFile(model.path() / "numerics/dynamo.py");
            QVERIFY(ref.ok());
            auto targets = [](const Graph& g) {
                std::vector<std::string> t;
                for (const Node* p : g.placeholders()) t.push_back(p->target());
                return t;
            };
            const LoadedGraph* dyn = nullptr;
            for (const auto& g : f->graphs)
                if (!dyn && g.stage == "dynamo_output_graph" && targets(*g.graph) == targets(**ref)) dyn = &g;
            QVERIFY2(dyn, name.c_str());
            std::vector<fs::path> npys;
            for (const auto& e : fs::directory_iterator(inputs)) npys.push_back(e.path());
            std::sort(npys.begin(), npys.end());
            QVERIFY2(dyn->inputSpecs.size() == npys.size(),
                     (name + ": " + std::to_string(dyn->inputSpecs.size()) + " specs, " + std::to_string(npys.size()) +
                      " recorded inputs")
                         .c_str());
            for (size_t i = 0; i < npys.size(); ++i) {
                auto t = readNpy(npys[i]);
                QVERIFY(t.ok());
                const InputSpec& s = dyn->inputSpecs[i];
                QVERIFY2(s.meta.shape == t->meta.shape && s.meta.dtype == t->meta.dtype,
                         (name + " input " + std::to_string(i) + " (" + s.name + "): " + s.meta.annotation() +
                          " vs recorded " + t->meta.annotation(false, false))
                             .c_str());
                QCOMPARE(s.meta.device.type, std::string("cuda"));
            }
            ++models;
        }
        QVERIFY(models >= 10);
    }

    void aotGraphsInheritSpecs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto f = readTorchTrace(fxtest::corpus() / "mlp/trace/torch_trace.log");
        QVERIFY(f.ok());
        const LoadedGraph* joint = nullptr;
        for (const auto& g : f->graphs)
            if (g.stage == "aot_joint_graph") joint = &g;
        QVERIFY(joint);
        // mlp = Linear(64,128), ReLU, Linear(128,32) on a [16, 64] input: primals are w0, b0, x,
        // w1, b1; then one tangent per output.
        QVERIFY(joint->inputSpecs.size() >= 6);
        QCOMPARE(joint->inputSpecs[0].name, std::string("primals_1"));
        QCOMPARE(joint->inputSpecs[0].meta.shape, (std::vector<int64_t>{128, 64}));
        QCOMPARE(joint->inputSpecs[0].meta.strides, (std::vector<int64_t>{64, 1}));
        QVERIFY(joint->inputSpecs[0].requiresGrad);   // a parameter
        QVERIFY(!joint->inputSpecs[2].requiresGrad);  // the user input
        QCOMPARE(joint->inputSpecs[2].meta.shape, (std::vector<int64_t>{16, 64}));
        QCOMPARE(joint->inputSpecs.size(), joint->graph->placeholders().size());
    }

    void symbolicAndDamagedRecordsAreSkipped() {
        // A symbolic size, a tensor without dtype and a source without a tensor: no specs, no crash.
        fs::path dir = fs::temp_directory_path() / "fxray_trace_inputs";
        fs::create_directories(dir);
        fs::path p = dir / "t.log";
        std::string pre = "V1121 22:31:45.103000 3016 torch/x.py:1] ";
        std::string env = R"x(, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})x";
        std::ofstream o(p);
        o << pre
          << R"x({"describe_tensor": {"id": 0, "describer_id": 0, "size": ["s0", 4], "stride": [4, 1], "dtype": "torch.float32", "device": "device(type='cpu')"})x"
          << env << "\n";
        o << pre << R"x({"describe_tensor": {"id": 1, "describer_id": 0, "size": [2]})x" << env << "\n";
        o << pre << R"x({"describe_source": {"describer_id": 0, "id": 0, "source": "L['x']"}})x" << env << "\n";
        o << pre << R"x({"describe_source": {"describer_id": 0, "id": 7, "source": "L['y']"}})x" << env << "\n";
        o << pre
          << R"x({"dynamo_output_graph": {"sizes": {}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "0"})x"
          << "\n";
        o << "\tclass GraphModule(torch.nn.Module):\n\t    def forward(self, L_x_: \"f32[3, 4]\", L_y_: \"f32[2]\"):\n"
             "\t        return (L_x_,)\n\t        \n";
        o.close();
        auto f = readTorchTrace(p);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        QCOMPARE(f->graphs.size(), size_t(1));
        QVERIFY(f->graphs[0].inputSpecs.empty());
        fs::remove_all(dir);
    }
};

QTEST_GUILESS_MAIN(TestTraceInputs)
#include "tst_trace_inputs.moc"
