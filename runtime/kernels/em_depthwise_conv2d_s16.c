/**
 * @file em_depthwise_conv2d_s16.c
 * @brief int16-activation (A16W8) depthwise 2-D convolution, NHWC, TFLite weight layout:
 *        em_depthwise_conv2d_s16() and its unchecked body. Scalar and DSP share plain C; Helium
 *        has a path of its own for depth multiplier 1, behind em_nn_tier.h.
 *
 * Output channel o = c·M + m reads input channel c only. Each output pixel's window is clipped
 * to the input once (padded cells hold 0: they add nothing). A sum has at most KH·KW products:
 * - Helium, M = 1 and KH·KW <= EM_NN_S16_SUM32_MAX_TERMS, where em_nn_s16_sum32() holds (bias
 *   and sums exact in int32, shifts >= -17): eight channels a step, VMULLB / VMULLT.S16 into
 *   the even and odd channels' 32-bit sums, each block of 8 over the whole image
 *   (em_nn_dw_s16_image8_mve()); the channels left (C % 8), and every channel where it does not
 *   hold, four channels a vector, each tap one widening load of 4 int16 inputs (VLDRH.S32),
 *   one of 4 int8 weights (VLDRB.S32), VMUL.I32 and VADD.I32 (MVE has no vector-by-vector
 *   integer multiply-accumulate) into 32-bit lanes, exact since |x·w| <= 2^22 and at most 511
 *   terms; a last vector of 1..3 channels is predicated. The bias is added and the lanes requantized in the vector where
 *   em_nn_s16_sum32() holds for the layer (em_nn_s16.h), else each lane in 64 bits.
 * - every other layer and tier: one output channel at a time, an int32 sum over the taps where
 *   KH·KW <= EM_NN_S16_SUM32_MAX_TERMS (exact), else int64; bias and requantization in int64.
 *
 * Built only where the program's firmware links it (EM_NN_S16_LINKED(DEPTHWISE_CONV2D)), as
 * em_conv2d_s16.c.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_s16.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/** The window of one output pixel clipped to the input: taps ky0..ky1-1, kx0..kx1-1. */
typedef struct {
    int32_t y0, x0;   /**< the window's top left cell (may be outside) */
    int32_t ky0, ky1; /**< taps inside along h */
    int32_t kx0, kx1; /**< taps inside along w */
} em_nn_s16_window;

/** First tap k >= 0 with start + k·dilation >= 0, and one past the last with it < size (k0 = k1
 *  when none is inside). Closed form: it runs at every output pixel (Helium: at every pixel of
 *  each 8-channel block). */
static inline void em_nn_s16_clip(int32_t start, int32_t dilation, int32_t kernel, int32_t size, int32_t *k0,
                                  int32_t *k1)
{
    int32_t a = start >= 0 ? 0 : (dilation - 1 - start) / dilation;
    int32_t b = size - start <= 0 ? 0 : (size - start + dilation - 1) / dilation;
    a = a < kernel ? a : kernel;
    b = b < kernel ? b : kernel;
    *k0 = a;
    *k1 = b > a ? b : a;
}

