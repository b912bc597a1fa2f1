/**
 * @file em_max_pool_s16.c
 * @brief int16 (A16W8) 2-D max pooling, NHWC, exactly compiler/reference.py:max_pool_s16 (max_pool_s8
 *        on int16 codes). Scalar, DSP (SSUB16 / SEL on channel pairs) and Helium (MVE: 8 int16
 *        lanes) paths behind em_nn_tier.h; the walk over clipped windows is em_nn_pool.h's, as for
 *        int8 (em_max_pool_s8.c), so padding never wins and the max over exactly the real cells is
 *        clamped. A max of int16 values is exact on every path.
 * MVE: 8 channels per vector, VMAX over the window's cells; a tail of < 8 channels uses
 * predicated (zeroing) loads and a predicated store (VCTP16), never touching bytes past the
 * pixel's channels.
 * DSP: a word holds two channels (any alignment of the pixel: Armv7E-M / Armv8-M.main load words
 * unaligned); SSUB16 sets the GE flags of each halfword where the cell is >= the running max and
 * SEL takes those halfwords. An odd last channel alone.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_pool.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE

static void em_nn_max_pixel_s16_mve(const int16_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                    int32_t cols, int16_t act_min, int16_t act_max, int16_t *out)
{
    const int16x8_t lo = vdupq_n_s16(act_min);
    const int16x8_t hi = vdupq_n_s16(act_max);
    int32_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        int16x8_t m = lo; /* the clamp's lower bound is the max's identity here */
        const int16_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int16_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                m = vmaxq_s16(m, vld1q_s16(cell));
            }
        }
        vst1q_s16(out + c, vminq_s16(m, hi));
    }
    if (c < channels) {
        const mve_pred16_t p = vctp16q((uint32_t)(channels - c));
        int16x8_t m = lo;
        const int16_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int16_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                m = vmaxq_s16(m, vldrhq_z_s16(cell, p)); /* inactive lanes: 0, never stored */
            }
        }
        vstrhq_p_s16(out + c, vminq_s16(m, hi), p);
    }
}

#else /* scalar and DSP */

/** Channel @p c of one pixel (the scalar path, and the DSP path's odd last channel). */
static inline int16_t em_nn_max_channel_s16(const int16_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                            int32_t cols, int16_t act_min, int16_t act_max)
{
    int16_t m = act_min; /* max(act_min, max of cells) == clamp below of the max */
    const int16_t *row = in;
    for (int32_t r = 0; r < rows; r++, row += row_stride) {
        const int16_t *cell = row;
        for (int32_t k = 0; k < cols; k++, cell += channels) {
            m = *cell > m ? *cell : m;
        }
    }
    return m < act_max ? m : act_max;
}

#if EM_NN_TIER_DSP
static void em_nn_max_pixel_s16_dsp(const int16_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                    int32_t cols, int16_t act_min, int16_t act_max, int16_t *out)
{
    const uint32_t lo = 0x00010001u * (uint16_t)act_min, hi = 0x00010001u * (uint16_t)act_max;
    int32_t c = 0;
    for (; c + 2 <= channels; c += 2) {
        uint32_t m = lo;
        const int16_t *row = in + c;
        for (int32_t r = 0; r < rows; r++, row += row_stride) {
            const int16_t *cell = row;
            for (int32_t k = 0; k < cols; k++, cell += channels) {
                const uint32_t v = em_nn_read_s16x2(cell);
                (void)__ssub16((int16x2_t)v, (int16x2_t)m);
                m = (uint32_t)__sel((uint8x4_t)v, (uint8x4_t)m);
            }
        }
        (void)__ssub16((int16x2_t)m, (int16x2_t)hi);
        m = (uint32_t)__sel((uint8x4_t)hi, (uint8x4_t)m); /* min(m, act_max) */
        __builtin_memcpy(out + c, &m, sizeof m);
    }
    if (c < channels) { /* an odd last channel */
        out[c] = em_nn_max_channel_s16(in + c, row_stride, channels, rows, cols, act_min, act_max);
    }
}
#else
static void em_nn_max_pixel_s16_scalar(const int16_t *in, int32_t row_stride, int32_t channels, int32_t rows,
                                       int32_t cols, int16_t act_min, int16_t act_max, int16_t *out)
{
    for (int32_t c = 0; c < channels; c++) {
        out[c] = em_nn_max_channel_s16(in + c, row_stride, channels, rows, cols, act_min, act_max);
    }
}
#endif

#endif

/** What every pixel of one call shares. */
typedef struct {
    const int16_t *input;
    int16_t *output;
    int32_t row_stride, channels;
    int16_t act_min, act_max;
} em_nn_max_pool_s16_call;

static inline __attribute__((always_inline)) void em_nn_max_pool_s16_pixel(void *ctx, const em_nn_pool_window *w,
                                                                           int32_t out)
{
    const em_nn_max_pool_s16_call *c = (const em_nn_max_pool_s16_call *)ctx;
#if EM_NN_TIER_MVE
    em_nn_max_pixel_s16_mve(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min,
                            c->act_max, c->output + out);
#elif EM_NN_TIER_DSP
    em_nn_max_pixel_s16_dsp(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min,
                            c->act_max, c->output + out);
#else
    em_nn_max_pixel_s16_scalar(c->input + w->first, c->row_stride, c->channels, w->rows, w->cols, c->act_min,
                               c->act_max, c->output + out);
#endif
}

em_nn_status em_max_pool_s16_trusted(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                                     int16_t *output)
{
    em_nn_max_pool_s16_call call = {input, output, dims->input_w * dims->channels, dims->channels,
                                    (int16_t)params->activation_min, (int16_t)params->activation_max};
    em_nn_pool_walk(params, dims, em_nn_max_pool_s16_pixel, &call);
    return EM_NN_OK;
}
