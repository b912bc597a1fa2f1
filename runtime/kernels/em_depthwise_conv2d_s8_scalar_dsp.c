/**
 * @file em_depthwise_conv2d_s8_scalar_dsp.c
 * @brief em_depthwise_conv2d_s8() on the scalar and DSP tiers: int8 depthwise 2-D convolution
 *        (NHWC, weights [KH, KW, C·M]), per-channel requantization; DSP words of four channels
 *        for depth multiplier 1, plain C otherwise. Helium: em_depthwise_conv2d_s8_mve.c.
 *
 * Both tiers' files compute the int32 sums exactly (wrapping like the reference) and requantize
 * with em_nn_requantize() or its bit-exact 4-lane form em_nn_requantize_mve(), so they match
 * compiler/reference.py:depthwise_conv2d_s8 byte for byte. Padded cells are input_zero_point
 * (the bias has b − zp·Σw folded in): a padded tap adds zp·w. Depth multiplier 1 first tries the
 * fast path (em_nn_depthwise_m1_s8(), em_depthwise_conv2d_m1_s8.c); what it declines runs here.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if !EM_NN_TIER_MVE

/** Requantizes one accumulator (bias already added) and clamps it to int8. */
static inline int8_t em_nn_dw_output(uint32_t acc, const em_conv_params *p, int32_t multiplier,
                                     int32_t shift)
{
    const int64_t scaled = (int64_t)em_nn_requantize((int32_t)acc, multiplier, shift) + p->output_offset;
    const int64_t lo = p->activation_min;
    const int64_t hi = p->activation_max;
    return (int8_t)(scaled < lo ? lo : (scaled > hi ? hi : scaled));
}

static void em_nn_dw_scalar(const em_conv_params *p, const em_per_channel_quant *quant,
                            const em_conv_dims *d, const int8_t *input, const int8_t *weights,
                            const int32_t *bias, int8_t *output)
{
    const int32_t c_in = d->input_c;
    const int32_t cm = d->output_c;
    const int32_t m = p->depth_multiplier;
    const int32_t zp = p->input_zero_point;
    int8_t *out = output;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * c_in;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < d->output_w; ox++, out += cm) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                for (int32_t o = 0; o < cm; o++) {
                    const int32_t c = o / m;
                    uint32_t acc = bias != NULL ? (uint32_t)bias[o] : 0u;
                    const int8_t *w = weights + o;
                    for (int32_t ky = 0; ky < d->kernel_h; ky++) {
                        const int32_t iy = iy0 + ky * p->dilation_h;
                        const bool row_ok = iy >= 0 && iy < d->input_h;
                        for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cm) {
                            const int32_t ix = ix0 + kx * p->dilation_w;
                            const int32_t x = row_ok && ix >= 0 && ix < d->input_w
                                                  ? x_image[((int32_t)iy * d->input_w + ix) * c_in + c]
                                                  : zp;
                            acc += (uint32_t)(x * (int32_t)*w);
                        }
                    }
                    out[o] = em_nn_dw_output(acc, p, quant->multiplier[o], quant->shift[o]);
                }
            }
        }
    }
}

#if EM_NN_TIER_DSP
/*
 * DSP, depth multiplier 1: four channels c..c+3 per word. SXTB16 splits a word of inputs or
 * weights into (c, c+2) and (c+1, c+3) halves; SMLABB / SMLATT multiply-accumulate the bottom /
 * top halves, one channel per accumulator (wrapping modulo 2^32 like the reference's int32).
 * Each row's valid taps form one range [kx_lo, kx_hi); the taps outside it (and whole rows
 * outside the input) multiply the weights by (zp, zp). Channels past the last full word run
 * scalar. M > 1 takes the scalar path.
 */

/** acc[0..3] += the four channels of the int8 words @p x and @p w (x as its int16x2 halves). */
#define EM_NN_DW_MAC4(x02, x13, wv, a0, a1, a2, a3)                                               \
    do {                                                                                       \
        const int32_t w02_ = em_nn_sxtb16_02(wv), w13_ = em_nn_sxtb16_13(wv);                  \
        a0 = __smlabb((x02), w02_, a0);                                                        \
        a1 = __smlabb((x13), w13_, a1);                                                        \
        a2 = __smlatt((x02), w02_, a2);                                                        \
        a3 = __smlatt((x13), w13_, a3);                                                        \
    } while (0)

