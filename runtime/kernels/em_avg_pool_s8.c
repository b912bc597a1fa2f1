/**
 * @file em_avg_pool_s8.c
 * @brief int8 2-D average pooling, NHWC. Scalar, DSP (SXTAB16 sums of four channels) and Helium
 *        (MVE) paths behind em_nn_tier.h.
 *
 * compiler/reference.py:avg_pool_s8 is out = clamp(zp + round_half_even(total / count)) with
 * total = Σ_real (x − zp) (padded cells hold real 0) and count = kernel area
 * (count_include_pad) or the number of real cells. Both paths compute it exactly:
 *
 * 1. Every window is clipped to the input; with n real cells, total = Σ_real x − n·zp.
 * 2. The dividend is made positive: u = total + 256·count. Since |x − zp| <= 255 and n <= count,
 *    count <= u < 512·count; count <= EM_AVG_POOL_MAX_CELLS (2^22) keeps u < 2^31.
 *    floor(u / count) = floor(total / count) + 256 and the remainder r is the same, so
 *    round_half_even(total / count) = q − 256 + up, with q = floor(u / count), r = u − q·count,
 *    up = (2r + (q & 1) > count): 2r > count rounds up; 2r == count (a tie) rounds up iff q is
 *    odd (q and q − 256 have the same parity); 2r < count gives 2r + 1 <= count, no rounding.
 *    This is reference.rounding_divide exactly.
 * 3. Scalar: q and r by C's unsigned division. MVE: by an exact reciprocal, shared by all the
 *    pixel's channels: m = floor((2^32 − 1) / count), q' = floor(u·m / 2^32) (VMULH.U32).
 *    Proof that q' ∈ {q − 1, q} for every u < 2^32 and count >= 1:
 *    m <= (2^32 − 1)/count < 2^32/count, so u·m/2^32 < u/count and q' <= q;
 *    m >= (2^32 − 1)/count − (count − 1)/count = 2^32/count − 1, so
 *    u·m/2^32 >= u/count − u/2^32 > u/count − 1, and q' >= floor(u/count − 1) = q − 1.
 *    Then r' = u − q'·count ∈ [0, 2·count), and one correction (r' >= count: q' + 1, r' − count)
 *    gives q and r exactly.
 *
 * MVE accumulation: 16 channels per pass, two int16x8 sums fed by widening loads (VLDRB.S16);
 * at most 256 cells go into an int16 sum (256·(−128) = −32768 still fits) before it is widened
 * (VMOVLB/VMOVLT, even and odd lanes) into four int32x4 sums. The even/odd lane order is undone at
 * the end by the narrowing pair VMOVNB/VMOVNT. A channel tail (< 16) uses predicated loads and
 * stores that never touch bytes past the pixel's channels.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/* em_avg_pool_s8_get_buffer_size(): em_nn_buffer_sizes.c */

/** One output pixel's geometry and constants. */
typedef struct {
    const int8_t *in;   /**< channel 0 of the window's first real cell */
    int32_t row_stride; /**< bytes between input rows (W·C) */
    int32_t channels;   /**< C, also the bytes between cells of a row */
    int32_t rows, cols; /**< real cells: rows x cols, both >= 1 */
    uint32_t count;     /**< divisor, 1..EM_AVG_POOL_MAX_CELLS */
    int32_t bias;       /**< 256·count − rows·cols·zp: u = Σ_real x + bias */
    int32_t out_bias;   /**< zp − 256 */
    int32_t act_min, act_max;
} em_nn_avg_pixel;

#if EM_NN_TIER_MVE

/** Widening sums of @p n cells of one row into two int16x8 (channels c..c+7, c+8..c+15), in
 *  place; unpredicated when the whole 16-channel group exists (@p tail false). */
#define EM_NN_AVG_CELLS(cell, step, n, lo, hi, tail, p_lo, p_hi)                                  \
    do {                                                                                     \
        const int8_t *q_ = (cell);                                                           \
        for (int32_t k_ = 0; k_ < (n); k_++, q_ += (step)) {                                 \
            if (tail) {                                                                      \
                lo = vaddq_s16(lo, vldrbq_z_s16(q_, p_lo));                                  \
                hi = vaddq_s16(hi, vldrbq_z_s16(q_ + 8, p_hi));                              \
            } else {                                                                         \
                lo = vaddq_s16(lo, vldrbq_s16(q_));                                          \
                hi = vaddq_s16(hi, vldrbq_s16(q_ + 8));                                      \
            }                                                                                \
        }                                                                                    \
    } while (0)

