#pragma once
/// Fused attention ops (attention.cpp): `_scaled_dot_product_efficient_attention`, its backward,
/// and the composite `scaled_dot_product_attention`.
namespace fxray {

class OpRegistry;

/// Adds the attention ops to r (belongs in registerAllOps).
void registerAttentionOps(OpRegistry& r);
/// Adds them to the process-wide registry if registerAllOps did not (idempotent).
void ensureAttentionOpsRegistered();

} // namespace fxray
