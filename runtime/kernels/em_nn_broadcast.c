/**
 * @file em_nn_broadcast.c
 * @brief em_nn_broadcast_plan(): the argument check and axis collapsing of the broadcasting
 *        elementwise kernels (em_add_s8, em_mul_s8, em_minimum_s8, em_maximum_s8), in one place
 *        (em_nn_broadcast.h describes the walk). Tier-independent.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_broadcast.h"

bool em_nn_broadcast_plan(const em_broadcast_dims *d, em_nn_broadcast *w)
{
    if (d == NULL || d->rank < 0 || d->rank > EM_BROADCAST_MAX_RANK) {
        return false;
    }
    /* kinds: bit 0 a varies along the axis, bit 1 b does */
    int32_t sizes[EM_BROADCAST_MAX_RANK], kinds[EM_BROADCAST_MAX_RANK];
    int32_t count = 0;
    int64_t n = 1;
    for (int32_t k = 0; k < d->rank; k++) {
        const int32_t s = d->shape[k], x = d->a_shape[k], y = d->b_shape[k];
        if (s < 1 || (x != s && x != 1) || (y != s && y != 1) || (x != s && y != s)) {
            return false;
        }
        n *= s;
        if (n > EM_NN_INT32_MAX) {
            return false;
        }
        if (s == 1) {
            continue;
        }
        const int32_t kind = (x == s ? 1 : 0) | (y == s ? 2 : 0);
        if (count > 0 && kinds[count - 1] == kind) {
            sizes[count - 1] *= s; /* <= n */
        } else {
            kinds[count] = kind;
            sizes[count] = s;
            count++;
        }
    }
    if (count == 0) { /* one element: a run of 1 of both */
        kinds[0] = 3;
        sizes[0] = 1;
        count = 1;
    }
    const int32_t inner_kind = kinds[count - 1];
    w->inner = sizes[count - 1];
    w->a_one = (inner_kind & 1) == 0;
    w->b_one = (inner_kind & 2) == 0;
    /* row-major strides from the inside out; each ends at most at its operand's element count */
    int32_t sa = w->a_one ? 1 : w->inner, sb = w->b_one ? 1 : w->inner;
    w->span = 1;
    w->a_step = 0;
    w->b_step = 0;
    w->outer = count >= 2 ? count - 2 : 0;
    for (int32_t j = count - 2; j >= 0; j--) {
        const int32_t as = (kinds[j] & 1) ? sa : 0, bs = (kinds[j] & 2) ? sb : 0;
        if (j == count - 2) {
            w->span = sizes[j];
            w->a_step = as;
            w->b_step = bs;
        } else {
            w->shape[j] = sizes[j];
            w->a_stride[j] = as;
            w->b_stride[j] = bs;
        }
        sa = (kinds[j] & 1) ? sa * sizes[j] : sa;
        sb = (kinds[j] & 2) ? sb * sizes[j] : sb;
    }
    return true;
}
