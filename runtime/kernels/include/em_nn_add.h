/**
 * @file em_nn_add.h
 * @brief The elementwise add's arithmetic and walk, shared by int8 (em_add_s8.c) and int16
 *        (A16W8, em_add_s16.c): one definition, compiled by each file for its element width
 *        (@p wide, a constant in every caller: int16 where true) and its headroom shift
 *        (EM_ADD_LEFT_SHIFT, EM_ADD_LEFT_SHIFT_S16). em_add_s8.c's file comment states the
 *        arithmetic and why it is exact; for int16, |x + offset| <= 2^15 (offsets 0) and
 *        2^15 · 2^13 = 2^28 keeps the left shift, and requantize's saturating pre-shift of up to 2
 *        bits, inside int32, while each requantization still returns |r| <= 2^29 (sa + sb fits).
 *        Internal (em_nn_*), static inline.
 */
#ifndef EM_NN_ADD_H
#define EM_NN_ADD_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_broadcast.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"
#include "em_nn_types.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#define EM_NN_ADD_ALWAYS_INLINE static inline __attribute__((always_inline))

/** The headroom shift of int8 or (@p wide) int16 inputs. */
#define EM_NN_ADD_LEFT(wide) ((wide) ? EM_ADD_LEFT_SHIFT_S16 : EM_ADD_LEFT_SHIFT)

/** Element @p i of an int8 or (@p wide) int16 operand. */
EM_NN_ADD_ALWAYS_INLINE int32_t em_nn_add_load(const void *x, int32_t i, bool wide)
{
    return wide ? (int32_t)((const int16_t *)x)[i] : (int32_t)((const int8_t *)x)[i];
}

/** One input's rescaling onto the common scale (scalar form). */
EM_NN_ADD_ALWAYS_INLINE int32_t em_nn_add_scaled(int32_t x, int32_t offset, int32_t multiplier, int32_t shift,
                                                 bool wide)
{
    return em_nn_requantize((x + offset) * (1 << EM_NN_ADD_LEFT(wide)), multiplier, shift);
}

/** The output element of the sum @p sum, stored at @p out[i]. */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_store(void *out, int32_t i, int32_t sum, const em_add_params *p, bool wide)
{
    int32_t v = em_nn_requantize(sum, p->output_multiplier, p->output_shift) + p->output_offset;
    v = v < p->activation_min ? p->activation_min : (v > p->activation_max ? p->activation_max : v);
    if (wide) {
        ((int16_t *)out)[i] = (int16_t)v;
    } else {
        ((int8_t *)out)[i] = (int8_t)v;
    }
}

/** The address of element @p i of an int8 or (@p wide) int16 array. */
EM_NN_ADD_ALWAYS_INLINE const void *em_nn_add_at(const void *x, int32_t i, bool wide)
{
    return wide ? (const void *)((const int16_t *)x + i) : (const void *)((const int8_t *)x + i);
}

#if EM_NN_TIER_MVE

/** (x + offset) << the headroom shift of @p wide, on 4 lanes (an immediate each: also at -O0). */
EM_NN_ADD_ALWAYS_INLINE int32x4_t em_nn_add_headroom_mve(int32x4_t x, int32_t offset, bool wide)
{
    const int32x4_t centred = vaddq_n_s32(x, offset);
    return wide ? vshlq_n_s32(centred, EM_ADD_LEFT_SHIFT_S16) : vshlq_n_s32(centred, EM_ADD_LEFT_SHIFT);
}

/** Four elements at @p i of an int8 or (@p wide) int16 operand, widened to int32 lanes. */
EM_NN_ADD_ALWAYS_INLINE int32x4_t em_nn_add_load_mve(const void *x, int32_t i, bool tail, mve_pred16_t pred,
                                                     bool wide)
{
    if (wide) {
        return tail ? vldrhq_z_s32((const int16_t *)x + i, pred) : vldrhq_s32((const int16_t *)x + i);
    }
    return tail ? vldrbq_z_s32((const int8_t *)x + i, pred) : vldrbq_s32((const int8_t *)x + i);
}

