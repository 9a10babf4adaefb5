#ifndef FXRAY_EMBEDDING_BAG_ARGS_H
#define FXRAY_EMBEDDING_BAG_ARGS_H
// The argument blocks of kernels/embedding_bag.cu, shared by the host code
// (codegen/cuda/embedding_bag_kernels.cpp) and the device code. Plain C types only.

// The forward: bags of a [rows, D] table over n indices; mode 0 sum, 1 mean, 2 max; the
// auxiliary outputs' element counts (offset2bag, bag_size, max_indices). lastAtOffset: the last
// bag ends at offsets[bags] (CPU's include_last_offset), else at the end of the indices. The
// index tensors' element sizes (8: int64, 4: int32): indices, offsets, the auxiliary outputs.
struct FxBagArgs {
    long long bags, D, n, rows, pad, mode;
    long long o2bLen, sizeLen, auxLen;
    int hasPsw, lastAtOffset;
    int idxSize, offSize, auxSize;
};

// The backwards: as above, with the offsets' count (offset2bag rebuilt from them where empty).
// scaleByFreq: each row's gradient divided by how often the indices name it (int64 counts).
// The index tensors' element sizes as above: indices, offsets, offset2bag, bag_size, max_indices.
struct FxBagBackArgs {
    long long bags, D, n, rows, pad, mode, o2bLen, offLen, sizeLen;
    int hasPsw, scaleByFreq;
    int idxSize, offSize, o2bSize, sizeSize, maxSize;
};

#endif
