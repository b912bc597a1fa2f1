/**
 * @file em_max_pool_s8.c
 * @brief int8 2-D max pooling, NHWC. Scalar, DSP (SSUB8 / SEL on four channels) and Helium (MVE)
 *        paths behind em_nn_tier.h.
 *
 * Each window is first clipped to the input (padding never wins: padded cells are simply not
 * visited), so both paths take the max over exactly the real cells that
 * compiler/reference.py:max_pool_s8 masks in, then clamp. The max of int8 values is exact on
 * every path, so they match the reference byte for byte.
 * MVE: 16 channels per vector, VMAX over the window's cells in registers; a tail of < 16
 * channels uses predicated (zeroing) loads and a predicated store, never touching bytes past the
 * pixel's channels.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_pool.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#if EM_NN_TIER_MVE

/** One output pixel: @p in points at channel 0 of the window's first real cell; @p rows x
 *  @p cols real cells, @p row_stride bytes between rows, @p channels bytes between cells. */
static void em_nn_max_pixel_mve(const int8_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                int32_t cols, int8_t act_min, int8_t act_max, int8_t *out)
{
    const int8x16_t lo = vdupq_n_s8(act_min);
    const int8x16_t hi = vdupq_n_s8(act_max);
    int32_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        int8x16_t m = lo; /* the clamp's lower bound is the max's identity here */
        const int8_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                m = vmaxq_s8(m, vld1q_s8(cell));
            }
        }
        vst1q_s8(out + c, vminq_s8(m, hi));
    }
    if (c < channels) {
        const mve_pred16_t p = vctp8q((uint32_t)(channels - c));
        int8x16_t m = lo;
        const int8_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                m = vmaxq_s8(m, vldrbq_z_s8(cell, p)); /* inactive lanes: 0, never stored */
            }
        }
        vstrbq_p_s8(out + c, vminq_s8(m, hi), p);
    }
}

#elif !EM_NN_TIER_DSP /* scalar */

static void em_nn_max_pixel_scalar(const int8_t *in, int32_t row_stride, int32_t channels,
                                   int32_t rows, int32_t cols, int8_t act_min, int8_t act_max,
                                   int8_t *out)
{
    for (int32_t c = 0; c < channels; c++) {
        int8_t m = act_min; /* max(act_min, max of cells) == clamp below of the max */
        const int8_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                m = *cell > m ? *cell : m;
            }
        }
        out[c] = m < act_max ? m : act_max;
    }
}

#else
/** One output pixel, four channels per word: SSUB8 sets a GE flag per byte where the cell is
 *  >= the running max and SEL takes those bytes (a per-byte signed max); the clamp is the
 *  same pair against act_max. Channels past the last full word one by one. */
static void em_nn_max_pixel_dsp(const int8_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                int32_t cols, int8_t act_min, int8_t act_max, int8_t *out)
{
    const uint32_t lo = 0x01010101u * (uint8_t)act_min, hi = 0x01010101u * (uint8_t)act_max;
    int32_t c = 0;
    for (; c + 4 <= channels; c += 4) {
        uint32_t m = lo;
        const int8_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int8_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                const uint32_t v = em_nn_read_s8x4(cell);
                (void)__ssub8((int8x4_t)v, (int8x4_t)m);
                m = (uint32_t)__sel((uint8x4_t)v, (uint8x4_t)m);
            }
        }
        (void)__ssub8((int8x4_t)m, (int8x4_t)hi);
        m = (uint32_t)__sel((uint8x4_t)hi, (uint8x4_t)m); /* min(m, act_max) */
        __builtin_memcpy(out + c, &m, sizeof m);
    }
    for (; c < channels; c++) { /* 1..3 channels left */
        int8_t m = act_min;
        const int8_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            for (int32_t k = 0; k < cols; k++) {
                m = row[k * channels] > m ? row[k * channels] : m;
            }
        }
        out[c] = m < act_max ? m : act_max;
    }
}

#endif

/** What every pixel of one call shares. */
typedef struct {
    const int8_t *input;
    int8_t *output;
    int32_t row_stride, channels;
    int8_t act_min, act_max;
} em_nn_max_pool_s8_call;

static inline __attribute__((always_inline)) void em_nn_max_pool_s8_pixel(void *ctx, const em_nn_pool_window *w,
                                                                          int32_t out)
{
    const em_nn_max_pool_s8_call *c = (const em_nn_max_pool_s8_call *)ctx;
#if EM_NN_TIER_MVE
    em_nn_max_pixel_mve(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min, c->act_max,
                        c->output + out);
#elif EM_NN_TIER_DSP
    em_nn_max_pixel_dsp(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min, c->act_max,
                        c->output + out);
#else
    em_nn_max_pixel_scalar(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min,
                           c->act_max, c->output + out);
#endif
}

em_nn_status em_max_pool_s8_trusted(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                                    int8_t *output)
{
    em_nn_max_pool_s8_call call = {input, output, dims->input_w * dims->channels, dims->channels,
                                   (int8_t)params->activation_min, (int8_t)params->activation_max};
    em_nn_pool_walk(params, dims, em_nn_max_pool_s8_pixel, &call);
    return EM_NN_OK;
}
