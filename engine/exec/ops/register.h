#pragma once
/// Registration entry points of the op tables, one per op family file in exec/ops/.
namespace fxray {

class OpRegistry;

void registerPointwiseOps(OpRegistry& r);   // pointwise.cpp: unary/binary math, comparisons, where
void registerActivationOps(OpRegistry& r);  // activation.cpp: relu, gelu, tanh, sigmoid + backwards
void registerActivationExtraOps(
    OpRegistry& r);                   // activation_extra.cpp: hardswish, mish, softplus, shrink, logit, log_sigmoid + backwards
void registerMathOps(OpRegistry& r);  // math.cpp: trig, exp/log variants, rounding, sign, isnan, frexp
void registerSpecialMathOps(OpRegistry& r);   // math_special.cpp: lgamma, digamma, polygamma, mvlgamma, i0, i1, erfinv
void registerReductionOps(OpRegistry& r);     // reduction.cpp: sum, mean, softmax + backward
void registerViewOps(OpRegistry& r);          // view.cpp: view, reshape, transpose, expand, slice, ...
void registerShapeOps(OpRegistry& r);         // shape.cpp: cat, split, clone, to, copies
void registerIndexingOps(OpRegistry& r);      // indexing.cpp: gather, index_select, index_add, embedding
void registerCreationOps(OpRegistry& r);      // creation.cpp: arange, full, scalar_tensor, empty, ...
void registerRandomOps(OpRegistry& r);        // random.cpp: dropout, randperm, rand
void registerLinalgOps(OpRegistry& r);        // linalg.cpp: mm, bmm, addmm, matmul, linear, cross, block_diag
void registerLinalgDecompOps(OpRegistry& r);  // linalg_decomp.cpp: triangular_solve, slogdet, lu_solve, matrix_exp
void registerLinalgSvdOps(OpRegistry& r);     // linalg_svd.cpp: _linalg_svd, linalg_pinv
void registerNormOps(OpRegistry& r);          // norm.cpp: layer norm, batch norm + backwards
void registerConvOps(OpRegistry& r);          // conv.cpp: convolution, pooling + backwards
void registerMiscOps(OpRegistry& r);          // misc.cpp: detach, asserts, lift_fresh_copy, ...
void registerAttentionOps(OpRegistry& r);     // attention.cpp: fused scaled-dot-product attention + backward
void registerPoolingOps(OpRegistry& r);       // pooling.cpp: 3-D max/avg, adaptive max, 3-D adaptive avg + backwards
void registerIndexedPoolingOps(OpRegistry& r);  // pooling_indexed.cpp: fractional max pooling, max unpooling
void registerPaddingOps(OpRegistry& r);         // padding.cpp: reflection/replication padding + backwards
void registerFoldOps(OpRegistry& r);            // fold.cpp: im2col, col2im
void registerShuffleOps(OpRegistry& r);         // shuffle.cpp: pixel_shuffle, pixel_unshuffle, channel_shuffle
void registerDistanceOps(OpRegistry& r);        // distance.cpp: _pdist_forward, _pdist_backward
void registerTrilinearOps(OpRegistry& r);       // trilinear.cpp: _trilinear
void registerRmsNormOps(OpRegistry& r);         // rms_norm.cpp: _fused_rms_norm + backward
void registerRnnCellOps(OpRegistry& r);         // rnn_cells.cpp: _thnn_fused_lstm_cell/_gru_cell + backwards
void registerBinaryOps(OpRegistry& r);          // binary.cpp: remainder, atan2, lerp, clamp.Tensor, igamma, ...
void registerInplaceOps(OpRegistry& r);         // inplace.cpp: every X_ op through its functional X
void registerCopyVariantOps(OpRegistry& r);     // copy_variants.cpp: view_copy, permute_copy, ... (*_copy of views)
void registerReorderOps(OpRegistry& r);         // reorder.cpp: flip, roll, rot90, tril/triu, diag_embed, _chunk_cat
void registerViewScatterOps(
    OpRegistry& r);                      // view_scatter.cpp: slice/select/diagonal/as_strided_scatter, view backwards
void registerScatterOps(OpRegistry& r);  // scatter.cpp: scatter_reduce, scatter_, index_reduce/fill/copy
void registerMaskedIndexOps(OpRegistry& r);  // masked_index.cpp: masked_scatter, _unsafe_masked_index, take, put
void registerUpsampleOps(OpRegistry& r);  // upsample.cpp: nearest, linear, bicubic, antialiased upsampling + backwards
void registerGridSampleOps(OpRegistry& r);     // grid_sample.cpp: grid_sampler_2d/3d, cudnn_grid_sampler + backwards
void registerEmbeddingBagOps(OpRegistry& r);   // embedding_bag.cpp: _embedding_bag (sum/mean/max) + backwards
void registerVectorNormOps(OpRegistry& r);     // vector_norm.cpp: linalg_vector_norm, norm, dist, renorm
void registerScanOps(OpRegistry& r);           // scan.cpp: cumsum, cumprod, logcumsumexp, cummax, cummin
void registerSortOps(OpRegistry& r);           // sort.cpp: sort, bucketize, searchsorted, isin, _unique, masked_select
void registerSegmentReduceOps(OpRegistry& r);  // segment_reduce.cpp: segment_reduce + backward
void registerLossOps(OpRegistry& r);           // loss.cpp: mse, huber, smooth_l1, soft_margin, bce + backwards
void registerClassLossOps(OpRegistry& r);
void registerSymOps(
    OpRegistry&
        r);  // sym_ops.cpp: sym_size, sym_numel, sym_stride, _assert_scalar, sym_constrain_range   // class_loss.cpp: nll, multi_margin, multilabel_margin + backwards

/// Calls every register*Ops function above.
void registerAllOps(OpRegistry& r);

}  // namespace fxray
