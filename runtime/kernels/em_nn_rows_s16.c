/**
 * @file em_nn_rows_s16.c
 * @brief em_nn_rows_s16() (em_nn_s16.h): int16 column · int8 weight rows, int64 sums, requantized
 *        to int16: the inner loop of the int16 (A16W8) conv2d and fully connected kernels, one
 *        file for the three tiers behind em_nn_tier.h.
 *
 * - Helium: four rows per input load. Each step loads 8 int16 inputs (VLDRH.16) and 8 int8
 *   weights per row widened by the load (VLDRB.S16), and VMLALDAVA.S16 adds the 8 products to a
 *   row's 64-bit accumulator; a last step of 1..7 is predicated (zeroing loads, vctp16q), never
 *   reading past a row. Where rows->sum32 holds (em_nn_s16_sum32(): every partial sum and the
 *   bias are exact in int32) the accumulators are 32-bit (VMLADAVA.S16, in a tail-predicated
 *   assembly loop, em_nn_dot4_sum32_mve()) and the four outputs are requantized in one vector
 *   (em_nn_requantize4_s16_mve()); else each 64-bit sum by em_nn_requantize_s64_s16(). Rows left
 *   over (1..3) run one at a time.
 * - DSP: two rows per input load; SMLALD adds two 16x16 products to the 64-bit accumulator
 *   (never SMLAD's 32-bit sum, which could wrap). Four inputs (two words, repacked by PKHBT /
 *   PKHTB into (x0, x2) and (x1, x3)) meet each row's four weights sign-extended by SXTB16 into
 *   (w0, w2) and (w1, w3); a tail of 1..3 inputs runs scalar.
 * - scalar: two rows per input load, int64 multiply-accumulate (SMLAL on the M3).
 */
#include <stddef.h>
#include <string.h>

#include "em_nn_s16.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#elif EM_NN_TIER_DSP
#include <arm_acle.h>
#endif

/** The bias of row @p o (0 without). */
static inline int64_t em_nn_s16_bias(const em_nn_s16_rows *r, int32_t o)
{
    return r->bias != NULL ? r->bias[o] : 0;
}

/** Row @p o's sum, requantized and clamped (every tier's last step of a row). */
static inline int16_t em_nn_s16_out(const em_nn_s16_rows *r, int32_t o, int64_t acc)
{
    return em_nn_requantize_s64_s16(acc, em_nn_s16_reduced_multiplier(r->multiplier[o]), r->shift[o],
                                    r->activation_min, r->activation_max);
}

#if EM_NN_TIER_MVE

/**
 * Four rows' 32-bit sums against one column (rows->sum32): a tail-predicated loop (DLSTP.16 /
 * LETP: the last step of 1..7 lanes loads zeros past the rows and adds nothing) of one input
 * load, four weight loads widened by VLDRB.S16 and four VMLADAVA.S16, 10 instructions per 8
 * inputs of the four rows. Assembly: GCC 12 writes no tail-predicated loop and peels a
 * predicated last step (about 30 instructions).
 */
static inline int32x4_t em_nn_dot4_sum32_mve(const int16_t *x, const int8_t *w, int32_t n)
{
#if defined(__NO_INLINE__) /* -O0: too few registers for the fixed ones below; the same sums in C */
    const int8_t *w1 = w + n, *w2 = w1 + n, *w3 = w2 + n;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i += 8) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vldrhq_z_s16(x + i, p);
        a0 = vmladavaq_s16(a0, xv, vldrbq_z_s16(w + i, p));
        a1 = vmladavaq_s16(a1, xv, vldrbq_z_s16(w1 + i, p));
        a2 = vmladavaq_s16(a2, xv, vldrbq_z_s16(w2 + i, p));
        a3 = vmladavaq_s16(a3, xv, vldrbq_z_s16(w3 + i, p));
    }
