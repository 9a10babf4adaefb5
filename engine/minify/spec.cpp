#include "minify/spec.h"

#include "codegen/backend.h"
#include "ir/op_registry.h"
#include "transforms/passes.h"

#include <cctype>
#include <cmath>
#include <regex>
#include <sstream>

namespace fxray::minify {

namespace {

Diagnostic specError(const std::string& flag, const std::string& text, const std::string& why) {
    return makeError(flag + " '" + text + "': " + why);
}

std::string joinNames(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

/// Python identifiers joined by dots: what the generated repro may name (keys, backends).
bool dottedName(const std::string& s) {
    if (s.empty() || s.front() == '.' || s.back() == '.') return false;
    bool start = true;
    for (char c : s) {
        if (c == '.') {
            if (start) return false;
            start = true;
            continue;
        }
        const bool alpha = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
        if (!alpha && !(std::isdigit(static_cast<unsigned char>(c)) && !start)) return false;
        start = false;
    }
    return true;
}

/// torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]; the values become Python literals in the
/// generated repro (quoted there), so only their spelling is checked here.
Expected<CheckSpec> parseTorchCompile(const std::string& text, const std::string& rest) {
    const std::string form = "expected torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]";
    CheckSpec c;
    c.kind = CheckSpec::Kind::TorchCompile;
    c.text = text;
    c.backend = "inductor";
    std::string configs = rest;
    const auto colon = rest.find(':');
    std::string head = rest.substr(0, colon);
    // torch-compile:KEY=VALUE,... is Inductor with a config; else the first part names the backend.
    if (head.find('=') == std::string::npos) {
        configs = colon == std::string::npos ? std::string() : rest.substr(colon + 1);
        auto at = head.find('@');
        if (at != std::string::npos) {
            c.device = head.substr(at + 1);
            head = head.substr(0, at);
        }
        if (!head.empty()) c.backend = head;
        if (!dottedName(c.backend)) return specError("--check", text, form + ": bad backend name '" + c.backend + "'");
        if (at != std::string::npos && c.device != "cpu" && c.device != "cuda")
            return specError("--check", text, "DEVICE is cpu or cuda, not '" + c.device + "'");
    }
    std::stringstream ss(configs);
    for (std::string kv; std::getline(ss, kv, ',');) {
        if (kv.empty()) continue;
        auto eq = kv.find('=');
        if (eq == std::string::npos) return specError("--check", text, form + ": '" + kv + "' is not KEY=VALUE");
        std::string key = kv.substr(0, eq);
        if (!dottedName(key))
            return specError("--check", text,
                             "'" + key + "' is not an Inductor config name (e.g. cpp.inject_relu_bug_TESTING_ONLY)");
        c.inductorConfig.emplace_back(key, kv.substr(eq + 1));
    }
    if (!c.inductorConfig.empty() && c.backend != "inductor")
        return specError("--check", text, "KEY=VALUE patches torch._inductor.config: the backend must be inductor");
    return c;
}

}  // namespace

std::string canonicalSide(const std::string& s) {
    if (s == "ref" || s == "ref32") return "ref";
    if (s == "ref64" || s == "cpu" || s == "cuda") return s;
    return "";
}

Expected<CheckSpec> parseCheckSpec(const std::string& text) {
    // "torch-compile" alone: Inductor on the repro's default device.
    if (text == "torch-compile") return parseTorchCompile(text, "");
    const std::string kinds = "pass-fails:NAME:REGEX, accuracy:A-vs-B, command:CMD (or external:CMD), "
                              "torch-compile[:BACKEND[@DEVICE]][:K=V,...]";
    auto colon = text.find(':');
    if (colon == std::string::npos) return specError("--check", text, "expected KIND:... (" + kinds + ")");
    std::string kind = text.substr(0, colon);
    std::string rest = text.substr(colon + 1);
    CheckSpec c;
    c.text = text;
    if (kind == "pass-fails") {
        c.kind = CheckSpec::Kind::PassFails;
        auto c2 = rest.find(':');
        c.pass = rest.substr(0, c2);
        c.regex = c2 == std::string::npos ? std::string() : rest.substr(c2 + 1);
        if (c.pass.empty()) return specError("--check", text, "expected pass-fails:NAME:REGEX with a pass NAME");
        if (!createPassByName(c.pass))
            return specError("--check", text,
                             "unknown pass '" + c.pass + "' (known: " + joinNames(knownPassNames()) + ")");
        try {
            std::regex re(c.regex);
        } catch (const std::regex_error& e) {
            return specError("--check", text, "REGEX does not compile: " + std::string(e.what()));
        }
        return c;
    }
    if (kind == "accuracy") {
        c.kind = CheckSpec::Kind::Accuracy;
        auto vs = rest.find("-vs-");
        if (vs == std::string::npos)
            return specError(
                "--check", text,
                "expected accuracy:A-vs-B (ref-vs-ref64, ref64-vs-ref32, ref-vs-cpu, ref-vs-cuda, cpu-vs-cuda)");
        c.refSide = canonicalSide(rest.substr(0, vs));
        c.testSide = canonicalSide(rest.substr(vs + 4));
        if (c.refSide.empty() || c.testSide.empty())
            return specError("--check", text, "unknown side (sides: ref, ref32, ref64, cpu, cuda)");
        return c;
    }
    if (kind == "torch-compile") return parseTorchCompile(text, rest);
    if (kind == "command" || kind == "external") {
        c.kind = CheckSpec::Kind::Command;
        c.command = rest;
        if (c.command.find_first_not_of(" \t") == std::string::npos)
            return specError("--check", text, "expected command:CMD with a non-empty command");
        return c;
    }
    return specError("--check", text, "unknown check kind '" + kind + "' (" + kinds + ")");
}

Expected<InjectSpec> parseInjectSpec(const std::string& text) {
    const std::string forms = "OP:scale=F, OP:fail-in=PASS, OP:crash-in=PASS, OP:hang-in=PASS";
    auto colon = text.find(':');
    if (colon == std::string::npos) return specError("--inject", text, "expected " + forms);
    InjectSpec s;
    s.text = text;
    s.op = text.substr(0, colon);
    if (s.op.rfind("torch.ops.", 0) == 0) s.op = s.op.substr(10);
    if (!OpRegistry::instance().find(s.op)) {
        // "aten.tanh" means its default overload.
        if (OpRegistry::instance().find(s.op + ".default"))
            s.op += ".default";
        else
            return specError("--inject", text, "unknown op '" + s.op + "' (write it as aten.NAME.OVERLOAD)");
    }
    std::string rest = text.substr(colon + 1);
    auto eq = rest.find('=');
    if (eq == std::string::npos) return specError("--inject", text, "expected " + forms);
    std::string key = rest.substr(0, eq), val = rest.substr(eq + 1);
    if (key == "scale") {
        s.kind = InjectSpec::Kind::Scale;
        size_t used = 0;
        try {
            s.scale = std::stod(val, &used);
        } catch (...) {
            used = 0;
        }
        if (used == 0 || used != val.size() || !std::isfinite(s.scale))
            return specError("--inject", text, "scale takes a finite number, e.g. scale=1.01");
        return s;
    }
    if (key == "fail-in" || key == "crash-in" || key == "hang-in") {
        s.kind = key == "fail-in"    ? InjectSpec::Kind::FailIn
                 : key == "crash-in" ? InjectSpec::Kind::CrashIn
                                     : InjectSpec::Kind::HangIn;
        s.pass = val;
        if (!createPassByName(s.pass))
            return specError("--inject", text,
                             "unknown pass '" + s.pass + "' (known: " + joinNames(knownPassNames()) + ")");
        return s;
    }
    return specError("--inject", text, "unknown fault '" + key + "' (" + forms + ")");
}

Expected<FailureSpec> parseFailureSpec(const std::vector<std::string>& checks,
                                       const std::vector<std::string>& injects) {
    FailureSpec f;
    for (const auto& t : injects) {
        auto s = parseInjectSpec(t);
        if (!s.ok()) return s.error();
        f.injects.push_back(std::move(s).value());
    }
    for (const auto& t : checks) {
        auto c = parseCheckSpec(t);
        if (!c.ok()) return c.error();
        f.checks.push_back(std::move(c).value());
    }
    bool anyScale = false;
    for (const auto& i : f.injects) anyScale = anyScale || i.kind == InjectSpec::Kind::Scale;
    if (f.checks.empty()) {
        if (f.injects.empty()) return makeError("minify needs at least one --check SPEC or --inject SPEC");
        // Pass faults alone mean "that pass fails"; scale faults mean clean vs injected.
        for (const auto& i : f.injects) {
            if (i.kind == InjectSpec::Kind::Scale) continue;
            auto c = parseCheckSpec("pass-fails:" + i.pass + ":");
            if (c.ok()) f.checks.push_back(std::move(c).value());
        }
        if (anyScale) f.checks.push_back(std::move(parseCheckSpec("accuracy:ref-vs-ref")).value());
    }
    for (const auto& c : f.checks) {
        if (c.kind != CheckSpec::Kind::Accuracy) continue;
        if (c.refSide == c.testSide && !anyScale)
            return specError("--check", c.text,
                             "both sides are '" + c.refSide +
                                 "': compare two different sides, or add --inject OP:scale=F");
        for (const auto& side : {c.refSide, c.testSide})
            if (!backendAvailable(side)) {
                auto b = makeBackend(side);
                if (!b.ok()) return specError("--check", c.text, b.error().message);
            }
    }
    return f;
}

}  // namespace fxray::minify
