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

/** One input's rescaling onto the common scale (scalar form). */
static inline int32_t em_nn_add_scaled(int32_t x, int32_t offset, int32_t multiplier, int32_t shift)
{
    return em_nn_requantize((x + offset) * (1 << EM_ADD_LEFT_SHIFT), multiplier, shift);
}

static inline int8_t em_nn_add_output(int32_t sum, const em_add_params *p)
{
    const int32_t v = em_nn_requantize(sum, p->output_multiplier, p->output_shift) + p->output_offset;
    return (int8_t)(v < p->activation_min ? p->activation_min : (v > p->activation_max ? p->activation_max : v));
}

#if EM_NN_TIER_MVE

/** One per-tensor requantization on 4 lanes: em_nn_requantize_mve() with its shifts taken from
 *  general-purpose registers (VQSHL / VRSHL by register), so that the three requantizations of
 *  an add keep only their multipliers and the clamps in Q registers (8 of them: no spills). Same
 *  instructions, same bits: sat32(x << L) by VQSHL, floor(x·m / 2^32) by VMULH, then a rounding
 *  shift right by E − 32 >= 1 (VRSHL by −(E − 32) = shift − L + 1). */
typedef struct {
    int32x4_t multiplier;
    int32_t left;  /**< L = max(shift + 2, 0) */
    int32_t right; /**< shift − L + 1 <= −1 */
} em_nn_add_requant;

static inline em_nn_add_requant em_nn_add_requant_of(int32_t multiplier, int32_t shift)
{
    em_nn_add_requant r;
    r.multiplier = vdupq_n_s32(multiplier);
    r.left = em_nn_requantize_left_shift(shift);
    r.right = shift - r.left + 1;
    return r;
}

static inline __attribute__((always_inline)) int32x4_t em_nn_add_requantize_mve(int32x4_t x,
                                                                                em_nn_add_requant r)
{
    return vrshlq_n_s32(vmulhq_s32(vqshlq_r_s32(x, r.left), r.multiplier), r.right);
}

/** Four outputs at @p i; a broadcast operand b contributes its pre-scaled value (a never is
 *  one: em_add_s8() swaps the operands). Everything the loop needs is in locals (a pointer to
 *  the parameters would be re-read after every int8 store, which may alias it). */
static inline __attribute__((always_inline)) void
em_nn_add_step_mve(const int8_t *a, int32_t a_offset, em_nn_add_requant ra, const int8_t *b, bool b_scalar,
                   int32x4_t sb0, int32_t b_offset, em_nn_add_requant rb, em_nn_add_requant ro,
                   int32_t out_offset, int32x4_t lo, int32x4_t hi, int8_t *out, int32_t i, bool tail,
                   mve_pred16_t pred)
{
    int32x4_t sb = sb0;
    const int32x4_t x = tail ? vldrbq_z_s32(a + i, pred) : vldrbq_s32(a + i);
    /* |x + offset| <= 256: the shift is exact */
    const int32x4_t sa = em_nn_add_requantize_mve(vshlq_n_s32(vaddq_n_s32(x, a_offset), EM_ADD_LEFT_SHIFT), ra);
    if (!b_scalar) {
        const int32x4_t y = tail ? vldrbq_z_s32(b + i, pred) : vldrbq_s32(b + i);
        sb = em_nn_add_requantize_mve(vshlq_n_s32(vaddq_n_s32(y, b_offset), EM_ADD_LEFT_SHIFT), rb);
    }
    int32x4_t v = em_nn_add_requantize_mve(vaddq_s32(sa, sb), ro);
    v = vaddq_n_s32(v, out_offset); /* |v| <= 2^29 + 128: no overflow */
    v = vminq_s32(vmaxq_s32(v, lo), hi);
    if (tail) {
        vstrbq_p_s32(out + i, v, pred);
    } else {
        vstrbq_s32(out + i, v);
    }
}

static inline __attribute__((always_inline)) void
em_nn_add_row_mve(const em_add_params *params, const int8_t *a, const int8_t *b, bool b_scalar, int8_t *out,
                  int32_t n)
{
    const em_add_params p = *params;
    const em_nn_add_requant ra = em_nn_add_requant_of(p.a_multiplier, p.a_shift);
    const em_nn_add_requant rb = em_nn_add_requant_of(p.b_multiplier, p.b_shift);
    const em_nn_add_requant ro = em_nn_add_requant_of(p.output_multiplier, p.output_shift);
    const int32x4_t lo = vdupq_n_s32(p.activation_min), hi = vdupq_n_s32(p.activation_max);
    const int32x4_t sb0 = vdupq_n_s32(b_scalar ? em_nn_add_scaled(*b, p.b_offset, p.b_multiplier, p.b_shift) : 0);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        em_nn_add_step_mve(a, p.a_offset, ra, b, b_scalar, sb0, p.b_offset, rb, ro, p.output_offset, lo, hi, out,
                           i, false, 0);
    }
    if (i < n) {
        em_nn_add_step_mve(a, p.a_offset, ra, b, b_scalar, sb0, p.b_offset, rb, ro, p.output_offset, lo, hi, out,
                           i, true, vctp32q((uint32_t)(n - i)));
    }
}

