// libFuzzer target: the .npy parser.
#include "import/npy.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto t = fxray::parseNpy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    (void)t;
    return 0;
}
