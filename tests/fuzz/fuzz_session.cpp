// libFuzzer target: fxray session files (zip + session.json + FX text + .npy constants).
#include "import/session_file.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto s = fxray::loadSessionBuffer(std::string(reinterpret_cast<const char*>(data), size), "fuzz.fxray");
    if (s.ok())
        for (const auto& g : s->file.graphs) (void)g.graph->verify();
    return 0;
}
