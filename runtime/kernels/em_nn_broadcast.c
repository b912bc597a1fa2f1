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
    /* From the innermost axis out. kind: bit 0 a varies along the axis, bit 1 b does; sa, sb:
     * the operands' elements inside the axis (their row-major strides there), <= n. */
    int32_t axes = 0, kind = 0, n = 1, sa = 1, sb = 1;
    for (int32_t k = d->rank - 1; k >= 0; k--) {
        const int32_t s = d->shape[k], x = d->a_shape[k], y = d->b_shape[k];
        if (s < 1 || (x != s && x != 1) || (y != s && y != 1) || (x != s && y != s)
            || __builtin_mul_overflow(n, s, &n)) {
            return false;
        }
        if (s == 1) {
            continue;
        }
        const int32_t now = (x == s ? 1 : 0) | (y == s ? 2 : 0);
        if (now != kind) { /* a new axis (at most one per dim: axes <= rank) */
            kind = now;
            w->size[axes] = 1;
            w->a_stride[axes] = (now & 1) ? sa : 0;
            w->b_stride[axes] = (now & 2) ? sb : 0;
            axes++;
        }
        w->size[axes - 1] *= s;
        sa *= (now & 1) ? s : 1;
        sb *= (now & 2) ? s : 1;
    }
    if (axes == 0) { /* one element: a run of 1 of both */
        w->size[0] = 1;
        w->a_stride[0] = 1;
        w->b_stride[0] = 1;
        axes = 1;
    }
    if (axes == 1) { /* one run */
        w->size[1] = 1;
        w->a_stride[1] = 0;
        w->b_stride[1] = 0;
        axes = 2;
    }
    w->axes = axes;
    return true;
}