/** The divisor and output constants of one pixel, by value (registers, not memory). */
typedef struct {
    uint32_t count;
    uint32_t m; /**< floor((2^32 − 1) / count) */
    int32_t out_bias;
    int32x4_t lo, hi; /**< clamps */
} em_nn_avg_div;

/** Exact round_half_even((u − 256·count) / count) + zp, clamped (see the file comment). */
static inline int32x4_t em_nn_avg_divide_mve(int32x4_t sum, const em_nn_avg_div *d)
{
    const uint32x4_t u = vreinterpretq_u32_s32(sum);
    uint32x4_t q = vmulhq_u32(u, vdupq_n_u32(d->m));
    uint32x4_t r = vsubq_u32(u, vmulq_n_u32(q, d->count));
    const mve_pred16_t over = vcmpcsq_n_u32(r, d->count);
    q = vaddq_m_n_u32(q, q, 1u, over);
    r = vsubq_m_n_u32(r, r, d->count, over);
    const uint32x4_t t = vaddq_u32(vshlq_n_u32(r, 1), vandq_u32(q, vdupq_n_u32(1u)));
    q = vaddq_m_n_u32(q, q, 1u, vcmphiq_n_u32(t, d->count));
    const int32x4_t v = vaddq_n_s32(vreinterpretq_s32_u32(q), d->out_bias);
    return vminq_s32(vmaxq_s32(v, d->lo), d->hi);
}

/** Channels c..c+15 of one output pixel (see em_nn_avg_pixel for the geometry). */
static inline __attribute__((always_inline)) void
em_nn_avg_group_mve(const int8_t *in, int32_t row_stride, int32_t channels, int32_t rows, int32_t cols,
                    int32_t bias, const em_nn_avg_div *d, int32_t c, bool tail, int8_t *out)
{
    const uint32_t left = (uint32_t)(channels - c);
    const mve_pred16_t p_lo = vctp16q(left);
    const mve_pred16_t p_hi = vctp16q(left > 8u ? left - 8u : 0u);
    const int16x8_t zero16 = vdupq_n_s16(0);
    int32x4_t a0 = vdupq_n_s32(bias), a1 = a0, a2 = a0, a3 = a0;
    int16x8_t s_lo = zero16, s_hi = zero16;
    const int8_t *row = in + c;
    if (!EM_NN_VARIANT_AVG_MVE_LARGE || rows * cols <= 256) { /* the usual window: one int16 sum */
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            EM_NN_AVG_CELLS(row, channels, cols, s_lo, s_hi, tail, p_lo, p_hi);
        }
    } else {
        int32_t pending = 0; /* cells in s_lo / s_hi, <= 256 */
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            int32_t todo = cols;
            while (todo > 0) {
                const int32_t take = todo < 256 - pending ? todo : 256 - pending;
                EM_NN_AVG_CELLS(cell, channels, take, s_lo, s_hi, tail, p_lo, p_hi);
                cell += take * channels;
                pending += take;
                todo -= take;
                if (pending == 256) {
                    a0 = vaddq_s32(a0, vmovlbq_s16(s_lo));
                    a1 = vaddq_s32(a1, vmovltq_s16(s_lo));
                    a2 = vaddq_s32(a2, vmovlbq_s16(s_hi));
                    a3 = vaddq_s32(a3, vmovltq_s16(s_hi));
                    s_lo = zero16;
                    s_hi = zero16;
                    pending = 0;
                }
            }
        }
    }
    int32x4_t sums[4];
    sums[0] = vaddq_s32(a0, vmovlbq_s16(s_lo)); /* lanes: channels c+0, 2, 4, 6 */
    sums[1] = vaddq_s32(a1, vmovltq_s16(s_lo)); /* c+1, 3, 5, 7 */
    sums[2] = vaddq_s32(a2, vmovlbq_s16(s_hi)); /* c+8, 10, 12, 14 */
    sums[3] = vaddq_s32(a3, vmovltq_s16(s_hi)); /* c+9, 11, 13, 15 */
    /* A loop, not four inlined divisions: one copy of the division per group form where size
     * is asked for (-Os); unrolled otherwise, the same instructions as four inline copies. */
