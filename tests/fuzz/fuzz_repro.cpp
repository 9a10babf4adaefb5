// libFuzzer target: the runnable-repro reader (load_args parsed as data, never run).
#include "import/repro_reader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> warnings;
    auto g = fxray::readReproText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.py", warnings);
    (void)g;
    return 0;
}
