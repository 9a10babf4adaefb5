#pragma once
/// State shared by kernels during one execution: the random generator and numeric options.
#include <cstdint>
#include <random>

namespace fxray {

/// Options and state for one run of the reference executor.
struct ExecContext {
    explicit ExecContext(uint64_t seed = 0) : rng(seed) {}
    /// Seeded generator for random ops (dropout masks, randperm, rand). fxray does not reproduce
    /// PyTorch's Philox streams; random values differ from PyTorch's, deterministically.
    std::mt19937_64 rng;
    /// Keep floating outputs of every op in fp64 (the `ref64` side of accuracy checks).
    bool fp64 = false;
};

}  // namespace fxray
