// Argument block of kernels/sort.cu (shared by the host, sort_kernels.cpp, and NVRTC).
#ifndef FXRAY_SORT_ARGS_H
#define FXRAY_SORT_ARGS_H

// Rows of n keys each, laid out as [outer, n, inner] (row r = (r / inner, r % inner), its keys
// inner apart); k: how many of each sorted row are written out (topk; n for sort).
struct FxSortArgs {
    long long rows, n, inner, k;
    int descending;
};

#endif