#else
    /* VLDRB.S16 takes r0..r7 as its base, VMLADAVA an even accumulator: fixed registers
     * (none of them r7, the frame pointer at -O0) */
    register const int8_t *w0 __asm__("r0") = w;
    register const int8_t *w1 __asm__("r1") = w + n;
    register const int8_t *w2 __asm__("r2") = w + 2 * n;
    register const int8_t *w3 __asm__("r3") = w + 3 * n;
    register int32_t a0 __asm__("r4") = 0;
    register int32_t a1 __asm__("r6") = 0;
    register int32_t a2 __asm__("r8") = 0;
    register int32_t a3 __asm__("r10") = 0;
    __asm__ volatile("dlstp.16     lr, %[n]\n"
                     "1:\n\t"
                     "vldrh.16     q0, [%[x]], #16\n\t"
                     "vldrb.s16    q1, [%[w0]], #8\n\t"
                     "vldrb.s16    q2, [%[w1]], #8\n\t"
                     "vmladava.s16 %[a0], q0, q1\n\t"
                     "vldrb.s16    q1, [%[w2]], #8\n\t"
                     "vmladava.s16 %[a1], q0, q2\n\t"
                     "vldrb.s16    q2, [%[w3]], #8\n\t"
                     "vmladava.s16 %[a2], q0, q1\n\t"
                     "vmladava.s16 %[a3], q0, q2\n\t"
                     "letp         lr, 1b"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
                       [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
                     : [n] "r"(n)
                     : "q0", "q1", "q2", "lr", "memory");
#endif
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    return vsetq_lane_s32(a3, acc, 3);
}

/** Rows o..count-1 in blocks of four with 32-bit sums (rows->sum32), each block requantized in
 *  one vector; returns the first row left (count - o < 4). */
static EM_NN_S16_NOINLINE int32_t em_nn_rows4_sum32_mve(const em_nn_s16_rows *r, const int16_t *x, int16_t *out)
{
    const int32_t n = r->n, count = r->count;
    const int8_t *w = r->weights;
    const int32_t *bias = r->bias, *multiplier = r->multiplier, *shift = r->shift;
    const int32x4_t lo = vdupq_n_s32(r->activation_min), hi = vdupq_n_s32(r->activation_max);
    int32_t o = 0;
    for (; o + 4 <= count; o += 4, w += 4 * n) {
        int32x4_t acc = em_nn_dot4_sum32_mve(x, w, n);
        if (bias != NULL) {
            acc = vaddq_s32(acc, vldrwq_s32(bias + o)); /* exact: rows->sum32 */
        }
        int32x4_t v = em_nn_requantize4_s16_mve(acc, vldrwq_s32(multiplier + o), vldrwq_s32(shift + o));
        vstrhq_s32(out + o, vminq_s32(vmaxq_s32(v, lo), hi));
    }
    return o;
}

