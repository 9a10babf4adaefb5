#pragma once
/// Registration entry points of the op tables, one per op family file in exec/ops/.
namespace fxray {

class OpRegistry;

void registerPointwiseOps(OpRegistry& r);   // pointwise.cpp: unary/binary math, comparisons, where
void registerActivationOps(OpRegistry& r);  // activation.cpp: relu, gelu, tanh, sigmoid + backwards
void registerReductionOps(OpRegistry& r);   // reduction.cpp: sum, mean, softmax + backward
void registerViewOps(OpRegistry& r);        // view.cpp: view, reshape, transpose, expand, slice, ...
void registerShapeOps(OpRegistry& r);       // shape.cpp: cat, split, clone, to, copies
void registerIndexingOps(OpRegistry& r);    // indexing.cpp: gather, index_select, index_add, embedding
void registerCreationOps(OpRegistry& r);    // creation.cpp: arange, full, scalar_tensor, empty, ...
void registerRandomOps(OpRegistry& r);      // random.cpp: dropout, randperm, rand
void registerLinalgOps(OpRegistry& r);      // linalg.cpp: mm, bmm, addmm, matmul, linear
void registerNormOps(OpRegistry& r);        // norm.cpp: layer norm, batch norm + backwards
void registerConvOps(OpRegistry& r);        // conv.cpp: convolution, pooling + backwards
void registerMiscOps(OpRegistry& r);        // misc.cpp: detach, asserts, lift_fresh_copy, ...
void registerAttentionOps(OpRegistry& r);   // attention.cpp: fused scaled-dot-product attention + backward
void registerUpsampleOps(OpRegistry& r);     // upsample.cpp: nearest, linear, bicubic, antialiased upsampling + backwards
void registerGridSampleOps(OpRegistry& r);   // grid_sample.cpp: grid_sampler_2d/3d, cudnn_grid_sampler + backwards
void registerEmbeddingBagOps(OpRegistry& r); // embedding_bag.cpp: _embedding_bag (sum/mean/max) + backwards

/// Calls every register*Ops function above.
void registerAllOps(OpRegistry& r);

} // namespace fxray