#ifndef __OPTIMIZE_SIZE__
#pragma GCC unroll 4
#endif
    for (int32_t k = 0; k < 4; k++) {
        sums[k] = em_nn_avg_divide_mve(sums[k], d);
    }
    const int16x8_t lo = vmovntq_s32(vmovnbq_s32(zero16, sums[0]), sums[1]);
    const int16x8_t hi = vmovntq_s32(vmovnbq_s32(zero16, sums[2]), sums[3]);
    if (tail) {
        vstrbq_p_s16(out + c, lo, p_lo);
        vstrbq_p_s16(out + c + 8, hi, p_hi);
    } else {
        vstrbq_s16(out + c, lo);
        vstrbq_s16(out + c + 8, hi);
    }
}

static void em_nn_avg_pixel_mve(const em_nn_avg_pixel *px, int8_t *out)
{
    const int8_t *in = px->in;
    const int32_t row_stride = px->row_stride, channels = px->channels, rows = px->rows, cols = px->cols;
    const int32_t bias = px->bias;
    em_nn_avg_div d;
    d.count = px->count;
    d.m = 0xFFFFFFFFu / px->count;
    d.out_bias = px->out_bias;
    d.lo = vdupq_n_s32(px->act_min);
    d.hi = vdupq_n_s32(px->act_max);
    int32_t c = 0;
    /* a variant left out of the build (em_nn_variants.h) is never taken: em_nn_avg_mve_linked() */
    for (; EM_NN_VARIANT_AVG_MVE_FULL && c + 16 <= channels; c += 16) {
        em_nn_avg_group_mve(in, row_stride, channels, rows, cols, bias, &d, c, false, out);
    }
    if (EM_NN_VARIANT_AVG_MVE_TAIL && c < channels) {
        em_nn_avg_group_mve(in, row_stride, channels, rows, cols, bias, &d, c, true, out);
    }
}

/** Whether this build holds the groups em_nn_avg_pixel_mve() takes: full groups of 16 channels,
 *  the last partial group, and windows over 256 cells (a pixel's window has at most
 *  min(kernel_h, input_h) x min(kernel_w, input_w) cells). */
static bool em_nn_avg_mve_linked(const em_pool_params *p, const em_pool_dims *d)
{
    const int32_t rows = p->kernel_h < d->input_h ? p->kernel_h : d->input_h;
    const int32_t cols = p->kernel_w < d->input_w ? p->kernel_w : d->input_w;
    return (d->channels < 16 || EM_NN_VARIANT_AVG_MVE_FULL) && (d->channels % 16 == 0 || EM_NN_VARIANT_AVG_MVE_TAIL)
           && ((int64_t)rows * cols <= 256 || EM_NN_VARIANT_AVG_MVE_LARGE);
}

#else /* scalar and DSP */

/** round_half_even((u − 256·count) / count) + zp, clamped, from u = Σ_real x + px->bias
 *  (count <= u < 512·count: see the file comment). */
static inline int8_t em_nn_avg_out(int32_t sum, const em_nn_avg_pixel *px)
{
    const uint32_t u = (uint32_t)sum;
    const uint32_t q = u / px->count;
    const uint32_t r = u - q * px->count;
    const uint32_t up = 2u * r + (q & 1u) > px->count ? 1u : 0u;
    const int32_t v = (int32_t)(q + up) + px->out_bias;
    return (int8_t)(v < px->act_min ? px->act_min : (v > px->act_max ? px->act_max : v));
}

static void em_nn_avg_pixel_scalar(const em_nn_avg_pixel *px, int8_t *out)
{
    for (int32_t c = 0; c < px->channels; c++) {
        int32_t sum = px->bias;
        const int8_t *row = px->in + c;
        for (int32_t r = 0; r < px->rows; r++, row += px->row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < px->cols; k++, cell += px->channels) {
                sum += *cell;
            }
        }
        out[c] = em_nn_avg_out(sum, px);
    }
}

