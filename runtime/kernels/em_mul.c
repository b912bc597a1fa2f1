/**
 * @file em_mul.c
 * @brief Elementwise multiply with NumPy broadcasting, int8 (em_mul_s8) and int16 (em_mul_s16,
 *        A16W8), exactly compiler/reference.py:mul_s8 / mul_s16. Scalar (also the DSP tier's) and
 *        Helium (MVE) paths behind em_nn_tier.h; one body serves both element types.
 *
 * out = clamp(requantize((a + a_offset)·(b + b_offset), mult, shift) + output_offset), one
 * rounding (em_nn_requantize). int8: |a + a_offset|, |b + b_offset| <= 256; int16: offsets 0,
 * |a·b| <= 2^30; either way the product fits int32.
 * Broadcasting (em_broadcast_dims) is walked run by run (em_nn_broadcast.h): along a run each
 * operand is an array or one repeated value (a scalar operand: one run of all the elements).
 * MVE: 4 elements per step (VLDRB.S32 / VLDRH.S32 widening loads, VSTRB.32 / VSTRH.32 narrowing
 * stores), the last partial step predicated; the requantization is em_nn_requantize_tensor_mve()
 * (em_nn_support.h: per-tensor shifts in general-purpose registers): the same bits.
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

/* The body below takes its element type as a constant `wide` (int16 when true, int8 when not)
 * and is inlined into each type's entry, so each compiles to its own straight loops. */
#define EM_MUL_INLINE static inline __attribute__((always_inline))

/** Element @p i of @p x (int8 or int16 by @p wide). */
EM_MUL_INLINE int32_t em_nn_mul_at(const void *x, int32_t i, bool wide)
{
    return wide ? ((const int16_t *)x)[i] : ((const int8_t *)x)[i];
}

#if EM_NN_TIER_MVE

/** Elements [i, i + 4) of @p x (int8 or int16 by @p wide), widened; lanes past @p pr read as 0. */
EM_MUL_INLINE int32x4_t em_nn_mul_load_mve(const void *x, int32_t i, mve_pred16_t pr, bool wide)
{
    return wide ? vldrhq_z_s32((const int16_t *)x + i, pr) : vldrbq_z_s32((const int8_t *)x + i, pr);
}

/** @p n outputs from a[0..n) (or a[0] for every one, @p a_one) and b likewise. */
EM_MUL_INLINE void em_nn_mul_row_mve(const em_mul_params *p, const void *a, bool a_one, const void *b, bool b_one,
                                     void *out, int32_t n, bool wide)
{
    const em_nn_requant_mve r = em_nn_requant_mve_of(p->output_multiplier, p->output_shift);
    const int32x4_t lo = vdupq_n_s32(p->activation_min), hi = vdupq_n_s32(p->activation_max);
    const int32_t ao = p->a_offset, bo = p->b_offset, oo = p->output_offset;
    const int32x4_t a1 = vdupq_n_s32(a_one ? em_nn_mul_at(a, 0, wide) + ao : 0);
    const int32x4_t b1 = vdupq_n_s32(b_one ? em_nn_mul_at(b, 0, wide) + bo : 0);
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const int32x4_t xa = a_one ? a1 : vaddq_n_s32(em_nn_mul_load_mve(a, i, pr, wide), ao);
        const int32x4_t xb = b_one ? b1 : vaddq_n_s32(em_nn_mul_load_mve(b, i, pr, wide), bo);
        int32x4_t v = em_nn_requantize_tensor_mve(vmulq_s32(xa, xb), r);
        v = vminq_s32(vmaxq_s32(vaddq_n_s32(v, oo), lo), hi); /* |v| <= 2^29 + 128 */
        if (wide) {
            vstrhq_p_s32((int16_t *)out + i, v, pr);
        } else {
            vstrbq_p_s32((int8_t *)out + i, v, pr);
        }
    }
}

/** One run (em_nn_broadcast.h: never both operands repeated). */
EM_MUL_INLINE void em_nn_mul_row(const em_mul_params *p, const void *a, bool a_one, const void *b, bool b_one,
                                 void *out, int32_t n, bool wide)
{
    if (a_one) {
        em_nn_mul_row_mve(p, a, true, b, false, out, n, wide);
    } else if (b_one) {
        em_nn_mul_row_mve(p, a, false, b, true, out, n, wide);
    } else {
        em_nn_mul_row_mve(p, a, false, b, false, out, n, wide);
    }
}

