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
 * MVE accumulation: four channels per step in int32 lanes (widening VLDRB.S32 loads), the last
 * 1..3 channels predicated. One path for every window and channel count: the pools of the
 * MLPerf models are their last layers, where a 16-lane form's flash did not pay (measured on
 * corstone300: DS-CNN's 25x5x64 global pool 5,811 -> 9,855 instructions at -O2, +0.3 % of the
 * network, for 136 bytes less at -Os and the three AVG_MVE_* variants gone).
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_pool.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

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

/** Exact round_half_even((u − 256·count) / count) + zp of four sums, clamped (see the file
 *  comment; @p m = floor((2^32 − 1) / count)). @p count is px->count, passed from the caller's
 *  register: read through @p px it would be reloaded for every four channels. */
static inline int32x4_t em_nn_avg_divide_mve(int32x4_t sum, uint32_t count, uint32_t m, const em_nn_avg_pixel *px)
{
    return em_nn_avg_round_mve(sum, count, m, px->out_bias, px->act_min, px->act_max);
}

/** One output pixel, four channels per step in int32 lanes: widening loads (VLDRB.S32) add
 *  each cell, predicated (VCTP) for the last 1..3 channels so that no byte past the pixel's
 *  channels is touched; int32 sums take any window (|u| < 2^31, see the file comment). */
/* Out of line: inlined into the pixel walk, GCC (-Os) kept the loop counter on the stack. */
static __attribute__((noinline)) void em_nn_avg_pixel_mve(const em_nn_avg_pixel *px, int8_t *out)
{
    const int32_t channels = px->channels, row_stride = px->row_stride;
    int32_t rows = px->rows, cols = px->cols;
    if (cols * channels == row_stride) { /* whole input rows (a global pool): one run of cells */
        cols *= rows;
        rows = 1;
    }
    const uint32_t count = px->count, m = 0xFFFFFFFFu / count;
    for (int32_t c = 0; c < channels; c += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
        int32x4_t sum = vdupq_n_s32(px->bias);
        const int8_t *row = px->in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            if (c + 4 <= channels) { /* unpredicated: GCC re-sets VPR in every pass of a predicated loop */
                for (int32_t k = 0; k < cols; k++, cell += channels) {
                    sum = vaddq_s32(sum, vldrbq_s32(cell));
                }
            } else {
                for (int32_t k = 0; k < cols; k++, cell += channels) {
                    sum = vaddq_s32(sum, vldrbq_z_s32(cell, p));
                }
            }
        }
        vstrbq_p_s32(out + c, em_nn_avg_divide_mve(sum, count, m, px), p);
    }
}

#else /* scalar and DSP */

/** round_half_even((u − 256·count) / count) + zp, clamped, from u = Σ_real x + px->bias
 *  (count <= u < 512·count: see the file comment). */
static inline int8_t em_nn_avg_out(int32_t sum, const em_nn_avg_pixel *px)
{
    return (int8_t)em_nn_avg_round((uint32_t)sum, px->count, px->out_bias, px->act_min, px->act_max);
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

/** What every pixel of one call shares: the pixel's constants, the operands, the area. */
typedef struct {
    em_nn_avg_pixel px;
    const int8_t *input;
    int8_t *output;
    int32_t area, count_include_pad, zero_point;
} em_nn_avg_pool_s8_call;

static inline __attribute__((always_inline)) void em_nn_avg_pool_s8_pixel(void *ctx, const em_nn_pool_window *w,
                                                                          int32_t out)
{
    em_nn_avg_pool_s8_call *c = (em_nn_avg_pool_s8_call *)ctx;
    em_nn_avg_pixel *px = &c->px;
    px->rows = w->rows;
    px->cols = w->cols;
    const int32_t real = w->rows * w->cols; /* >= 1: em_pool_s8_validate() */
    px->count = (uint32_t)(c->count_include_pad ? c->area : real);
    px->bias = 256 * (int32_t)px->count - real * c->zero_point;
    px->in = c->input + w->first;
#if EM_NN_TIER_MVE
    em_nn_avg_pixel_mve(px, c->output + out);
#elif EM_NN_TIER_DSP
    em_nn_avg_pixel_dsp(px, c->output + out);
#else
    em_nn_avg_pixel_scalar(px, c->output + out);
#endif
}

em_nn_status em_avg_pool_s8_trusted(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                                    int8_t *output)
{
    em_nn_avg_pool_s8_call call;
    call.px.row_stride = dims->input_w * dims->channels;
    call.px.channels = dims->channels;
    call.px.out_bias = params->zero_point - 256;
    call.px.act_min = params->activation_min;
    call.px.act_max = params->activation_max;
    call.input = input;
    call.output = output;
    call.area = params->kernel_h * params->kernel_w;
    call.count_include_pad = params->count_include_pad;
    call.zero_point = params->zero_point;
    em_nn_pool_walk(params, dims, em_nn_avg_pool_s8_pixel, &call);
    return EM_NN_OK;
}
