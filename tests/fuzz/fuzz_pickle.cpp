// libFuzzer target: the restricted pickle VM (state dicts), with the GraphModule opt-in on for
// half of the inputs so both global allowlists are exercised.
#include "import/pickle.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    fxray::PickleOptions opts;
    opts.allowGraphModule = (data[0] & 1) != 0;
    auto r = fxray::unpickle(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), "fuzz.pkl", opts);
    (void)r;
    return 0;
}
