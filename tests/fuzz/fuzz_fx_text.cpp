// libFuzzer target: the FX text reader and, for what it accepts, the printer and re-reader.
#include "import/fx_text_reader.h"
#include "ir/printer.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto g = fxray::readFxText(text, "fuzz.py");
    if (!g.ok()) return 0;
    (void)(*g)->verify();
    std::string printed = fxray::printGraph(**g);
    auto again = fxray::readFxText(printed, "printed.py");
    // What the printer writes must read back.
    if (!again.ok()) std::abort();
    return 0;
}
