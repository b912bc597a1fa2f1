/**
 * @file em_conv2d_s16.c
 * @brief int16-activation (A16W8) grouped 2-D convolution, NHWC: em_conv2d_s16() and its
 *        unchecked body. Tier-neutral: the tiers differ in em_nn_rows_s16() (em_nn_rows_s16.c).
 *
 * Each output pixel and group takes one column of K = KH·KW·C_IN/groups int16 inputs: the input
 * itself where the window is one contiguous run of it (a 1x1 window, or a KH = 1 row of groups 1
 * and dilation_w 1, inside the input), else packed into the scratch (im2col, padded cells 0,
 * as zero point 0 makes them; groups 1 and dilation_w 1: a run of the input per kernel row,
 * copied 8 int16 a step on Helium), and em_nn_rows_s16() computes the group's output channels from it
 * (Helium: four rows per input load). Without scratch for a column the sums run tap by tap over
 * the input in plain C (the same bytes).
 *
 * Built only where the program's firmware links it (EM_NN_S16_LINKED(CONV2D), em_nn_variants.h);
 * this file is compiled again with the program's selected variants (VARIANT_KERNEL_SOURCES), and
 * with the switch 0 its body is a refusal that references nothing.
 */
#include <stddef.h>
#include <stdint.h>

#include "em_nn_functions.h"
#include "em_nn_s16.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/* em_conv2d_s16_get_buffer_size(): em_nn_buffer_sizes.c */

/** Whether the window at (@p y0, @p x0) lies inside the input. */
static bool em_nn_s16_inside(const em_conv_params *p, const em_conv_dims *d, int32_t y0, int32_t x0)
{
    return y0 >= 0 && x0 >= 0 && y0 + (d->kernel_h - 1) * p->dilation_h < d->input_h
           && x0 + (d->kernel_w - 1) * p->dilation_w < d->input_w;
}

/** @p n int16 from @p src to @p dst (Helium: 8 a step, the last predicated). */
static inline void em_nn_s16_copy(int16_t *dst, const int16_t *src, int32_t n)
{
#if EM_NN_TIER_MVE
    for (int32_t i = 0; i < n; i += 8) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        vstrhq_p_s16(dst + i, vldrhq_z_s16(src + i, p), p);
    }
#else
    for (int32_t i = 0; i < n; i++) {
        dst[i] = src[i];
    }
#endif
}

/** @p n zeros at @p dst. */
static inline void em_nn_s16_zero(int16_t *dst, int32_t n)
{
#if EM_NN_TIER_MVE
    for (int32_t i = 0; i < n; i += 8) {
        vstrhq_p_s16(dst + i, vdupq_n_s16(0), vctp16q((uint32_t)(n - i)));
    }
#else
    for (int32_t i = 0; i < n; i++) {
        dst[i] = 0;
    }
#endif
}

/** em_nn_s16_pack() for groups 1 and dilation_w 1: each kernel row one run of the input (its
 *  part inside), zeros either side. */
static void em_nn_s16_pack_rows(const em_conv_params *p, const em_conv_dims *d, const int16_t *image, int32_t y0,
                                int32_t x0, int16_t *col)
{
    const int32_t c = d->input_c, kw = d->kernel_w;
    const int32_t kx0 = x0 < 0 ? -x0 : 0;
    const int32_t kx1 = x0 + kw > d->input_w ? d->input_w - x0 : kw;
    for (int32_t ky = 0; ky < d->kernel_h; ky++, col += kw * c) {
        const int32_t y = y0 + ky * p->dilation_h;
        if (y < 0 || y >= d->input_h || kx1 <= kx0) {
            em_nn_s16_zero(col, kw * c);
            continue;
        }
        em_nn_s16_zero(col, kx0 * c);
        em_nn_s16_copy(col + kx0 * c, image + (y * d->input_w + x0 + kx0) * c, (kx1 - kx0) * c);
        em_nn_s16_zero(col + kx1 * c, (kw - kx1) * c);
    }
}

/** Packs group @p g's column of the window at (@p y0, @p x0) of @p image ([H, W, C]) into @p col:
 *  [KH, KW, C_IN/groups], cells outside the input 0. */
static void em_nn_s16_pack(const em_conv_params *p, const em_conv_dims *d, const int16_t *image, int32_t g,
                           int32_t y0, int32_t x0, int16_t *col)
{
    const int32_t c = d->input_c, cg = c / p->groups;
    for (int32_t ky = 0; ky < d->kernel_h; ky++) {
        const int32_t y = y0 + ky * p->dilation_h;
        for (int32_t kx = 0; kx < d->kernel_w; kx++) {
            const int32_t x = x0 + kx * p->dilation_w;
            if (y < 0 || y >= d->input_h || x < 0 || x >= d->input_w) {
                for (int32_t i = 0; i < cg; i++) {
                    col[i] = 0;
                }
            } else {
                const int16_t *src = image + (y * d->input_w + x) * c + g * cg;
                for (int32_t i = 0; i < cg; i++) {
                    col[i] = src[i];
                }
            }
            col += cg;
        }
    }
}