/** Output channels o..o+count-1 of one pixel, one at a time (every tier; any M and kernel). */
static void em_nn_dw_s16_channels(const em_conv_params *p, const em_conv_dims *d, const em_per_channel_quant *quant,
                                  const em_nn_s16_window *win, const int16_t *image, const int8_t *weights,
                                  const int32_t *bias, int32_t o, int32_t count, int16_t *out)
{
    /* the parameters in locals, the taps walked by pointer steps (out's stores may alias the structs) */
    const int32_t c_in = d->input_c, c_out = d->output_c, m = p->depth_multiplier;
    const int32_t rows = win->ky1 - win->ky0, cols = win->kx1 - win->kx0;
    const int32_t x_row_step = p->dilation_h * d->input_w * c_in, x_tap_step = p->dilation_w * c_in;
    const int32_t w_row_step = d->kernel_w * c_out;
    const int32_t act_min = p->activation_min, act_max = p->activation_max;
    const int16_t *first = image + ((win->y0 + win->ky0 * p->dilation_h) * d->input_w + win->x0
                                    + win->kx0 * p->dilation_w) * c_in;
    const int8_t *w_first = weights + (win->ky0 * d->kernel_w + win->kx0) * c_out;
    const bool sum32 = (int64_t)d->kernel_h * d->kernel_w <= EM_NN_S16_SUM32_MAX_TERMS;
    for (int32_t end = o + count; o < end; o++) {
        const int16_t *x_row = first + o / m;
        const int8_t *w_row = w_first + o;
        int64_t acc = bias != NULL ? bias[o] : 0;
        if (sum32) {
            int32_t acc32 = 0; /* exact: at most 511 products of at most 2^22 */
            for (int32_t r = 0; r < rows; r++, x_row += x_row_step, w_row += w_row_step) {
                const int16_t *x = x_row;
                const int8_t *w = w_row;
                for (int32_t t = 0; t < cols; t++, x += x_tap_step, w += c_out) {
                    acc32 += *x * *w;
                }
            }
            acc += acc32;
        } else {
            for (int32_t r = 0; r < rows; r++, x_row += x_row_step, w_row += w_row_step) {
                const int16_t *x = x_row;
                const int8_t *w = w_row;
                for (int32_t t = 0; t < cols; t++, x += x_tap_step, w += c_out) {
                    acc += *x * *w;
                }
            }
        }
        out[o] = em_nn_requantize_s64_s16(acc, em_nn_s16_reduced_multiplier(quant->multiplier[o]), quant->shift[o],
                                          act_min, act_max);
    }
}

#if EM_NN_TIER_MVE

/**
 * One image of a layer whose sums are exact in int32 (the layer's em_nn_s16_sum32()), eight
 * channels a step, each block of eight over every output pixel: its bias and requantization
 * constants (even and odd channels, gathered) computed once, not at every pixel. Each tap one
 * load of 8 int16 inputs, one of 8 int8 weights widened (VLDRB.S16), VMULLB.S16 / VMULLT.S16
 * into the products of the even and of the odd channels (32-bit) and two VADD.I32: 6
 * instructions per 8 MACs; the even and odd sums requantized apart and narrowed back into one
 * vector of 8 (VMOVNB / VMOVNT). Returns the first channel left (C % 8 of them).
 */
