/**
 * @file em_nn_broadcast.h
 * @brief The walk of an elementwise broadcast (em_broadcast_dims), shared by em_add_s8.c,
 *        em_mul_s8.c and em_nn_min_max.h. Header-only (static inline), so each kernel links alone.
 *
 * em_nn_broadcast_plan() checks the dims and collapses them: output axes of size 1 are dropped,
 * and adjacent axes along which the same operands vary (both, a only, b only) are merged; both
 * operands being row-major, a merged axis is one contiguous stride of each. What remains:
 * - the innermost axis, a run of @c inner elements along which each operand either advances one
 *   element at a time or repeats one value (@c a_one / @c b_one, never both): the kernels' row
 *   loops (the same-shape and scalar forms of their SIMD paths) take a run as it is;
 * - the next axis out, @c span runs whose starts are @c a_step / @c b_step elements apart
 *   (0 for an operand broadcast along it): a plain loop in each kernel;
 * - up to EM_BROADCAST_MAX_RANK − 2 axes further out, walked by em_nn_broadcast_next() (an
 *   odometer with per-operand strides, 0 where the operand is broadcast).
 * The output is written contiguously, in increasing order, run after run.
 *
 * The forms the kernels had before general broadcasting come out as they were: same shapes is
 * one run of n elements; a scalar operand one run with that operand repeated; a channel row
 * [C] against [N, H, W, C] is span N·H·W runs of C with the row's step 0. General forms, e.g.
 * [N, H, W, 1] + [1, 1, 1, C]: span N·H·W runs of C, a repeated along each run (a_step 1,
 * b_step 0); [2, 1, 5] · [1, 3, 1]: runs of 5 (b repeated), span 3 (a_step 0, b_step 1), one
 * outer axis of 2 (a stride 5, b stride 0).
 *
 * Bounds: the output has at most INT32_MAX elements and each operand's offsets stay within
 * 0..its element count (a step or carry lands at most on the element after the last row-major
 * one), so int32 offsets and pointers at most one past an operand are exact.
 */
#ifndef EM_NN_BROADCAST_H
#define EM_NN_BROADCAST_H

#include <stdbool.h>
#include <stddef.h>

#include "em_nn_support.h"
#include "em_nn_types.h"

/** em_broadcast_dims collapsed into runs (see the file comment). */
typedef struct {
    int32_t inner;  /**< elements per run, >= 1 */
    bool a_one;     /**< a repeats one value along each run */
    bool b_one;     /**< b likewise; never both (a one-element output is one run of arrays) */
    int32_t span;   /**< runs along the innermost outer axis, >= 1 (1 when there is none) */
    int32_t a_step; /**< elements of a between those runs' starts (0: a broadcast along the axis) */
    int32_t b_step; /**< likewise b */
    int32_t outer;  /**< axes further out, 0..EM_BROADCAST_MAX_RANK − 2, outermost first */
    int32_t shape[EM_BROADCAST_MAX_RANK - 2];    /**< their sizes, >= 2 */
    int32_t a_stride[EM_BROADCAST_MAX_RANK - 2]; /**< elements of a per index (0 where broadcast) */
    int32_t b_stride[EM_BROADCAST_MAX_RANK - 2]; /**< likewise b */
} em_nn_broadcast;

/** Where a group of @c span runs starts: the odometer over em_nn_broadcast's outer axes. */
typedef struct {
    int32_t index[EM_BROADCAST_MAX_RANK - 2];
    int32_t a; /**< offset in a, elements */
    int32_t b; /**< offset in b */
} em_nn_broadcast_at;

/** @p d collapsed into @p w; false when @p d is NULL or out of its contract (em_broadcast_dims:
 *  rank, dims >= 1 with a product <= INT32_MAX, each operand's dim 1 or the output's, one of
 *  the two the output's). One copy in flash (em_nn_broadcast.c), whichever of the kernels link. */
bool em_nn_broadcast_plan(const em_broadcast_dims *d, em_nn_broadcast *w);

/** @p at at the first group of runs (offsets 0; only the indices the walk uses are set). */
static inline void em_nn_broadcast_start(const em_nn_broadcast *w, em_nn_broadcast_at *at)
{
    for (int32_t j = 0; j < w->outer; j++) {
        at->index[j] = 0;
    }
    at->a = 0;
    at->b = 0;
}

/** @p w as the walk of b ⊕ a: the operands' roles swapped, in place. */
static inline void em_nn_broadcast_swap(em_nn_broadcast *w)
{
    const bool one = w->a_one;
    w->a_one = w->b_one;
    w->b_one = one;
    const int32_t step = w->a_step;
    w->a_step = w->b_step;
    w->b_step = step;
    for (int32_t j = 0; j < w->outer; j++) {
        const int32_t stride = w->a_stride[j];
        w->a_stride[j] = w->b_stride[j];
        w->b_stride[j] = stride;
    }
}

/** Advances @p at to the next group of runs; false when the walk is over (@p at is back at 0). */
static inline bool em_nn_broadcast_next(const em_nn_broadcast *w, em_nn_broadcast_at *at)
{
    for (int32_t j = w->outer - 1; j >= 0; j--) {
        at->a += w->a_stride[j];
        at->b += w->b_stride[j];
        if (++at->index[j] < w->shape[j]) {
            return true;
        }
        at->a -= w->a_stride[j] * w->shape[j];
        at->b -= w->b_stride[j] * w->shape[j];
        at->index[j] = 0;
    }
    return false;
}

#endif /* EM_NN_BROADCAST_H */
