// libFuzzer target: the serialized ExportedProgram (JSON) reader of .pt2 archives.
#include "import/pt2_reader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto g = fxray::readExportedProgramJson(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (g.ok()) (void)(*g)->verify();
    return 0;
}
