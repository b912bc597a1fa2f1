/**
 * @file em_transpose_conv2d_s8.c
 * @brief int8 transposed 2-D convolution (NHWC, groups 1, dilation 1), exactly
 *        compiler/reference.py:transpose_conv2d_s8, in gather form: no zero-stuffed input is
 *        ever built. For each output row the taps that reach it are ky ≡ oy + pad_top (mod
 *        stride_h) with iy = (oy + pad_top − ky) / stride_h in [0, H); columns likewise. Only
 *        those taps are visited, so a stride-s layer costs 1/s² of the stuffed convolution.
 *        Four output channels share each tap's input pixel. The dot products over the input
 *        channels have a path per tier: MVE centres x in int16 lanes (VLDRB.S16, VADD) into
 *        VMLADAVA.S16 (a lone channel: Σ x·w + off·Σ w by VMLADAVA / VADDVA on int8 lanes),
 *        DSP centres SXTB16 halves by SADD16 into SMLAD, plain C otherwise; all wrap modulo
 *        2^32 like the reference's int32 sum.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

/** acc + Σ_{i<n} (x[i] + offset)·w[i], modulo 2^32. */
static inline uint32_t em_nn_tconv_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t offset, uint32_t acc)
{
    int32_t i = 0;
#if EM_NN_TIER_MVE
    int32_t dot = 0, w_sum = 0;
    for (; i < n; i += 16) {
        const mve_pred16_t pred = vctp8q((uint32_t)(n - i));
        const int8x16_t wv = vldrbq_z_s8(w + i, pred); /* masked lanes read nothing and are 0 */
        dot = vmladavaq_s8(dot, vldrbq_z_s8(x + i, pred), wv);
        w_sum = vaddvaq_s8(w_sum, wv);
    }
    return acc + (uint32_t)dot + (uint32_t)offset * (uint32_t)w_sum;
#else
#if EM_NN_TIER_DSP
    /* (x + offset) fits int16: centre both halves of SXTB16 with one SADD16 each */
    const int32_t offset2 = (int32_t)(((uint32_t)offset << 16) | ((uint32_t)offset & 0xFFFFu));
    int32_t sum = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xv = em_nn_read_s8x4(x + i), wv = em_nn_read_s8x4(w + i);
        sum = __smlad(__sadd16(em_nn_sxtb16_02(xv), offset2), em_nn_sxtb16_02(wv), sum);
        sum = __smlad(__sadd16(em_nn_sxtb16_13(xv), offset2), em_nn_sxtb16_13(wv), sum);
    }
    acc += (uint32_t)sum;
#endif
    for (; i < n; i++) {
        acc += (uint32_t)((x[i] + offset) * w[i]);
    }
    return acc;
#endif
}

/** acc[j] += Σ_{i<n} (x[i] + offset)·w[j·w_stride + i] for the EM_NN_TCONV_BLOCK output channels
 *  j of one tap: x is loaded and centred once for all of them. */