/** Without scratch: group @p g's output channels at the window (@p y0, @p x0), tap by tap. */
static void em_nn_s16_taps(const em_conv_params *p, const em_conv_dims *d, const em_nn_s16_rows *rows,
                           const int16_t *image, int32_t g, int32_t y0, int32_t x0, int16_t *out)
{
    const int32_t c = d->input_c, cg = c / p->groups;
    for (int32_t o = 0; o < rows->count; o++) {
        int64_t acc = rows->bias != NULL ? rows->bias[o] : 0;
        const int8_t *w = rows->weights + o * rows->n;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t y = y0 + ky * p->dilation_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cg) {
                const int32_t x = x0 + kx * p->dilation_w;
                if (y < 0 || y >= d->input_h || x < 0 || x >= d->input_w) {
                    continue;
                }
                const int16_t *src = image + (y * d->input_w + x) * c + g * cg;
                for (int32_t i = 0; i < cg; i++) {
                    acc += (int64_t)(src[i] * w[i]);
                }
            }
        }
        out[o] = em_nn_requantize_s64_s16(acc, em_nn_s16_reduced_multiplier(rows->multiplier[o]), rows->shift[o],
                                          rows->activation_min, rows->activation_max);
    }
}

em_nn_status em_conv2d_s16_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                   const em_per_channel_quant *quant, const em_conv_dims *dims,
                                   const int16_t *input, const int8_t *weights, const int32_t *bias, int16_t *output)
{
    if (!EM_NN_S16_LINKED(CONV2D)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED;
    }
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
    const int32_t groups = p.groups, cg = d.input_c / groups, og = d.output_c / groups;
    const int32_t k = d.kernel_h * d.kernel_w * cg;
    const int32_t col_bytes = em_conv2d_s16_get_buffer_size(&p, &d);
    /* the scratch is an int8 tensor to the loader (aligned to 1): an odd one is read tap by tap */
    const bool fits = ctx != NULL && ctx->buf != NULL && col_bytes > 0 && ctx->size >= col_bytes
                      && ((uintptr_t)ctx->buf & 1u) == 0u;
    int16_t *col = fits ? (int16_t *)ctx->buf : NULL;
    /* a contiguous run of the input: 1x1, or one row of groups 1 and dilation_w 1 */
    const bool run = d.kernel_h == 1 && (d.kernel_w == 1 || (p.dilation_w == 1 && groups == 1));
    em_nn_s16_rows rows = {NULL, NULL, NULL, NULL, k, og, p.activation_min, p.activation_max,
                           em_nn_s16_sum32(k, bias, quant->shift, d.output_c)};
    /* 1x1 without padding: every column is the input itself, the layer one call per group */
    const bool pointwise = d.kernel_h == 1 && d.kernel_w == 1 && p.pad_top == 0 && p.pad_bottom == 0
                           && p.pad_left == 0 && p.pad_right == 0;
    for (int32_t b = 0; b < d.batches; b++) {
        const int16_t *image = input + b * d.input_h * d.input_w * d.input_c;
        for (int32_t g = 0; pointwise && g < groups; g++) {
            rows.weights = weights + g * og * k;
            rows.bias = bias != NULL ? bias + g * og : NULL;
            rows.multiplier = quant->multiplier + g * og;
            rows.shift = quant->shift + g * og;
            const em_nn_s16_pixels px = {image + g * cg, d.output_h, d.output_w, p.stride_h * d.input_w * d.input_c,
                                         p.stride_w * d.input_c, output + b * d.output_h * d.output_w * d.output_c + g * og,
                                         d.output_c};
            em_nn_rows_s16_pixels(&rows, &px);
        }
        for (int32_t oy = 0; !pointwise && oy < d.output_h; oy++) {
            const int32_t y0 = oy * p.stride_h - p.pad_top;
            for (int32_t ox = 0; ox < d.output_w; ox++) {
                const int32_t x0 = ox * p.stride_w - p.pad_left;
                int16_t *out = output + ((b * d.output_h + oy) * d.output_w + ox) * d.output_c;
                const bool in_place = run && em_nn_s16_inside(&p, &d, y0, x0);
                for (int32_t g = 0; g < groups; g++) {
                    rows.weights = weights + g * og * k;
                    rows.bias = bias != NULL ? bias + g * og : NULL;
                    rows.multiplier = quant->multiplier + g * og;
                    rows.shift = quant->shift + g * og;
                    if (in_place) {
                        em_nn_rows_s16(&rows, image + (y0 * d.input_w + x0) * d.input_c + g * cg, out + g * og);
                    } else if (col != NULL) {
                        if (groups == 1 && p.dilation_w == 1) {
                            em_nn_s16_pack_rows(&p, &d, image, y0, x0, col);
                        } else {
                            em_nn_s16_pack(&p, &d, image, g, y0, x0, col);
                        }
                        em_nn_rows_s16(&rows, col, out + g * og);
                    } else {
                        em_nn_s16_taps(&p, &d, &rows, image, g, y0, x0, out + g * og);
                    }
                }
            }
        }
    }
    return EM_NN_OK;
}

em_nn_status em_conv2d_s16(const em_nn_context *ctx, const em_conv_params *params, const em_per_channel_quant *quant,
                           const em_conv_dims *dims, const int16_t *input, const int8_t *weights, const int32_t *bias,
                           int16_t *output)
{
    const em_nn_status s = em_conv_s16_validate(params, quant, dims, false);
    if (s != EM_NN_OK) {
        return s;
    }
    if (input == NULL || weights == NULL || output == NULL || (ctx != NULL && ctx->size < 0)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_conv2d_s16_trusted(ctx, params, quant, dims, input, weights, bias, output);
}
