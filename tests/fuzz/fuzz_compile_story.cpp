// libFuzzer target: the compile story (record scanning, metrics, graph-break messages, tracebacks,
// output code and provenance payloads) and its JSON and text tree.
#include "import/compile_story.h"
#include "import/compile_story_format.h"

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
    return 0;
}
