/**
 * @file em_mul_s8.c
 * @brief int8 elementwise multiply with NumPy broadcasting, exactly compiler/reference.py:mul_s8.
 *        Scalar (also the DSP tier's) and Helium (MVE) paths behind em_nn_tier.h.
 *
 * out = clamp(requantize((a + a_offset)·(b + b_offset), mult, shift) + output_offset), one
 * rounding (em_nn_requantize). |a + a_offset|, |b + b_offset| <= 256, so the product fits int32.
 * Broadcasting (em_broadcast_dims) is walked run by run (em_nn_broadcast.h): along a run each
 * operand is an array or one repeated value (a scalar operand: one run of all the elements).
 * MVE: 4 elements per step (VLDRB.S32 widening loads, VSTRB.32 narrowing store), the last
 * partial step predicated; the requantization is em_nn_requantize_mve()'s with per-tensor
 * shifts in general-purpose registers (VQSHL / VRSHL by register): the same bits.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_broadcast.h"
#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#if EM_NN_TIER_MVE

/** @p n outputs from a[0..n) (or a[0] for every one, @p a_one) and b likewise. */
static inline __attribute__((always_inline)) void
em_nn_mul_row_mve(const em_mul_params *p, const int8_t *a, bool a_one, const int8_t *b, bool b_one,
                  int8_t *out, int32_t n)
{
    const int32_t left = em_nn_requantize_left_shift(p->output_shift);
    const int32_t right = p->output_shift - left + 1; /* −(E − 32) <= −1 */
    const int32x4_t m = vdupq_n_s32(p->output_multiplier);
    const int32x4_t lo = vdupq_n_s32(p->activation_min), hi = vdupq_n_s32(p->activation_max);
    const int32_t ao = p->a_offset, bo = p->b_offset, oo = p->output_offset;
    const int32x4_t a1 = vdupq_n_s32(a_one ? *a + ao : 0), b1 = vdupq_n_s32(b_one ? *b + bo : 0);
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const int32x4_t xa = a_one ? a1 : vaddq_n_s32(vldrbq_z_s32(a + i, pr), ao);
        const int32x4_t xb = b_one ? b1 : vaddq_n_s32(vldrbq_z_s32(b + i, pr), bo);
        int32x4_t v = vrshlq_n_s32(vmulhq_s32(vqshlq_r_s32(vmulq_s32(xa, xb), left), m), right);
        v = vminq_s32(vmaxq_s32(vaddq_n_s32(v, oo), lo), hi); /* |v| <= 2^29 + 128 */
        vstrbq_p_s32(out + i, v, pr);
    }
}

/** One run (em_nn_broadcast.h: never both operands repeated). */
static void em_nn_mul_row(const em_mul_params *p, const int8_t *a, bool a_one, const int8_t *b, bool b_one,
                          int8_t *out, int32_t n)
{
    if (a_one) {
        em_nn_mul_row_mve(p, a, true, b, false, out, n);
    } else if (b_one) {
        em_nn_mul_row_mve(p, a, false, b, true, out, n);
    } else {
        em_nn_mul_row_mve(p, a, false, b, false, out, n);
    }
}

#else /* scalar and DSP (whose cost is the 32-bit requantization: SMMUL inside em_nn_requantize) */

/* Out of line: inlined into em_nn_mul_group's loop, the M3 build runs short of registers and
 * reloads the strides from the stack at every element. */
static __attribute__((noinline)) void em_nn_mul_row(const em_mul_params *p, const int8_t *a, bool a_one, const int8_t *b, bool b_one,
                          int8_t *out, int32_t n)
{
    const int32_t ao = p->a_offset, bo = p->b_offset, oo = p->output_offset;
    const int32_t mult = p->output_multiplier, shift = p->output_shift;
    const int32_t lo = p->activation_min, hi = p->activation_max;
    const int32_t sa = a_one ? 1 : 0, sb = b_one ? 1 : 0; /* strides */
    const int32_t na = sa ^ 1, nb = sb ^ 1;
    for (int32_t i = 0; i < n; i++) {
        const int32_t x = a[i * na] + ao, y = b[i * nb] + bo;
        const int32_t v = em_nn_requantize(x * y, mult, shift) + oo;
        out[i] = (int8_t)(v < lo ? lo : (v > hi ? hi : v));
    }
}

#endif

/** One group of runs (em_nn_broadcast.h: the outer indices fixed). Out of line: its loop keeps
 *  its pointers in registers, the walk's odometer on the stack. */
static __attribute__((noinline)) void em_nn_mul_group(const em_mul_params *p, const em_nn_broadcast *w,
                                                      const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t inner = w->size[0], a_step = w->a_stride[1], b_step = w->b_stride[1];
    const bool a_one = w->a_stride[0] == 0, b_one = w->b_stride[0] == 0;
    for (int32_t r = w->size[1]; r > 0; r--, a += a_step, b += b_step, out += inner) {
        em_nn_mul_row(p, a, a_one, b, b_one, out, inner);
    }
}

em_nn_status em_mul_s8(const em_mul_params *params, const em_broadcast_dims *dims, const int8_t *a, const int8_t *b,
                       int8_t *output)
{
    em_nn_broadcast w;
    if (params == NULL || a == NULL || b == NULL || output == NULL || !em_nn_broadcast_plan(dims, &w)
        || params->output_multiplier < 0 || params->output_shift < -31 || params->output_shift > 30) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_mul_params p = *params; /* locals: the int8 stores may alias *params */
    em_nn_broadcast_at at;
    em_nn_broadcast_start(&w, &at);
    int8_t *out = output;
    do {
        em_nn_mul_group(&p, &w, a + at.a, b + at.b, out);
        out += w.size[1] * w.size[0];
    } while (em_nn_broadcast_next(&w, &at));
    return EM_NN_OK;
}