static EM_NN_S16_NOINLINE int32_t em_nn_dw_s16_image8_mve(const em_conv_params *p, const em_conv_dims *d,
                                                          const em_per_channel_quant *quant, const int16_t *image,
                                                          const int8_t *weights, const int32_t *bias, int16_t *output)
{
    /* every parameter in a local: the vector stores may alias the structs (GCC reloads them) */
    const int32_t c = d->input_c, in_h = d->input_h, in_w = d->input_w, kh = d->kernel_h, kw = d->kernel_w;
    const int32_t out_h = d->output_h, out_w = d->output_w;
    const int32_t sh = p->stride_h, sw = p->stride_w, dh = p->dilation_h, dw = p->dilation_w;
    const int32_t top = p->pad_top, left = p->pad_left;
    const int32_t row_step = dh * in_w * c, tap_step = dw * c, w_row = kw * c;
    const uint32x4_t even = vidupq_n_u32(0, 2), odd = vidupq_n_u32(1, 2);
    const int32x4_t lo = vdupq_n_s32(p->activation_min), hi = vdupq_n_s32(p->activation_max);
    int32_t ch = 0;
    for (; ch + 8 <= c; ch += 8) {
        const em_nn_s16_requant4 q_even = em_nn_s16_requant4_of(
            vldrwq_gather_shifted_offset_s32(quant->multiplier + ch, even),
            vldrwq_gather_shifted_offset_s32(quant->shift + ch, even));
        const em_nn_s16_requant4 q_odd = em_nn_s16_requant4_of(
            vldrwq_gather_shifted_offset_s32(quant->multiplier + ch, odd),
            vldrwq_gather_shifted_offset_s32(quant->shift + ch, odd));
        const int32x4_t b_even = bias != NULL ? vldrwq_gather_shifted_offset_s32(bias + ch, even) : vdupq_n_s32(0);
        const int32x4_t b_odd = bias != NULL ? vldrwq_gather_shifted_offset_s32(bias + ch, odd) : vdupq_n_s32(0);
        int16_t *out = output + ch;
        for (int32_t oy = 0; oy < out_h; oy++) {
            int32_t ky0, ky1;
            const int32_t y0 = oy * sh - top;
            em_nn_s16_clip(y0, dh, kh, in_h, &ky0, &ky1);
            const int32_t rows = ky1 - ky0;
            const int16_t *image_row = image + (y0 + ky0 * dh) * in_w * c + ch;
            const int8_t *w_first = weights + ky0 * kw * c + ch;
            for (int32_t ox = 0; ox < out_w; ox++, out += c) {
                int32_t kx0, kx1;
                const int32_t x0 = ox * sw - left;
                em_nn_s16_clip(x0, dw, kw, in_w, &kx0, &kx1);
                const int32_t cols = kx1 - kx0;
                const int16_t *x_row = image_row + (x0 + kx0 * dw) * c;
                const int8_t *w_row_p = w_first + kx0 * c;
                int32x4_t acc_even = b_even, acc_odd = b_odd; /* exact: the layer's em_nn_s16_sum32() */
                for (int32_t r = 0; r < rows; r++, x_row += row_step, w_row_p += w_row) {
                    const int16_t *x = x_row;
                    const int8_t *w = w_row_p;
                    for (int32_t t = 0; t < cols; t++, x += tap_step, w += c) {
                        const int16x8_t xv = vldrhq_s16(x), wv = vldrbq_s16(w);
                        acc_even = vaddq_s32(acc_even, vmullbq_int_s16(xv, wv));
                        acc_odd = vaddq_s32(acc_odd, vmulltq_int_s16(xv, wv));
                    }
                }
                const int32x4_t v_even = vminq_s32(vmaxq_s32(em_nn_s16_requant4_apply(acc_even, q_even), lo), hi);
                const int32x4_t v_odd = vminq_s32(vmaxq_s32(em_nn_s16_requant4_apply(acc_odd, q_odd), lo), hi);
                vstrhq_s16(out, vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), v_even), v_odd));
            }
        }
    }
    return ch;
}

/** One pixel of a layer of M = 1 and at most 511 taps: four channels a vector, from channel @p from. */
static EM_NN_S16_NOINLINE void em_nn_dw_s16_pixel_mve(const em_conv_params *p, const em_conv_dims *d, const em_per_channel_quant *quant,
                                   const em_nn_s16_window *win, const int16_t *image, const int8_t *weights,
                                   const int32_t *bias, bool sum32, int32_t from, int16_t *out)
{
    const int32_t c = d->input_c;
    const int32_t row_step = p->dilation_h * d->input_w * c, tap_step = p->dilation_w * c;
    const int16_t *first = image + ((win->y0 + win->ky0 * p->dilation_h) * d->input_w
                                    + win->x0 + win->kx0 * p->dilation_w) * c;
    const int8_t *w_first = weights + (win->ky0 * d->kernel_w + win->kx0) * c;
    const int32_t rows = win->ky1 - win->ky0, cols = win->kx1 - win->kx0, w_row = d->kernel_w * c;
    for (int32_t ch = from; ch < c; ch += 4) {
        const mve_pred16_t pred = vctp32q((uint32_t)(c - ch));
        int32x4_t acc = vdupq_n_s32(0);
        const int16_t *x_row = first + ch;
        const int8_t *w_row_p = w_first + ch;
        for (int32_t r = 0; r < rows; r++, x_row += row_step, w_row_p += w_row) {
            const int16_t *x = x_row;
            const int8_t *w = w_row_p;
            for (int32_t t = 0; t < cols; t++, x += tap_step, w += c) {
                acc = vaddq_s32(acc, vmulq_s32(vldrhq_z_s32(x, pred), vldrbq_z_s32(w, pred)));
            }
        }
        if (sum32) {
            if (bias != NULL) {
                acc = vaddq_s32(acc, vldrwq_z_s32(bias + ch, pred));
            }
            int32x4_t v = em_nn_requantize4_s16_mve(acc, vldrwq_z_s32(quant->multiplier + ch, pred),
                                                       vldrwq_z_s32(quant->shift + ch, pred));
            v = vmaxq_s32(v, vdupq_n_s32(p->activation_min));
            v = vminq_s32(v, vdupq_n_s32(p->activation_max));
            vstrhq_p_s32(out + ch, v, pred);
        } else {
            int32_t lanes[4];
            vst1q_s32(lanes, acc);
            for (int32_t i = 0; i < 4 && ch + i < c; i++) {
                const int64_t sum = (int64_t)lanes[i] + (bias != NULL ? bias[ch + i] : 0);
                out[ch + i] = em_nn_requantize_s64_s16(sum, em_nn_s16_reduced_multiplier(quant->multiplier[ch + i]),
                                                       quant->shift[ch + i], p->activation_min, p->activation_max);
            }
        }
    }
}

