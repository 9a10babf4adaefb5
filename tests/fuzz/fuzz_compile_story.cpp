// libFuzzer target: the compile story (record scanning, metrics, graph-break messages, tracebacks,
// output code and provenance payloads) and its JSON and text tree; the input also as an output code
// with itself as its provenance map (import/output_code_map.h, the story pane's code view).
#include "import/compile_story.h"
#include "import/compile_story_format.h"
#include "import/output_code_map.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fxray::CompileStoryOptions opts;
    opts.keepGraphs = true;
    auto s =
        fxray::compileStoryFromText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.log", -1, opts);
    // Strings from the log may be invalid UTF-8: dump replaces rather than throws.
    (void)fxray::compilesJson(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)fxray::compileStoryTree(s);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const fxray::OutputCodeMap m = fxray::mapOutputCode(text, text);
    for (const auto& k : m.kernels)
        for (const auto& [a, b] : k.ranges)
            if (a > b || a < 0) __builtin_trap();  // a range is a span of lines of the text
    return 0;
}