#define EM_NN_TCONV_BLOCK 4
static inline void em_nn_tconv_dot_block(const int8_t *x, const int8_t *w, int32_t w_stride, int32_t n, int32_t offset,
                                         uint32_t *acc)
{
    const int8_t *w0 = w, *w1 = w + w_stride, *w2 = w + 2 * w_stride, *w3 = w + 3 * w_stride;
    int32_t i = 0;
#if EM_NN_TIER_MVE
    /* 8 channels per step in int16 lanes: x centred once (x + offset fits int16), four
     * VMLADAVA.S16 and no weight sums to keep (8 int8 accumulators spilled to the stack) */
    int32_t d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (; i < n; i += 8) {
        const mve_pred16_t pred = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vaddq_n_s16(vldrbq_z_s16(x + i, pred), (int16_t)offset); /* masked w lanes are 0 */
        d0 = vmladavaq_s16(d0, xv, vldrbq_z_s16(w0 + i, pred));
        d1 = vmladavaq_s16(d1, xv, vldrbq_z_s16(w1 + i, pred));
        d2 = vmladavaq_s16(d2, xv, vldrbq_z_s16(w2 + i, pred));
        d3 = vmladavaq_s16(d3, xv, vldrbq_z_s16(w3 + i, pred));
    }
    acc[0] += (uint32_t)d0;
    acc[1] += (uint32_t)d1;
    acc[2] += (uint32_t)d2;
    acc[3] += (uint32_t)d3;
#else
#if EM_NN_TIER_DSP
    const int32_t offset2 = (int32_t)(((uint32_t)offset << 16) | ((uint32_t)offset & 0xFFFFu));
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xv = em_nn_read_s8x4(x + i);
        const int32_t x02 = __sadd16(em_nn_sxtb16_02(xv), offset2), x13 = __sadd16(em_nn_sxtb16_13(xv), offset2);
        uint32_t wv = em_nn_read_s8x4(w0 + i);
        a0 = __smlad(x13, em_nn_sxtb16_13(wv), __smlad(x02, em_nn_sxtb16_02(wv), a0));
        wv = em_nn_read_s8x4(w1 + i);
        a1 = __smlad(x13, em_nn_sxtb16_13(wv), __smlad(x02, em_nn_sxtb16_02(wv), a1));
        wv = em_nn_read_s8x4(w2 + i);
        a2 = __smlad(x13, em_nn_sxtb16_13(wv), __smlad(x02, em_nn_sxtb16_02(wv), a2));
        wv = em_nn_read_s8x4(w3 + i);
        a3 = __smlad(x13, em_nn_sxtb16_13(wv), __smlad(x02, em_nn_sxtb16_02(wv), a3));
    }
    acc[0] += (uint32_t)a0;
    acc[1] += (uint32_t)a1;
    acc[2] += (uint32_t)a2;
    acc[3] += (uint32_t)a3;
#endif
    for (; i < n; i++) {
        const int32_t xc = x[i] + offset;
        acc[0] += (uint32_t)(xc * w0[i]);
        acc[1] += (uint32_t)(xc * w1[i]);
        acc[2] += (uint32_t)(xc * w2[i]);
        acc[3] += (uint32_t)(xc * w3[i]);
    }
#endif
}

/** First tap along one axis reaching output position @p o (cropped by @p pad): k0 and the input
 *  index it reads; further taps are k0 + j·stride with index − j. */
static inline void em_nn_tconv_first_tap(int32_t o, int32_t pad, int32_t stride, int32_t *k0, int32_t *i0)
{
    const int32_t t = o + pad; /* >= 0 */
    *k0 = t % stride;
    *i0 = t / stride;
}

static bool em_nn_tconv_valid(const em_transpose_conv_params *p, const em_per_channel_quant *quant,
                              const em_conv_dims *d)
{
    if (p->stride_h < 1 || p->stride_w < 1 || p->pad_top < 0 || p->pad_left < 0 || p->input_offset < -127
        || p->input_offset > 128 || p->output_offset < -128 || p->output_offset > 127 || p->activation_min < -128
        || p->activation_max > 127 || p->activation_min > p->activation_max || quant->multiplier == NULL
        || quant->shift == NULL || d->batches < 1 || d->input_h < 1 || d->input_w < 1 || d->input_c < 1
        || d->kernel_h < 1 || d->kernel_w < 1 || d->output_c < 1 || d->output_h < 1 || d->output_w < 1) {
        return false;
    }
    const int64_t full_h = (int64_t)(d->input_h - 1) * p->stride_h + d->kernel_h;
    const int64_t full_w = (int64_t)(d->input_w - 1) * p->stride_w + d->kernel_w;
    if (full_h > EM_NN_INT32_MAX || full_w > EM_NN_INT32_MAX || d->output_h != full_h - p->pad_top - p->pad_bottom
        || d->output_w != full_w - p->pad_left - p->pad_right
        || (int64_t)d->output_h + p->pad_top > EM_NN_INT32_MAX || (int64_t)d->output_w + p->pad_left > EM_NN_INT32_MAX) {
        return false;
    }
    const int64_t in = (int64_t)d->batches * d->input_h * d->input_w * d->input_c;
    const int64_t out = (int64_t)d->batches * d->output_h * d->output_w * d->output_c;
    const int64_t w = (int64_t)d->output_c * d->kernel_h * d->kernel_w * d->input_c;
    return in <= EM_NN_INT32_MAX && out <= EM_NN_INT32_MAX && w <= EM_NN_INT32_MAX;
}

