// libFuzzer target: the TORCH_TRACE reader (records, payloads, md5, embedded FX graphs).
#include "import/torch_trace_reader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto f = fxray::readTorchTraceText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.log");
    (void)f;
    return 0;
}
