/**
 * @file em_nn_broadcast.h
 * @brief The walk of an elementwise broadcast (em_broadcast_dims), shared by em_add_s8.c,
 *        em_mul_s8.c and em_nn_min_max.h: the plan out of line (em_nn_broadcast.c, one copy
 *        whichever kernels link), the odometer static inline.
 *
 * em_nn_broadcast_plan() checks the dims and collapses them: output axes of size 1 are dropped,
 * and adjacent axes along which the same operands vary (both, a only, b only) are merged; both
 * operands being row-major, a merged axis is one stride of each. What remains, innermost first:
 * - axis 0, a run of size[0] elements along which each operand either advances one element at
 *   a time (stride 1) or repeats one value (stride 0; never both): the kernels' row loops (the
 *   same-shape and scalar forms of their SIMD paths) take a run as it is;
 * - axis 1, size[1] runs whose starts are a_stride[1] / b_stride[1] elements apart (0 for an
 *   operand broadcast along it; size 1 when there is no such axis): a plain loop per kernel;
 * - axes 2 .. axes − 1, walked by em_nn_broadcast_next() (an odometer with per-operand
 *   strides, 0 where the operand is broadcast).
 * The output is written contiguously, in increasing order, run after run.
 *
 * The forms the kernels had before general broadcasting come out as they were: same shapes is
 * one run of n elements; a scalar operand one run with that operand repeated; a channel row
 * [C] against [N, H, W, C] is N·H·W runs of C, the row's stride 0 along axis 1. General forms,
 * e.g. [N, H, W, 1] + [1, 1, 1, C]: N·H·W runs of C, a repeated along each (strides a 0, 1;
 * b 1, 0); [2, 1, 5] · [1, 3, 1]: runs of 5 (b repeated), 3 of them along axis 1 (a 0, b 1),
 * then axis 2 of 2 (a 5, b 0).
 *
 * Bounds: the output has at most INT32_MAX elements, and each operand's offsets stay within
 * 0 .. its element count (a step or a carry lands at most on the element after its last), so
 * int32 offsets, and pointers at most one past an operand, are exact.
 */
#ifndef EM_NN_BROADCAST_H
#define EM_NN_BROADCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_types.h"

/** em_broadcast_dims collapsed into runs (see the file comment), innermost axis first. */
typedef struct {
    int32_t axes;                            /**< 2..EM_BROADCAST_MAX_RANK (axis 1 may be size 1) */
    int32_t size[EM_BROADCAST_MAX_RANK];     /**< elements along each axis; >= 2 from axis 2 */
    int32_t a_stride[EM_BROADCAST_MAX_RANK]; /**< elements of a per index, 0 where a is broadcast;
                                                  axis 0: 1 or 0 (a repeated along each run) */
    int32_t b_stride[EM_BROADCAST_MAX_RANK]; /**< likewise b; never 0 with a's on axis 0 */
} em_nn_broadcast;

/** Where a group of size[1] runs starts: the odometer over axes 2 and up. */
typedef struct {
    int32_t index[EM_BROADCAST_MAX_RANK];
    int32_t a; /**< offset in a, elements */
    int32_t b; /**< offset in b */
} em_nn_broadcast_at;

/** @p d collapsed into @p w; false when @p d is NULL or out of its contract (em_broadcast_dims:
 *  rank 0..EM_BROADCAST_MAX_RANK, dims >= 1 with a product <= INT32_MAX, each operand's dim 1
 *  or the output's, one of the two the output's). */
bool em_nn_broadcast_plan(const em_broadcast_dims *d, em_nn_broadcast *w);

/** @p at at the first group of runs (offsets 0; only the indices the walk uses are set). */
static inline void em_nn_broadcast_start(const em_nn_broadcast *w, em_nn_broadcast_at *at)
{
    for (int32_t j = 2; j < w->axes; j++) {
        at->index[j] = 0;
    }
    at->a = 0;
    at->b = 0;
}

/** Advances @p at to the next group of runs; false when the walk is over (@p at is back at 0). */
static inline bool em_nn_broadcast_next(const em_nn_broadcast *w, em_nn_broadcast_at *at)
{
    for (int32_t j = 2; j < w->axes; j++) {
        at->a += w->a_stride[j];
        at->b += w->b_stride[j];
        if (++at->index[j] < w->size[j]) {
            return true;
        }
        at->a -= w->a_stride[j] * w->size[j];
        at->b -= w->b_stride[j] * w->size[j];
        at->index[j] = 0;
    }
    return false;
}

#endif /* EM_NN_BROADCAST_H */
