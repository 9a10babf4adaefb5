#pragma once
/// The backends of this build, put into codegen's backend table (codegen/backend.h) at start-up
/// by initOpRegistry(): "ref", "ref32" (the same), "ref64", "cpu" when built with LLVM, and
/// "cuda" (its factory fails without a usable GPU).
namespace fxray {

/// Registers every backend this build has. Idempotent.
void registerBuiltinBackends();

}  // namespace fxray