/** Four outputs at @p i; a broadcast operand b contributes its pre-scaled value (a never is
 *  one: the entry swaps the operands). Everything the loop needs is in locals (a pointer to
 *  the parameters would be re-read after every store, which may alias it). */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_step_mve(const void *a, int32_t a_offset, em_nn_requant_mve ra, const void *b,
                                                bool b_scalar, int32x4_t sb0, int32_t b_offset, em_nn_requant_mve rb,
                                                em_nn_requant_mve ro, int32_t out_offset, int32x4_t lo, int32x4_t hi,
                                                void *out, int32_t i, bool tail, mve_pred16_t pred, bool wide)
{
    int32x4_t sb = sb0;
    const int32x4_t x = em_nn_add_load_mve(a, i, tail, pred, wide);
    /* |x + offset| <= 256 (int16: 2^15): the shift is exact */
    const int32x4_t sa = em_nn_requantize_tensor_mve(em_nn_add_headroom_mve(x, a_offset, wide), ra);
    if (!b_scalar) {
        const int32x4_t y = em_nn_add_load_mve(b, i, tail, pred, wide);
        sb = em_nn_requantize_tensor_mve(em_nn_add_headroom_mve(y, b_offset, wide), rb);
    }
    int32x4_t v = em_nn_requantize_tensor_mve(vaddq_s32(sa, sb), ro);
    v = vaddq_n_s32(v, out_offset); /* |v| <= 2^29 + 128: no overflow */
    v = vminq_s32(vmaxq_s32(v, lo), hi);
    if (wide) {
        if (tail) {
            vstrhq_p_s32((int16_t *)out + i, v, pred);
        } else {
            vstrhq_s32((int16_t *)out + i, v);
        }
    } else if (tail) {
        vstrbq_p_s32((int8_t *)out + i, v, pred);
    } else {
        vstrbq_s32((int8_t *)out + i, v);
    }
}

EM_NN_ADD_ALWAYS_INLINE void em_nn_add_row_mve(const em_add_params *params, const void *a, const void *b,
                                               bool b_scalar, void *out, int32_t n, bool wide)
{
    const em_add_params p = *params;
    const em_nn_requant_mve ra = em_nn_requant_mve_of(p.a_multiplier, p.a_shift);
    const em_nn_requant_mve rb = em_nn_requant_mve_of(p.b_multiplier, p.b_shift);
    const em_nn_requant_mve ro = em_nn_requant_mve_of(p.output_multiplier, p.output_shift);
    const int32x4_t lo = vdupq_n_s32(p.activation_min), hi = vdupq_n_s32(p.activation_max);
    const int32x4_t sb0 = vdupq_n_s32(
        b_scalar ? em_nn_add_scaled(em_nn_add_load(b, 0, wide), p.b_offset, p.b_multiplier, p.b_shift, wide) : 0);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        em_nn_add_step_mve(a, p.a_offset, ra, b, b_scalar, sb0, p.b_offset, rb, ro, p.output_offset, lo, hi, out,
                           i, false, 0, wide);
    }
    if (i < n) {
        em_nn_add_step_mve(a, p.a_offset, ra, b, b_scalar, sb0, p.b_offset, rb, ro, p.output_offset, lo, hi, out,
                           i, true, vctp32q((uint32_t)(n - i)), wide);
    }
}

/** out[0..n) from a[0..n) and b[0..n) (or b[0] broadcast). The loop is compiled for each form
 *  (the broadcast test out of it), except where size is asked for (-Os): one copy, testing the
 *  flag at each step. */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_row(const em_add_params *p, const void *a, const void *b, bool b_scalar,
                                           void *out, int32_t n, bool wide)
{
#ifdef __OPTIMIZE_SIZE__
    em_nn_add_row_mve(p, a, b, b_scalar, out, n, wide);
#else
    if (b_scalar) {
        em_nn_add_row_mve(p, a, b, true, out, n, wide);
    } else {
        em_nn_add_row_mve(p, a, b, false, out, n, wide);
    }
#endif
}