/** out[0..n) from a[0..n) and b[0..n) (or b[0] broadcast). The loop is compiled for each form
 *  (the broadcast test out of it), except where size is asked for (-Os): one copy, testing the
 *  flag at each step. */
static void em_nn_add_row(const em_add_params *p, const int8_t *a, const int8_t *b, bool b_scalar, int8_t *out,
                          int32_t n)
{
#ifdef __OPTIMIZE_SIZE__
    em_nn_add_row_mve(p, a, b, b_scalar, out, n);
#else
    if (b_scalar) {
        em_nn_add_row_mve(p, a, b, true, out, n);
    } else {
        em_nn_add_row_mve(p, a, b, false, out, n);
    }
#endif
}

#else /* scalar and DSP */

/** Below this many elements per call the tables cost more than they save. */
#define EM_NN_ADD_TABLE_MIN 1024

/** Each input's rescaled value as a function of its int8 code: 256 entries, indexed x + 128.
 *  Built with em_nn_add_scaled() itself, so a lookup is the same bits as the computation. */
static void em_nn_add_table(int32_t *table, int32_t offset, int32_t multiplier, int32_t shift)
{
    for (int32_t x = -128; x < 128; x++) {
        table[x + 128] = em_nn_add_scaled(x, offset, multiplier, shift);
    }
}

/** out[0..n) from a[0..n) and b[0..n) (or b[0] broadcast). */
static void em_nn_add_row(const em_add_params *params, const int8_t *a, const int8_t *b, bool b_scalar, int8_t *out,
                          int32_t n)
{
    const em_add_params local = *params; /* not re-read after each int8 store (which may alias) */
    const em_add_params *p = &local;
    const int32_t sb0 = b_scalar ? em_nn_add_scaled(*b, p->b_offset, p->b_multiplier, p->b_shift) : 0;
    for (int32_t i = 0; i < n; i++) {
        const int32_t sa = em_nn_add_scaled(a[i], p->a_offset, p->a_multiplier, p->a_shift);
        const int32_t sb = b_scalar ? sb0 : em_nn_add_scaled(b[i], p->b_offset, p->b_multiplier, p->b_shift);
        out[i] = em_nn_add_output(sa + sb, p);
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
        out[i] = em_nn_add_output(ta0[a[i]] + tb0[b[i]], &p);
    }
}

#endif

/* em_add_s8_params_valid(): em_add_validate_s8.c */

/** One group of runs (em_nn_broadcast.h: the outer indices fixed), a never repeated. Out of
 *  line: its loop keeps its pointers in registers, the walk's odometer on the stack. */
static __attribute__((noinline)) void em_nn_add_group(const em_add_params *p, const em_nn_broadcast *w,
                                                      const int8_t *a, const int8_t *b, int8_t *out)
{
    const int32_t inner = w->size[0], a_step = w->a_stride[1], b_step = w->b_stride[1];
    const bool b_one = w->b_stride[0] == 0;
    for (int32_t r = w->size[1]; r > 0; r--, a += a_step, b += b_step, out += inner) {
        em_nn_add_row(p, a, b, b_one, out, inner);
    }
}

/* Scalar and DSP: out of line, so that the parameters' swapped copy is no part of the stack
 * frame under the same-shape path's 2 KiB of tables; MVE has no tables, and inline is smaller. */
#if EM_NN_TIER_MVE
#define EM_NN_ADD_BROADCAST_INLINE inline
#else
#define EM_NN_ADD_BROADCAST_INLINE __attribute__((noinline))
#endif

/** An add with a broadcast operand, walked group by group (em_nn_broadcast.h). When a repeats
 *  one value along each run, a trades places with b, and its offset, multiplier, shift and
 *  strides with b's (sa + sb is the same int32 sum either way, so the same bytes), so the row
 *  loop is compiled for b repeated (a scalar b) or for two arrays only. */
static EM_NN_ADD_BROADCAST_INLINE void em_nn_add_broadcast(const em_add_params *params, em_nn_broadcast *w,
                                                          const int8_t *a, const int8_t *b, int8_t *output)
{
    em_add_params p = *params;
    if (w->a_stride[0] == 0) {
        const int8_t *const t = a;
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
    int8_t *out = output;
    do {
        em_nn_add_group(&p, w, a + at.a, b + at.b, out);
        out += w->size[1] * w->size[0];
    } while (em_nn_broadcast_next(w, &at));
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
    em_nn_add_row(params, a, b, false, output, n);
    return EM_NN_OK;
}
