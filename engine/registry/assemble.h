#pragma once
/// Assembly of the op registry at program start-up. ir/ defines the table of ops and fills
/// nothing; this layer, above every other engine layer, fills it once from each layer's tables:
/// exec's reference ops (schema, meta function, kernel), autodiff's VJP rules and
/// non-differentiable ops, partition's op classes, codegen's lowering rules and extern kernels,
/// the CPU backend's extern kernels and the CUDA backend's device kernels. A table naming an op
/// the registry lacks fails the assembly, naming both. The composition roots call
/// initOpRegistry() first: the app's and the CLI's main, every test (tests/init_op_registry.cpp)
/// and every benchmark.
#include "ir/op_registry.h"
#include "support/diagnostic.h"

namespace fxray {

/// Assembles the process-wide registry (OpRegistry::instance()) once, and fills the backend
/// table (registry/backends.h), which needs the ops. Idempotent and thread-safe;
/// later calls return at once. A table that cannot be assembled is a bug in fxray: the message
/// names it and the program aborts.
void initOpRegistry();

/// Fills `r` from every layer's tables. An error names the table and the op when a table cannot
/// be attached (tests assemble scratch registries with this).
Status assembleOpRegistry(OpRegistry& r);

}  // namespace fxray
