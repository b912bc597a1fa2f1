/**
 * @file em_add_s16.c
 * @brief int16 (A16W8) elementwise add with per-tensor rescaling and NumPy broadcasting, exactly
 *        compiler/reference.py:add_s16 (add_s8 on int16 codes, zero points 0, headroom shift
 *        EM_ADD_LEFT_SHIFT_S16 = 13): em_nn_add.h's arithmetic, rows and broadcast walk, which
 *        em_add_s8.c compiles for int8, compiled here for int16.
 *
 * Per element: sa = requantize(a << 13, a_mult, a_shift), sb likewise,
 * out = clamp(requantize(sa + sb, out_mult, out_shift)), -32768..32767 at most.
 * MVE: 4 elements per step in int32 lanes (widening VLDRH.S32, narrowing VSTRH.32; the three
 * requantizations are 32-bit per lane, so 8 int16 lanes would only split into these again), the
 * last partial step predicated. Scalar and DSP: per element (em_nn_requantize: SMMUL on DSP);
 * no tables (65536 codes per input would not pay, nor fit a stack).
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_add.h"
#include "em_nn_broadcast.h"
#include "em_nn_functions.h"

/** em_nn_add_group_body() for int16, out of line as em_add_s8.c's. */
static __attribute__((noinline)) void em_nn_add_group_s16(const em_add_params *p, const em_nn_broadcast *w,
                                                          const void *a, const void *b, void *out)
{
    em_nn_add_group_body(p, w, a, b, out, true);
}

em_nn_status em_add_s16(const em_add_params *params, const em_broadcast_dims *dims, const int16_t *a,
                        const int16_t *b, int16_t *output)
{
    em_nn_broadcast w;
    if (params == NULL || a == NULL || b == NULL || output == NULL || !em_nn_broadcast_plan(dims, &w)
        || !em_add_s16_params_valid(params)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (w.a_stride[0] == 0 || w.b_stride[0] == 0 || w.size[1] > 1) {
        em_nn_add_broadcast_body(params, &w, a, b, output, em_nn_add_group_s16, true);
        return EM_NN_OK;
    }
    em_nn_add_row(params, a, b, false, output, w.size[0], true); /* same shapes: one run */
    return EM_NN_OK;
}
