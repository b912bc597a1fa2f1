/**
 * @file em_avg_pool_s16.c
 * @brief int16 (A16W8) 2-D average pooling, NHWC, exactly compiler/reference.py:avg_pool_s16
 *        (avg_pool_s8 on int16 codes, zero point 0). Scalar, DSP (channel pairs) and Helium
 *        (MVE) paths behind em_nn_tier.h; the walk and the exact division are em_nn_pool.h's, as
 *        for int8 (em_avg_pool_s8.c, whose file comment proves the division).
 *
 * Sums in int32: with zero point 0, |x| <= 32768 and at most EM_AVG_POOL_S16_MAX_CELLS = 2^15
 * cells, u = Σ_real x + 32768·count lies in 0 .. 65536·count − 1 < 2^31, and
 * floor(u / count) − 32768 = floor(total / count) with the same remainder, so the int8 kernel's
 * rounding (em_nn_avg_round, B = 32768) gives round_half_even(total / count) exactly.
 * MVE: four channels per step in int32 lanes (widening VLDRH.S32 loads: the sums need 32 bits,
 * so 8 int16 lanes would split into these again), the last 1..3 channels predicated.
 * DSP: two channels a word (any alignment: Armv7E-M / Armv8-M.main load words unaligned), each
 * half added into an int32 sum of its own (SXTAH for the low half, ADD with ASR #16 for the high:
 * the sums need 32 bits, so no halfword SIMD add holds them); an odd last channel alone.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_pool.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

/** One output pixel's geometry and constants (em_avg_pool_s8.c's em_nn_avg_pixel on int16). */
typedef struct {
    const int16_t *in;  /**< channel 0 of the window's first real cell */
    int32_t row_stride; /**< elements between input rows (W·C) */
    int32_t channels;   /**< C, also the elements between cells of a row */
    int32_t rows, cols; /**< real cells: rows x cols, both >= 1 */
    uint32_t count;     /**< divisor, 1..EM_AVG_POOL_S16_MAX_CELLS */
    int32_t bias;       /**< 32768·count: u = Σ_real x + bias (zero point 0) */
    int32_t act_min, act_max;
} em_nn_avg_pixel_s16;

#define EM_NN_AVG_S16_OUT_BIAS (-32768) /* zp − 32768 */

#if EM_NN_TIER_MVE

/* Out of line, as the int8 pixel: inlined into the walk, GCC (-Os) kept the loop counter on the stack. */
static __attribute__((noinline)) void em_nn_avg_pixel_s16_mve(const em_nn_avg_pixel_s16 *px, int16_t *out)
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
        const int16_t *row = px->in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int16_t *cell = row;
            if (c + 4 <= channels) { /* unpredicated: GCC re-sets VPR in every pass of a predicated loop */
                for (int32_t k = 0; k < cols; k++, cell += channels) {
                    sum = vaddq_s32(sum, vldrhq_s32(cell));
                }
            } else {
                for (int32_t k = 0; k < cols; k++, cell += channels) {
                    sum = vaddq_s32(sum, vldrhq_z_s32(cell, p));
                }
            }
        }
        vstrhq_p_s32(out + c, em_nn_avg_round_mve(sum, count, m, EM_NN_AVG_S16_OUT_BIAS, px->act_min, px->act_max),
                     p);
    }
}

#else /* scalar and DSP */

/** Channel @p c of one pixel, rounded and clamped (the scalar path; the DSP path's odd channel). */
static inline int16_t em_nn_avg_channel_s16(const em_nn_avg_pixel_s16 *px, int32_t c)
{
    int32_t sum = px->bias;
    const int16_t *row = px->in + c;
    for (int32_t r = 0; r < px->rows; r++, row += px->row_stride) {
        const int16_t *cell = row;
        for (int32_t k = 0; k < px->cols; k++, cell += px->channels) {
            sum += *cell;
        }
    }
    return (int16_t)em_nn_avg_round((uint32_t)sum, px->count, EM_NN_AVG_S16_OUT_BIAS, px->act_min, px->act_max);
}

#if EM_NN_TIER_DSP
static void em_nn_avg_pixel_s16_dsp(const em_nn_avg_pixel_s16 *px, int16_t *out)
{
    const int32_t channels = px->channels, rows = px->rows, cols = px->cols, row_stride = px->row_stride;
    int32_t c = 0;
    for (; c + 2 <= channels; c += 2) {
        int32_t low = px->bias, high = px->bias;
        const int16_t *row = px->in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int16_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                int32_t v;
                __builtin_memcpy(&v, cell, sizeof v); /* one LDR: channels c (low half), c + 1 */
                low += (int16_t)v;                    /* SXTAH */
                high += v >> 16;                      /* ADD, ASR #16 */
            }
        }
        out[c] = (int16_t)em_nn_avg_round((uint32_t)low, px->count, EM_NN_AVG_S16_OUT_BIAS, px->act_min, px->act_max);
        out[c + 1] =
            (int16_t)em_nn_avg_round((uint32_t)high, px->count, EM_NN_AVG_S16_OUT_BIAS, px->act_min, px->act_max);
    }
    if (c < channels) { /* an odd last channel */
        out[c] = em_nn_avg_channel_s16(px, c);
    }
}
#else
static void em_nn_avg_pixel_s16_scalar(const em_nn_avg_pixel_s16 *px, int16_t *out)
{
    for (int32_t c = 0; c < px->channels; c++) {
        out[c] = em_nn_avg_channel_s16(px, c);
    }
}
#endif

#endif

/** What every pixel of one call shares. */
typedef struct {
    em_nn_avg_pixel_s16 px;
    const int16_t *input;
    int16_t *output;
    int32_t area, count_include_pad;
} em_nn_avg_pool_s16_call;

static inline __attribute__((always_inline)) void em_nn_avg_pool_s16_pixel(void *ctx, const em_nn_pool_window *w,
                                                                           int32_t out)
{
    em_nn_avg_pool_s16_call *c = (em_nn_avg_pool_s16_call *)ctx;
    em_nn_avg_pixel_s16 *px = &c->px;
    px->rows = w->rows;
    px->cols = w->cols;
    px->count = (uint32_t)(c->count_include_pad ? c->area : w->rows * w->cols);
    px->bias = 32768 * (int32_t)px->count; /* <= 2^30 */
    px->in = c->input + w->first;
#if EM_NN_TIER_MVE
    em_nn_avg_pixel_s16_mve(px, c->output + out);
#elif EM_NN_TIER_DSP
    em_nn_avg_pixel_s16_dsp(px, c->output + out);
#else
    em_nn_avg_pixel_s16_scalar(px, c->output + out);
#endif
}

em_nn_status em_avg_pool_s16_trusted(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                                     int16_t *output)
{
    em_nn_avg_pool_s16_call call;
    call.px.row_stride = dims->input_w * dims->channels;
    call.px.channels = dims->channels;
    call.px.act_min = params->activation_min;
    call.px.act_max = params->activation_max;
    call.input = input;
    call.output = output;
    call.area = params->kernel_h * params->kernel_w;
    call.count_include_pad = params->count_include_pad;
    em_nn_pool_walk(params, dims, em_nn_avg_pool_s16_pixel, &call);
    return EM_NN_OK;
}
