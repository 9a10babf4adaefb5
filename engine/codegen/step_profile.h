#pragma once
/// "Where does the time go": one row per step of a compiled Program (a generated kernel, an
/// extern call, a host fallback) with what it computes and what it must at least move, so that
/// a measured time becomes achieved bandwidth (and FLOP/s for GEMMs, convolutions, attention).
/// Both compiled backends fill `ms` from their own clocks (CUDA events, the host's clock);
/// `fxray bench` prints the table and the app overlays it on the canvas.
#include "codegen/scheduler.h"

#include <string>
#include <vector>

namespace fxray::cg {

struct StepProfile {
    std::string name;                ///< kernel name, extern kernel ("conv"), or the op a fallback runs
    std::string kind;                ///< "kernel" | "extern" | "fallback"
    std::vector<std::string> nodes;  ///< the graph nodes it computes
    double ms = 0.0;                 ///< measured time of the step (one run)
    double bytes = 0.0;              ///< sizes of its operand and result buffers: what it must at least move
    double flops = 0.0;              ///< 2 x multiply-adds of GEMMs, convolutions and attention; else 0
};

/// The steps of P in execution order, described (ms left 0).
std::vector<StepProfile> describeSteps(const Program& P);

/// Peak rates of the machine that ran the steps, for "% of peak" columns; 0 when unknown.
struct PeakRates {
    double bytesPerSecond = 0.0;
    double flopsPerSecond = 0.0;  ///< fp32 without tensor cores (the corpus's precision)
    std::string device;
};

}  // namespace fxray::cg
