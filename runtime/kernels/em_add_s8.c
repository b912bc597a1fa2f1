/**
 * @file em_add_s8.c
 * @brief int8 elementwise add with per-tensor rescaling and NumPy broadcasting (em_broadcast_dims).
 *        Scalar (also the DSP tier's: its cost is the 32-bit requantization, not SIMD-able) and
 *        Helium (MVE) paths behind em_nn_tier.h.
 *
 * compiler/reference.py:add_s8 per element:
 *   sa = requantize((a + a_offset) << 20, a_mult, a_shift), sb likewise,
 *   out = clamp(requantize(sa + sb, out_mult, out_shift) + output_offset).
 * Ranges that make int32 exact: |a + a_offset| <= 256, so (a + a_offset)·2^20 fits int32;
 * requantize() returns |result| <= 2^31·2^31 / 2^33 = 2^29 for any int32 input (its exponent is
 * >= 33), so sa + sb fits int32 and the reference's int64 sum never leaves it. Every
 * requantization is em_nn_requantize() (scalar) or the 4-lane form of em_nn_requantize_mve()
 * with per-tensor shifts in scalar registers (same instructions), so both paths match the
 * reference byte for byte.
 * Broadcasting: em_nn_broadcast.h's runs. Along a run an operand is an array (rescaled per
 * element) or one repeated value (rescaled once per run: a scalar operand once per call). An
 * operand repeated along the runs is made the second one (the operands and their rescalings
 * swap), so the row loop is compiled for two arrays and for a repeated b only.
 * MVE: 4 elements per step (widening loads VLDRB.S32, narrowing store VSTRB.32); the last
 * partial step is predicated and touches no byte past the operands or the output.
 * Scalar and DSP, same-shape operands of >= EM_NN_ADD_TABLE_MIN elements: each input's
 * rescaling is a function of its 256 codes, tabulated per call (2 KiB of stack), so an element
 * costs two lookups and the output requantization (em_nn_requantize: SMMUL on DSP).
 * The arithmetic, the rows and the broadcast walk are em_nn_add.h's, shared with the int16 add
 * (em_add_s16.c); this file compiles them for int8 and adds the tables.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_add.h"
#include "em_nn_broadcast.h"
#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if !EM_NN_TIER_MVE /* scalar and DSP */

/** Below this many elements per call the tables cost more than they save. */
#define EM_NN_ADD_TABLE_MIN 1024

/** Each input's rescaled value as a function of its int8 code: 256 entries, indexed x + 128.
 *  Built with em_nn_add_scaled() itself, so a lookup is the same bits as the computation. */
static void em_nn_add_table(int32_t *table, int32_t offset, int32_t multiplier, int32_t shift)
{
    for (int32_t x = -128; x < 128; x++) {
        table[x + 128] = em_nn_add_scaled(x, offset, multiplier, shift, false);
    }
}

/** Same-shape a + b over @p n elements through the two 256-entry tables: per element two
 *  lookups and the output requantization only. */
static void em_nn_add_tabled(const em_add_params *params, const int8_t *a, const int8_t *b, int8_t *out,
                             int32_t n)
{
    int32_t ta[256], tb[256];
    const em_add_params p = *params;
    em_nn_add_table(ta, p.a_offset, p.a_multiplier, p.a_shift);
    em_nn_add_table(tb, p.b_offset, p.b_multiplier, p.b_shift);
    const int32_t *const ta0 = ta + 128, *const tb0 = tb + 128;
    for (int32_t i = 0; i < n; i++) {
        em_nn_add_store(out, i, ta0[a[i]] + tb0[b[i]], &p, false);
    }
}

#endif

/* em_add_s8_params_valid(): em_add_validate_s8.c */

/** em_nn_add_group_body() for int8. Out of line: its loop keeps its pointers in registers, the
 *  walk's odometer on the stack. */
static __attribute__((noinline)) void em_nn_add_group(const em_add_params *p, const em_nn_broadcast *w,
                                                      const void *a, const void *b, void *out)
{
    em_nn_add_group_body(p, w, a, b, out, false);
}

/* Scalar and DSP: out of line, so that the parameters' swapped copy is no part of the stack
 * frame under the same-shape path's 2 KiB of tables; MVE has no tables, and inline is smaller. */
#if EM_NN_TIER_MVE
#define EM_NN_ADD_BROADCAST_INLINE inline
#else
#define EM_NN_ADD_BROADCAST_INLINE __attribute__((noinline))
#endif

static EM_NN_ADD_BROADCAST_INLINE void em_nn_add_broadcast(const em_add_params *params, em_nn_broadcast *w,
                                                          const int8_t *a, const int8_t *b, int8_t *output)
{
    em_nn_add_broadcast_body(params, w, a, b, output, em_nn_add_group, false);
}

em_nn_status em_add_s8(const em_add_params *params, const em_broadcast_dims *dims, const int8_t *a,
                       const int8_t *b, int8_t *output)
{
    em_nn_broadcast w;
    if (params == NULL || a == NULL || b == NULL || output == NULL || !em_nn_broadcast_plan(dims, &w)
        || !em_add_s8_params_valid(params)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (w.a_stride[0] == 0 || w.b_stride[0] == 0 || w.size[1] > 1) {
        em_nn_add_broadcast(params, &w, a, b, output);
        return EM_NN_OK;
    }
    const int32_t n = w.size[0]; /* same shapes: one run */
#if !EM_NN_TIER_MVE
    if (n >= EM_NN_ADD_TABLE_MIN) {
        em_nn_add_tabled(params, a, b, output, n);
        return EM_NN_OK;
    }
#endif
    em_nn_add_row(params, a, b, false, output, n, false);
    return EM_NN_OK;
}