#else /* scalar and DSP */

/** out[0..n) from a[0..n) and b[0..n) (or b[0] broadcast). */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_row(const em_add_params *params, const void *a, const void *b, bool b_scalar,
                                           void *out, int32_t n, bool wide)
{
    const em_add_params local = *params; /* not re-read after each store (which may alias) */
    const em_add_params *p = &local;
    const int32_t sb0 =
        b_scalar ? em_nn_add_scaled(em_nn_add_load(b, 0, wide), p->b_offset, p->b_multiplier, p->b_shift, wide) : 0;
    for (int32_t i = 0; i < n; i++) {
        const int32_t sa = em_nn_add_scaled(em_nn_add_load(a, i, wide), p->a_offset, p->a_multiplier, p->a_shift, wide);
        const int32_t sb = b_scalar ? sb0
                                    : em_nn_add_scaled(em_nn_add_load(b, i, wide), p->b_offset, p->b_multiplier,
                                                       p->b_shift, wide);
        em_nn_add_store(out, i, sa + sb, p, wide);
    }
}

#endif

/** One group of runs (em_nn_broadcast.h: the outer indices fixed), a never repeated. Each
 *  kernel wraps it in an out-of-line function of its own width: its loop keeps its pointers in
 *  registers, the walk's odometer on the stack. */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_group_body(const em_add_params *p, const em_nn_broadcast *w, const void *a,
                                                  const void *b, void *out, bool wide)
{
    const int32_t inner = w->size[0], a_step = w->a_stride[1], b_step = w->b_stride[1];
    const bool b_one = w->b_stride[0] == 0;
    for (int32_t r = w->size[1]; r > 0; r--) {
        em_nn_add_row(p, a, b, b_one, out, inner, wide);
        a = em_nn_add_at(a, a_step, wide);
        b = em_nn_add_at(b, b_step, wide);
        out = (void *)em_nn_add_at(out, inner, wide);
    }
}

/**
 * An add with a broadcast operand, walked group by group (em_nn_broadcast.h), each group by
 * @p group (the kernel's out-of-line em_nn_add_group_body() of its width). When a repeats one
 * value along each run, a trades places with b, and its offset, multiplier, shift and strides
 * with b's (sa + sb is the same int32 sum either way, so the same bytes), so the row loop is
 * compiled for b repeated (a scalar b) or for two arrays only.
 */
EM_NN_ADD_ALWAYS_INLINE void em_nn_add_broadcast_body(const em_add_params *params, em_nn_broadcast *w, const void *a,
                                                      const void *b, void *output,
                                                      void (*group)(const em_add_params *, const em_nn_broadcast *,
                                                                    const void *, const void *, void *),
                                                      bool wide)
{
    em_add_params p = *params;
    if (w->a_stride[0] == 0) {
        const void *const t = a;
        a = b;
        b = t;
        p.a_offset = params->b_offset;
        p.a_multiplier = params->b_multiplier;
        p.a_shift = params->b_shift;
        p.b_offset = params->a_offset;
        p.b_multiplier = params->a_multiplier;
        p.b_shift = params->a_shift;
        for (int32_t j = 0; j < w->axes; j++) { /* the walk of b + a */
            const int32_t stride = w->a_stride[j];
            w->a_stride[j] = w->b_stride[j];
            w->b_stride[j] = stride;
        }
    }
    em_nn_broadcast_at at;
    em_nn_broadcast_start(w, &at);
    void *out = output;
    do {
        group(&p, w, em_nn_add_at(a, at.a, wide), em_nn_add_at(b, at.b, wide), out);
        out = (void *)em_nn_add_at(out, w->size[1] * w->size[0], wide);
    } while (em_nn_broadcast_next(w, &at));
}

#endif /* EM_NN_ADD_H */
