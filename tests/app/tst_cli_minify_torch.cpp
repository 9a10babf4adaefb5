// fxray minify --check torch-compile: the candidate's own repro.py run by Python under
// torch.compile. CI has no PyTorch, so a fake interpreter (data/fake_torch_python.sh, named by
// FXRAY_PYTHON) plays it: its torch.compile "fails" when the graph calls a given op, with a
// message whose line number and path change with the candidate. The minifier must end at that op
// alone (normalized signature, no slipping); a missing interpreter or torch is a clean exit 2.
// The real run (PyTorch 2.11, Inductor's injected relu bug) is in the note of issue 16.
#include "cli_test_util.h"

#include "minify/spec.h"
#include "minify/torch_check.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::c;
using fxtest::cli;

const std::string kFake = std::string(FXRAY_TESTS_DIR) + "/app/data/fake_torch_python.sh";
const std::string kCheck = "torch-compile:inductor@cpu:cpp.inject_relu_bug_TESTING_ONLY=compile_error";

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
}

/// Sets an environment variable for one scope.
struct Env {
    std::string name;
    Env(const std::string& n, const std::string& v) : name(n) { ::setenv(n.c_str(), v.c_str(), 1); }
    ~Env() { ::unsetenv(name.c_str()); }
};

}  // namespace

class TestCliMinifyTorch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QVERIFY2(fs::exists(kFake), kFake.c_str());
    }

    void specs() {
        using fxray::minify::CheckSpec;
        auto a = fxray::minify::parseCheckSpec(kCheck);
        QVERIFY2(a.ok(), a.ok() ? "" : a.error().str().c_str());
        QVERIFY(a->kind == CheckSpec::Kind::TorchCompile);
        QCOMPARE(a->backend, std::string("inductor"));
        QCOMPARE(a->device, std::string("cpu"));
        QCOMPARE(a->inductorConfig.size(), size_t(1));
        QCOMPARE(a->inductorConfig[0].first, std::string("cpp.inject_relu_bug_TESTING_ONLY"));
        QCOMPARE(a->inductorConfig[0].second, std::string("compile_error"));
        auto plain = fxray::minify::parseCheckSpec("torch-compile");
        QVERIFY(plain.ok() && plain->backend == "inductor" && plain->device.empty());
        auto cfgOnly = fxray::minify::parseCheckSpec("torch-compile:triton.inject_relu_bug_TESTING_ONLY=compile_error");
        QVERIFY(cfgOnly.ok() && cfgOnly->backend == "inductor" && cfgOnly->inductorConfig.size() == 1);
        auto ext = fxray::minify::parseCheckSpec("external:true");
        QVERIFY(ext.ok() && ext->kind == CheckSpec::Kind::Command && ext->command == "true");
        // Names end up in Python source: only dotted identifiers pass.
        QVERIFY(!fxray::minify::parseCheckSpec("torch-compile:inductor@tpu").ok());
        QVERIFY(!fxray::minify::parseCheckSpec("torch-compile:inductor:a b=1").ok());
        QVERIFY(!fxray::minify::parseCheckSpec("torch-compile:x');import os;('").ok());
        QVERIFY(!fxray::minify::parseCheckSpec("torch-compile:aot_eager:cpp.x=1").ok());
    }

    void normalizedSignature() {
        using fxray::minify::normalizeFailure;
        QCOMPARE(normalizeFailure("CppCompileError: C++ compile error"),
                 std::string("CppCompileError: C++ compile error"));
        QCOMPARE(normalizeFailure("RuntimeError: shape '[2, 12]' is invalid for input of size 96"),
                 std::string("RuntimeError: shape '[N, N]' is invalid for input of size N"));
        QCOMPARE(normalizeFailure("E: at 7:11 in /tmp/x/c5xkjsdf.py obj 0x7f3a2b"),
                 std::string("E: at N:N in <path> obj 0x?"));
        QCOMPARE(normalizeFailure("E: kernel cq3tfm5b4wq2zr7x4a5 failed"), std::string("E: kernel <hash> failed"));
    }

    void reducesToTheFailingOp() {
        Env py("FXRAY_PYTHON", kFake);
        Env op("FAKE_TORCH_FAIL_OP", "aten.relu.default");
        auto out = fs::temp_directory_path() / "fxray_tst_minify_torch";
        fs::remove_all(out);
        auto r = cli({"minify", c("mlp/graphs/aot_forward_graph.py"), "--check", kCheck, "--jobs", "2", "--out",
                      out.string(), "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        // The graph file's own count: every placeholder and call node carries one annotation, plus the output.
        const std::string src = slurp(c("mlp/graphs/aot_forward_graph.py"));
        const int before = int(count(src, ": \"f32[")) + 1;
        QCOMPARE(j["nodes_before"].get<int>(), before);
        // relu alone: its input, relu, output.
        QCOMPARE(j["nodes_after"].get<int>(), 3);
        const std::string sig = j["signature"].get<std::string>();
        QVERIFY2(sig.rfind("torch-compile:inductor:torch._inductor.exc.CppCompileError: C++ compile error at line N of "
                           "<path>",
                           0) == 0,
                 sig.c_str());
        const std::string minified = slurp(out / "minified.py");
        QCOMPARE(count(minified, "torch.ops.aten.relu.default("), size_t(1));
        QCOMPARE(count(minified, "torch.ops."), size_t(1));
        // The written repro is the check: its settings are in it.
        const std::string repro = slurp(out / "repro.py");
        QVERIFY(repro.find("INDUCTOR_CONFIG = {'cpp.inject_relu_bug_TESTING_ONLY': 'compile_error'}") !=
                std::string::npos);
        QVERIFY(repro.find("DEVICE = 'cpu'") != std::string::npos);
        QVERIFY(repro.find("torch.compile(Repro(), backend=BACKEND") != std::string::npos);
        fs::remove_all(out);
    }

    void cleanGraphIsNotMinified() {
        Env py("FXRAY_PYTHON", kFake);
        Env op("FAKE_TORCH_FAIL_OP", "aten.gelu.default");  // the mlp has none
        auto r = cli({"minify", c("mlp/graphs/aot_forward_graph.py"), "--check", "torch-compile", "--quiet"});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.find("ran without error") != std::string::npos, r.err.c_str());
    }

    void missingInterpreterIsBadInput() {
        auto r = cli({"minify", c("mlp/graphs/aot_forward_graph.py"), "--check", "torch-compile", "--python",
                      "/nonexistent/python3", "--quiet"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("/nonexistent/python3") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("pip install torch") != std::string::npos, r.err.c_str());
    }

    void missingTorchIsBadInput() {
        Env py("FXRAY_PYTHON", kFake);
        Env missing("FAKE_TORCH_MISSING", "1");
        auto r = cli({"minify", c("mlp/graphs/aot_forward_graph.py"), "--check", "torch-compile", "--quiet"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("cannot import torch (ModuleNotFoundError") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("pip install torch") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliMinifyTorch)
#include "tst_cli_minify_torch.moc"