#if EM_NN_TIER_DSP
/** One output pixel, four channels per word: SXTAB16 adds the bytes (c, c+2) and, rotated by 8,
 *  (c+1, c+3) into int16 halves; <= 256 cells keep each half exact (256·(−128) = −32768), so
 *  larger windows take the scalar path. The division is the scalar path's. */
static void em_nn_avg_pixel_dsp(const em_nn_avg_pixel *px, int8_t *out)
{
    if (px->rows * px->cols > 256) {
        em_nn_avg_pixel_scalar(px, out);
        return;
    }
    const int32_t channels = px->channels, rows = px->rows, cols = px->cols, row_stride = px->row_stride;
    int32_t c = 0;
    for (; c + 4 <= channels; c += 4) {
        uint32_t h02 = 0, h13 = 0;
        const int8_t *row = px->in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                const uint32_t v = em_nn_read_s8x4(cell);
                h02 = (uint32_t)__sxtab16((int32_t)h02, (int32_t)v);
                h13 = (uint32_t)__sxtab16((int32_t)h13, (int32_t)((v >> 8) | (v << 24)));
            }
        }
        out[c] = em_nn_avg_out((int16_t)h02 + px->bias, px);
        out[c + 1] = em_nn_avg_out((int16_t)h13 + px->bias, px);
        out[c + 2] = em_nn_avg_out((int16_t)(h02 >> 16) + px->bias, px);
        out[c + 3] = em_nn_avg_out((int16_t)(h13 >> 16) + px->bias, px);
    }
    for (; c < channels; c++) { /* 1..3 channels left */
        int32_t sum = px->bias;
        const int8_t *row = px->in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            for (int32_t k = 0; k < cols; k++) {
                sum += row[k * channels];
            }
        }
        out[c] = em_nn_avg_out(sum, px);
    }
}
#endif

#endif

em_status em_avg_pool_s8(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                         int8_t *output)
{
    if (em_avg_pool_s8_validate(params, dims) != EM_OK || input == NULL || output == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
#if EM_NN_TIER_MVE
    if (!(EM_NN_VARIANT_AVG_MVE_FULL && EM_NN_VARIANT_AVG_MVE_TAIL && EM_NN_VARIANT_AVG_MVE_LARGE)
        && !em_nn_avg_mve_linked(params, dims)) {
        return EM_ERR_VARIANT_NOT_LINKED; /* the compiler's kernel_variants.py chose otherwise */
    }
#endif
    /* Locals, not pointers: every int8 store may alias *params / *dims, forcing re-reads. */
    const em_pool_params p = *params;
    const em_pool_dims d = *dims;
    const int32_t height = d.input_h, width = d.input_w, channels = d.channels;
    const int32_t area = p.kernel_h * p.kernel_w;
    em_nn_avg_pixel px;
    px.row_stride = width * channels;
    px.channels = channels;
    px.out_bias = p.zero_point - 256;
    px.act_min = p.activation_min;
    px.act_max = p.activation_max;
    int8_t *out = output;
    for (int32_t n = 0; n < d.batches; n++) {
        const int8_t *image = input + n * height * px.row_stride;
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            const int32_t y0 = oy * p.stride_h - p.pad_top;
            const int32_t y_lo = y0 > 0 ? y0 : 0;
            const int32_t y_hi = y0 + p.kernel_h < height ? y0 + p.kernel_h : height;
            px.rows = y_hi - y_lo;
            for (int32_t ox = 0; ox < d.output_w; ox++, out += channels) {
                const int32_t x0 = ox * p.stride_w - p.pad_left;
                const int32_t x_lo = x0 > 0 ? x0 : 0;
                const int32_t x_hi = x0 + p.kernel_w < width ? x0 + p.kernel_w : width;
                px.cols = x_hi - x_lo;
                const int32_t real = px.rows * px.cols; /* >= 1: em_pool_s8_validate() */
                px.count = (uint32_t)(p.count_include_pad ? area : real);
                px.bias = 256 * (int32_t)px.count - real * p.zero_point;
                px.in = image + y_lo * px.row_stride + x_lo * channels;
#if EM_NN_TIER_MVE
                em_nn_avg_pixel_mve(&px, out);
#elif EM_NN_TIER_DSP
                em_nn_avg_pixel_dsp(&px, out);
#else
                em_nn_avg_pixel_scalar(&px, out);
#endif
            }
        }
    }
    return EM_OK;
}