#endif

em_nn_status em_depthwise_conv2d_s16_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int16_t *input, const int8_t *weights, const int32_t *bias,
                                             int16_t *output)
{
    if (!EM_NN_S16_LINKED(DEPTHWISE_CONV2D)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED;
    }
    (void)ctx; /* no scratch */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
#if EM_NN_TIER_MVE
    const bool lanes = p.depth_multiplier == 1 && (int64_t)d.kernel_h * d.kernel_w <= EM_NN_S16_SUM32_MAX_TERMS;
    const bool sum32 = lanes && em_nn_s16_sum32((int64_t)d.kernel_h * d.kernel_w, bias, quant->shift, d.output_c);
#endif
    for (int32_t b = 0; b < d.batches; b++) {
        const int16_t *image = input + b * d.input_h * d.input_w * d.input_c;
        int16_t *batch_out = output + b * d.output_h * d.output_w * d.output_c;
#if EM_NN_TIER_MVE
        /* the channels left after the eight-channel blocks (all without sum32), pixel by pixel below */
        const int32_t from = sum32 ? em_nn_dw_s16_image8_mve(&p, &d, quant, image, weights, bias, batch_out) : 0;
        if (lanes && from == d.input_c) {
            continue;
        }
#endif
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            em_nn_s16_window win;
            win.y0 = oy * p.stride_h - p.pad_top;
            em_nn_s16_clip(win.y0, p.dilation_h, d.kernel_h, d.input_h, &win.ky0, &win.ky1);
            for (int32_t ox = 0; ox < d.output_w; ox++) {
                win.x0 = ox * p.stride_w - p.pad_left;
                em_nn_s16_clip(win.x0, p.dilation_w, d.kernel_w, d.input_w, &win.kx0, &win.kx1);
                int16_t *out = batch_out + (oy * d.output_w + ox) * d.output_c;
#if EM_NN_TIER_MVE
                if (lanes) {
                    em_nn_dw_s16_pixel_mve(&p, &d, quant, &win, image, weights, bias, sum32, from, out);
                    continue;
                }
#endif
                em_nn_dw_s16_channels(&p, &d, quant, &win, image, weights, bias, 0, d.output_c, out);
            }
        }
    }
    return EM_NN_OK;
}

em_nn_status em_depthwise_conv2d_s16(const em_nn_context *ctx, const em_conv_params *params,
                                     const em_per_channel_quant *quant, const em_conv_dims *dims,
                                     const int16_t *input, const int8_t *weights, const int32_t *bias,
                                     int16_t *output)
{
    const em_nn_status s = em_conv_s16_validate(params, quant, dims, true);
    if (s != EM_NN_OK) {
        return s;
    }
    if (input == NULL || weights == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_depthwise_conv2d_s16_trusted(ctx, params, quant, dims, input, weights, bias, output);
}