#else /* scalar and DSP (whose cost is the 32-bit requantization: SMMUL inside em_nn_requantize) */

EM_MUL_INLINE void em_nn_mul_row(const em_mul_params *p, const void *a, bool a_one, const void *b, bool b_one,
                                 void *out, int32_t n, bool wide)
{
    const int32_t ao = p->a_offset, bo = p->b_offset, oo = p->output_offset;
    const int32_t mult = p->output_multiplier, shift = p->output_shift;
    const int32_t lo = p->activation_min, hi = p->activation_max;
    const int32_t sa = a_one ? 1 : 0, sb = b_one ? 1 : 0; /* strides */
    const int32_t na = sa ^ 1, nb = sb ^ 1;
    for (int32_t i = 0; i < n; i++) {
        const int32_t x = em_nn_mul_at(a, i * na, wide) + ao, y = em_nn_mul_at(b, i * nb, wide) + bo;
        const int32_t v = em_nn_requantize(x * y, mult, shift) + oo;
        const int32_t c = v < lo ? lo : (v > hi ? hi : v);
        if (wide) {
            ((int16_t *)out)[i] = (int16_t)c;
        } else {
            ((int8_t *)out)[i] = (int8_t)c;
        }
    }
}

#endif

/** One group of runs (em_nn_broadcast.h: the outer indices fixed), elements of @p size bytes. */
EM_MUL_INLINE void em_nn_mul_group(const em_mul_params *p, const em_nn_broadcast *w, const uint8_t *a,
                                   const uint8_t *b, uint8_t *out, bool wide)
{
    const int32_t size = wide ? 2 : 1;
    const int32_t inner = w->size[0], a_step = w->a_stride[1] * size, b_step = w->b_stride[1] * size;
    const bool a_one = w->a_stride[0] == 0, b_one = w->b_stride[0] == 0;
    for (int32_t r = w->size[1]; r > 0; r--, a += a_step, b += b_step, out += inner * size) {
        em_nn_mul_row(p, a, a_one, b, b_one, out, inner, wide);
    }
}

/* Out of line, one per element type: its loop keeps its pointers in registers, the walk's
 * odometer on the stack (inlined into the walk, the M3 build runs short of registers). */
static __attribute__((noinline)) void em_nn_mul_group_s8(const em_mul_params *p, const em_nn_broadcast *w,
                                                         const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    em_nn_mul_group(p, w, a, b, out, false);
}

static __attribute__((noinline)) void em_nn_mul_group_s16(const em_mul_params *p, const em_nn_broadcast *w,
                                                          const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    em_nn_mul_group(p, w, a, b, out, true);
}

/** The broadcast walk over groups of elements of the type @p wide names. */
EM_MUL_INLINE em_nn_status em_nn_mul(const em_mul_params *params, const em_broadcast_dims *dims, const void *a,
                                     const void *b, void *output, bool wide)
{
    em_nn_broadcast w;
    if (params == NULL || a == NULL || b == NULL || output == NULL || !em_nn_broadcast_plan(dims, &w)
        || !em_mul_params_valid(params, wide)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t size = wide ? 2 : 1;
    const em_mul_params p = *params; /* locals: the output stores may alias *params */
    em_nn_broadcast_at at;
    em_nn_broadcast_start(&w, &at);
    uint8_t *out = (uint8_t *)output;
    do {
        const uint8_t *ga = (const uint8_t *)a + at.a * size, *gb = (const uint8_t *)b + at.b * size;
        if (wide) {
            em_nn_mul_group_s16(&p, &w, ga, gb, out);
        } else {
            em_nn_mul_group_s8(&p, &w, ga, gb, out);
        }
        out += w.size[1] * w.size[0] * size;
    } while (em_nn_broadcast_next(&w, &at));
    return EM_NN_OK;
}

em_nn_status em_mul_s8(const em_mul_params *params, const em_broadcast_dims *dims, const int8_t *a, const int8_t *b,
                       int8_t *output)
{
    return em_nn_mul(params, dims, a, b, output, false);
}

em_nn_status em_mul_s16(const em_mul_params *params, const em_broadcast_dims *dims, const int16_t *a,
                        const int16_t *b, int16_t *output)
{
    return em_nn_mul(params, dims, a, b, output, true);
}