em_nn_status em_transpose_conv2d_s8(const em_transpose_conv_params *params, const em_per_channel_quant *quant,
                                    const em_conv_dims *dims, const int8_t *input, const int8_t *weights,
                                    const int32_t *bias, int8_t *output)
{
    if (params == NULL || quant == NULL || dims == NULL || input == NULL || weights == NULL || output == NULL
        || !em_nn_tconv_valid(params, quant, dims)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_transpose_conv_params p = *params; /* not re-read after each int8 store */
    const em_conv_dims d = *dims;
    const int32_t c_in = d.input_c, c_out = d.output_c;
    const int32_t tap_stride = c_in;                    /* weights [o][ky][kx][i] */
    const int32_t row_taps = d.kernel_w * tap_stride;
    const int32_t channel_stride = d.kernel_h * row_taps;
    int8_t *out = output;
    for (int32_t n = 0; n < d.batches; n++) {
        const int8_t *image = input + (size_t)n * d.input_h * d.input_w * c_in;
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            int32_t ky0, iy0;
            em_nn_tconv_first_tap(oy, p.pad_top, p.stride_h, &ky0, &iy0);
            for (int32_t ox = 0; ox < d.output_w; ox++) {
                int32_t kx0, ix0;
                em_nn_tconv_first_tap(ox, p.pad_left, p.stride_w, &kx0, &ix0);
                for (int32_t o0 = 0; o0 < c_out; o0 += EM_NN_TCONV_BLOCK) {
                    const int32_t count = c_out - o0 < EM_NN_TCONV_BLOCK ? c_out - o0 : EM_NN_TCONV_BLOCK;
                    uint32_t acc[EM_NN_TCONV_BLOCK]; /* wrap as int32 */
                    for (int32_t j = 0; j < count; j++) {
                        acc[j] = bias != NULL ? (uint32_t)bias[o0 + j] : 0u;
                    }
                    const int8_t *w_block = weights + (size_t)o0 * channel_stride;
                    for (int32_t ky = ky0, iy = iy0; ky < d.kernel_h && iy >= 0; ky += p.stride_h, iy--) {
                        if (iy >= d.input_h) {
                            continue; /* the tap lands below the input: the next one is an input row higher */
                        }
                        for (int32_t kx = kx0, ix = ix0; kx < d.kernel_w && ix >= 0; kx += p.stride_w, ix--) {
                            if (ix >= d.input_w) {
                                continue;
                            }
                            const int8_t *x = image + ((size_t)iy * d.input_w + ix) * c_in;
                            const int8_t *w = w_block + ky * row_taps + kx * tap_stride;
                            if (count == EM_NN_TCONV_BLOCK) {
                                em_nn_tconv_dot_block(x, w, channel_stride, c_in, p.input_offset, acc);
                            } else {
                                for (int32_t j = 0; j < count; j++) {
                                    acc[j] = em_nn_tconv_dot(x, w + (size_t)j * channel_stride, c_in, p.input_offset,
                                                             acc[j]);
                                }
                            }
                        }
                    }
                    for (int32_t j = 0; j < count; j++) {
                        const int32_t o = o0 + j;
                        int32_t v = em_nn_requantize((int32_t)acc[j], quant->multiplier[o], quant->shift[o])
                                    + p.output_offset;
                        v = v < p.activation_min ? p.activation_min : (v > p.activation_max ? p.activation_max : v);
                        out[o] = (int8_t)v;
                    }
                }
                out += c_out;
            }
        }
    }
    return EM_NN_OK;
}