/** Four rows o..o+3 with 64-bit accumulators, each requantized on its own. */
static void em_nn_rows4_sum64_mve(const em_nn_s16_rows *r, int32_t o, const int16_t *x, int16_t *out)
{
    const int32_t n = r->n;
    const int8_t *w0 = r->weights + o * n;
    const int8_t *w1 = w0 + n;
    const int8_t *w2 = w1 + n;
    const int8_t *w3 = w2 + n;
    int64_t a0 = em_nn_s16_bias(r, o), a1 = em_nn_s16_bias(r, o + 1);
    int64_t a2 = em_nn_s16_bias(r, o + 2), a3 = em_nn_s16_bias(r, o + 3);
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t xv = vldrhq_s16(x + i);
        a0 = vmlaldavaq_s16(a0, xv, vldrbq_s16(w0 + i));
        a1 = vmlaldavaq_s16(a1, xv, vldrbq_s16(w1 + i));
        a2 = vmlaldavaq_s16(a2, xv, vldrbq_s16(w2 + i));
        a3 = vmlaldavaq_s16(a3, xv, vldrbq_s16(w3 + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vldrhq_z_s16(x + i, p);
        a0 = vmlaldavaq_s16(a0, xv, vldrbq_z_s16(w0 + i, p));
        a1 = vmlaldavaq_s16(a1, xv, vldrbq_z_s16(w1 + i, p));
        a2 = vmlaldavaq_s16(a2, xv, vldrbq_z_s16(w2 + i, p));
        a3 = vmlaldavaq_s16(a3, xv, vldrbq_z_s16(w3 + i, p));
    }
    out[o] = em_nn_s16_out(r, o, a0);
    out[o + 1] = em_nn_s16_out(r, o + 1, a1);
    out[o + 2] = em_nn_s16_out(r, o + 2, a2);
    out[o + 3] = em_nn_s16_out(r, o + 3, a3);
}

/** One row's 64-bit sum (the rows left after the blocks of four). */
static int64_t em_nn_row_mve(const int16_t *x, const int8_t *w, int32_t n, int64_t acc)
{
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        acc = vmlaldavaq_s16(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        acc = vmlaldavaq_s16(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}

/** em_nn_rows_s16_pixels() of blocks of four rows with 32-bit sums (rows->sum32): the block's
 *  bias and requantization constants once, then every pixel; returns the first row left. */
static EM_NN_S16_NOINLINE int32_t em_nn_rows4_pixels_sum32_mve(const em_nn_s16_rows *r, const em_nn_s16_pixels *px)
{
    const int32_t n = r->n, count = r->count;
    const int32x4_t lo = vdupq_n_s32(r->activation_min), hi = vdupq_n_s32(r->activation_max);
    int32_t o = 0;
    for (; o + 4 <= count; o += 4) {
        const int8_t *w = r->weights + o * n;
        const em_nn_s16_requant4 q = em_nn_s16_requant4_of(vldrwq_s32(r->multiplier + o), vldrwq_s32(r->shift + o));
        const int32x4_t bias = r->bias != NULL ? vldrwq_s32(r->bias + o) : vdupq_n_s32(0);
        int16_t *out = px->output + o;
        const int16_t *x_row = px->input;
        for (int32_t i = 0; i < px->rows; i++, x_row += px->row_step) {
            const int16_t *x = x_row;
            for (int32_t j = 0; j < px->cols; j++, x += px->col_step, out += px->out_step) {
                const int32x4_t acc = vaddq_s32(em_nn_dot4_sum32_mve(x, w, n), bias); /* exact: rows->sum32 */
                vstrhq_s32(out, vminq_s32(vmaxq_s32(em_nn_s16_requant4_apply(acc, q), lo), hi));
            }
        }
    }
    return o;
}

void em_nn_rows_s16_pixels(const em_nn_s16_rows *r, const em_nn_s16_pixels *px)
{
    const int32_t first = r->sum32 ? em_nn_rows4_pixels_sum32_mve(r, px) : 0;
    if (first == r->count) {
        return;
    }
    em_nn_s16_rows rest = *r; /* the rows left (all of them without sum32), pixel by pixel */
    rest.weights += first * r->n;
    rest.bias = r->bias != NULL ? r->bias + first : NULL;
    rest.multiplier += first;
    rest.shift += first;
    rest.count -= first;
    const int16_t *x_row = px->input;
    int16_t *out = px->output + first;
    for (int32_t i = 0; i < px->rows; i++, x_row += px->row_step) {
        const int16_t *x = x_row;
        for (int32_t j = 0; j < px->cols; j++, x += px->col_step, out += px->out_step) {
            em_nn_rows_s16(&rest, x, out);
        }
    }
}

void em_nn_rows_s16(const em_nn_s16_rows *r, const int16_t *x, int16_t *out)
{
    int32_t o = 0;
    if (r->sum32) {
        o = em_nn_rows4_sum32_mve(r, x, out);
    } else {
        for (; o + 4 <= r->count; o += 4) {
            em_nn_rows4_sum64_mve(r, o, x, out);
        }
    }
    for (; o < r->count; o++) {
        out[o] = em_nn_s16_out(r, o, em_nn_row_mve(x, r->weights + o * r->n, r->n, em_nn_s16_bias(r, o)));
    }
}

#elif EM_NN_TIER_DSP

void em_nn_rows_s16(const em_nn_s16_rows *r, const int16_t *x, int16_t *out)
{
    const int32_t n = r->n;
    int32_t o = 0;
    for (; o + 2 <= r->count; o += 2) {
        const int8_t *w0 = r->weights + o * n;
        const int8_t *w1 = w0 + n;
        int64_t a0 = em_nn_s16_bias(r, o), a1 = em_nn_s16_bias(r, o + 1);
        int32_t i = 0;
        for (; i + 4 <= n; i += 4) {
            int32_t x02, x13;
            em_nn_s16x4_pairs(x + i, &x02, &x13);
            const uint32_t v0 = em_nn_read_s8x4(w0 + i), v1 = em_nn_read_s8x4(w1 + i);
            a0 = __smlald(x02, em_nn_sxtb16_02(v0), a0);
            a0 = __smlald(x13, em_nn_sxtb16_13(v0), a0);
            a1 = __smlald(x02, em_nn_sxtb16_02(v1), a1);
            a1 = __smlald(x13, em_nn_sxtb16_13(v1), a1);
        }
        for (; i < n; i++) {
            a0 += (int32_t)x[i] * w0[i];
            a1 += (int32_t)x[i] * w1[i];
        }
        out[o] = em_nn_s16_out(r, o, a0);
        out[o + 1] = em_nn_s16_out(r, o + 1, a1);
    }
    if (o < r->count) { /* an odd last row */
        const int8_t *w0 = r->weights + o * n;
        int64_t a0 = em_nn_s16_bias(r, o);
        int32_t i = 0;
        for (; i + 4 <= n; i += 4) {
            int32_t x02, x13;
            em_nn_s16x4_pairs(x + i, &x02, &x13);
            const uint32_t v0 = em_nn_read_s8x4(w0 + i);
            a0 = __smlald(x02, em_nn_sxtb16_02(v0), a0);
            a0 = __smlald(x13, em_nn_sxtb16_13(v0), a0);
        }
        for (; i < n; i++) {
            a0 += (int32_t)x[i] * w0[i];
        }
        out[o] = em_nn_s16_out(r, o, a0);
    }
}

#else /* scalar */

void em_nn_rows_s16(const em_nn_s16_rows *r, const int16_t *x, int16_t *out)
{
    const int32_t n = r->n;
    int32_t o = 0;
    for (; o + 2 <= r->count; o += 2) {
        const int8_t *w0 = r->weights + o * n;
        const int8_t *w1 = w0 + n;
        int64_t a0 = em_nn_s16_bias(r, o), a1 = em_nn_s16_bias(r, o + 1);
        for (int32_t i = 0; i < n; i++) {
            const int32_t xi = x[i];
            a0 += (int64_t)(xi * w0[i]); /* |x·w| <= 2^22: the product is exact in int32 */
            a1 += (int64_t)(xi * w1[i]);
        }
        out[o] = em_nn_s16_out(r, o, a0);
        out[o + 1] = em_nn_s16_out(r, o + 1, a1);
    }
    if (o < r->count) {
        const int8_t *w0 = r->weights + o * n;
        int64_t a0 = em_nn_s16_bias(r, o);
        for (int32_t i = 0; i < n; i++) {
            a0 += (int64_t)(x[i] * w0[i]);
        }
        out[o] = em_nn_s16_out(r, o, a0);
    }
}

#endif

#if !EM_NN_TIER_MVE
void em_nn_rows_s16_pixels(const em_nn_s16_rows *r, const em_nn_s16_pixels *px)
{
    const int16_t *x_row = px->input;
    int16_t *out = px->output;
    for (int32_t i = 0; i < px->rows; i++, x_row += px->row_step) {
        const int16_t *x = x_row;
        for (int32_t j = 0; j < px->cols; j++, x += px->col_step, out += px->out_step) {
            em_nn_rows_s16(r, x, out);
        }
    }
}
#endif
