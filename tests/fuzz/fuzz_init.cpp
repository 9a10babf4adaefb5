// Linked into every fuzz target: libFuzzer calls LLVMFuzzerInitialize once before the first
// input, where the op registry is assembled as the app's main() does.
#include "registry/assemble.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fxray::initOpRegistry();
    return 0;
}
