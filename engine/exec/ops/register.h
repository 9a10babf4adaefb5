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
void registerVectorNormOps(OpRegistry& r);  // vector_norm.cpp: linalg_vector_norm, norm, dist, renorm
void registerScanOps(OpRegistry& r);        // scan.cpp: cumsum, cumprod, logcumsumexp, cummax, cummin
void registerSortOps(OpRegistry& r);        // sort.cpp: sort, bucketize, isin, _unique, masked_select
void registerSegmentReduceOps(OpRegistry& r);  // segment_reduce.cpp: segment_reduce + backward
void registerLossOps(OpRegistry& r);        // loss.cpp: mse, huber, smooth_l1, soft_margin, bce + backwards
void registerClassLossOps(OpRegistry& r);   // class_loss.cpp: nll, multi_margin, multilabel_margin + backwards

/// Calls every register*Ops function above.
void registerAllOps(OpRegistry& r);

} // namespace fxray