/** One output pixel (window origin iy0, ix0), every channel, M = 1. */
static __attribute__((noinline)) void em_nn_dw_pixel_dsp(const em_conv_params *p,
                                                          const em_per_channel_quant *quant,
                                                          const em_conv_dims *d,
                                                          const int8_t *x_image, int32_t iy0,
                                                          int32_t ix0, const int8_t *weights,
                                                          const int32_t *bias, int8_t *out)
{
    const int32_t c_in = d->input_c, kw = d->kernel_w, kh = d->kernel_h;
    const int32_t row_stride = d->input_w * c_in, tap_step = p->dilation_w * c_in;
    const int32_t zp = p->input_zero_point;
    const int32_t zp2 = (int32_t)(((uint32_t)zp & 0xFFFFu) | ((uint32_t)zp << 16)); /* (zp, zp) */
    int32_t kx_lo = 0, kx_hi = kw;
    while (kx_lo < kx_hi && ix0 + kx_lo * p->dilation_w < 0) kx_lo++;
    while (kx_hi > kx_lo && ix0 + (kx_hi - 1) * p->dilation_w >= d->input_w) kx_hi--;
    const int32_t x_off = (ix0 + kx_lo * p->dilation_w) * c_in; /* first valid tap of a row */
    int32_t c = 0;
    for (; c + 4 <= c_in; c += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (bias != NULL) {
            a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
        }
        const int8_t *w_row = weights + c;
        for (int32_t ky = 0; ky < kh; ky++, w_row += kw * c_in) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            const int32_t lo = row_ok ? kx_lo : kw, hi = row_ok ? kx_hi : kw;
            const int8_t *w = w_row;
            int32_t kx = 0;
            for (; kx < lo; kx++, w += c_in) {
                EM_NN_DW_MAC4(zp2, zp2, em_nn_read_s8x4(w), a0, a1, a2, a3);
            }
            if (row_ok) {
                const int8_t *x = x_image + iy * row_stride + x_off + c;
                for (; kx < hi; kx++, w += c_in, x += tap_step) {
                    const uint32_t xv = em_nn_read_s8x4(x);
                    EM_NN_DW_MAC4(em_nn_sxtb16_02(xv), em_nn_sxtb16_13(xv), em_nn_read_s8x4(w), a0, a1,
                                  a2, a3);
                }
            }
            for (; kx < kw; kx++, w += c_in) {
                EM_NN_DW_MAC4(zp2, zp2, em_nn_read_s8x4(w), a0, a1, a2, a3);
            }
        }
        out[c] = em_nn_dw_output((uint32_t)a0, p, quant->multiplier[c], quant->shift[c]);
        out[c + 1] = em_nn_dw_output((uint32_t)a1, p, quant->multiplier[c + 1], quant->shift[c + 1]);
        out[c + 2] = em_nn_dw_output((uint32_t)a2, p, quant->multiplier[c + 2], quant->shift[c + 2]);
        out[c + 3] = em_nn_dw_output((uint32_t)a3, p, quant->multiplier[c + 3], quant->shift[c + 3]);
    }
    for (; c < c_in; c++) { /* 0..3 channels left */
        uint32_t acc = bias != NULL ? (uint32_t)bias[c] : 0u;
        const int8_t *w_row = weights + c;
        for (int32_t ky = 0; ky < kh; ky++, w_row += kw * c_in) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            const int32_t lo = row_ok ? kx_lo : kw, hi = row_ok ? kx_hi : kw;
            for (int32_t kx = 0; kx < kw; kx++) {
                const int32_t x = kx >= lo && kx < hi
                                      ? x_image[iy * row_stride + x_off + (kx - kx_lo) * tap_step + c]
                                      : zp;
                acc += (uint32_t)(x * (int32_t)w_row[kx * c_in]);
            }
        }
        out[c] = em_nn_dw_output(acc, p, quant->multiplier[c], quant->shift[c]);
    }
}

static void em_nn_dw_dsp(const em_conv_params *p, const em_per_channel_quant *quant,
                         const em_conv_dims *d, const int8_t *input, const int8_t *weights,
                         const int32_t *bias, int8_t *output)
{
    int8_t *out = output;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < d->output_w; ox++, out += d->output_c) {
                em_nn_dw_pixel_dsp(p, quant, d, x_image, iy0, ox * p->stride_w - p->pad_left, weights,
                                   bias, out);
            }
        }
    }
}
#endif

/* em_depthwise_conv2d_s8_get_buffer_size(): em_nn_buffer_sizes.c */

em_nn_status em_depthwise_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                            const em_per_channel_quant *quant, const em_conv_dims *dims,
                                            const int8_t *input, const int8_t *weights, const int32_t *bias,
                                            int8_t *output)
{
    if (em_nn_depthwise_m1_s8(ctx, params, quant, dims, input, weights, bias, output)) {
        return EM_NN_OK; /* em_depthwise_conv2d_m1_s8.c */
    }
#if EM_NN_TIER_DSP
    if (params->depth_multiplier == 1) {
        em_nn_dw_dsp(params, quant, dims, input, weights, bias, output);
    } else {
        em_nn_dw_scalar(params, quant, dims, input, weights, bias, output);
    }
#else
    em_nn_dw_scalar(params, quant, dims, input, weights, bias, output);
#endif
    return EM_NN_OK;
}

#endif /* !EM_NN_TIER_MVE */
