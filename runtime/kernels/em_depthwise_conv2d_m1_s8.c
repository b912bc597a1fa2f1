/**
 * @file em_depthwise_conv2d_m1_s8.c
 * @brief The fast path of em_depthwise_conv2d_s8() for depth multiplier 1 on every tier
 *        (scalar, DSP, Helium): the choice of pixel function for a layer, and the walks over the
 *        output that call it (em_nn_depthwise_m1.h: the tap tables and the pixel files).
 *
 * Helium, any kernel, stride and dilation: when the caller's scratch holds the KH padded rows
 * (em_nn_dwf_rows_bytes(), planned in the arena), each output row's input rows are first copied
 * there between zero-point columns (em_nn_dwf_rows_mve()), so that every pixel is an inner one:
 * one tap table serves the layer, and the 4-pixel blocks reach the borders. Layers whose rows do
 * not fit walk the input itself with tap tables (a table per border pixel), as the other tiers do.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_depthwise_m1.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#if EM_NN_TIER_MVE
/** @p n bytes of @p src to @p dst (out of line: inlined, GCC spilled around it). */
static __attribute__((noinline)) void em_nn_dwf_copy(int8_t *dst, const int8_t *src, int32_t n)
{
    for (; n >= 16; n -= 16, src += 16, dst += 16) {
        vstrbq_s8(dst, vldrbq_s8(src));
    }
    if (n > 0) {
        const mve_pred16_t pr = vctp8q((uint32_t)n);
        vstrbq_p_s8(dst, vldrbq_z_s8(src, pr), pr);
    }
}

/** @p n bytes of @p v at @p dst. */
static __attribute__((noinline)) void em_nn_dwf_fill(int8_t *dst, int8_t v, int32_t n)
{
    const int8x16_t f = vdupq_n_s8(v);
    for (; n >= 16; n -= 16, dst += 16) {
        vstrbq_s8(dst, f);
    }
    if (n > 0) {
        vstrbq_p_s8(dst, f, vctp8q((uint32_t)n));
    }
}

/** Each output row's KH input rows copied into @p rows with input_zero_point columns either
 *  side (and for rows outside the input), so that every pixel is inner: one tap table for the
 *  layer, a pixel's taps at + ox·stride_w·C. With @p block4 (3x3 at stride 1, else NULL) 4-pixel
 *  blocks, then the tap-table pixel for the last output_w % 4. @p pw: bytes of one padded row
 *  (pad_left + input_w + what the last window needs on the right, times C). */
static void em_nn_dwf_rows_mve(const em_nn_dwf *k, const em_conv_params *p, const em_conv_dims *d,
                               const int8_t *input, int8_t *out, int8_t *rows, int32_t pw,
                               em_nn_dwf_block_fn block4,
                               void (*pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *))
{
    const int32_t cs = k->c, kh = d->kernel_h, kw = d->kernel_w, row_bytes = d->input_w * cs;
    const int8_t zp = (int8_t)p->input_zero_point;
    em_nn_dwf_fill(rows, zp, kh * pw); /* the padded columns stay zero points */
    uintptr_t tap[EM_NN_DWF_MAX_TAPS];
    for (int32_t ky = 0, t = 0; ky < kh; ky++) {
        for (int32_t kx = 0; kx < kw; kx++, t++) {
            tap[t] = (uintptr_t)(rows + ky * pw + kx * p->dilation_w * cs);
        }
    }
    int8_t *const inner = rows + p->pad_left * cs;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *image = input + n * d->input_h * row_bytes;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            for (int32_t ky = 0; ky < kh; ky++) {
                const int32_t iy = oy * p->stride_h - p->pad_top + ky * p->dilation_h;
                if (iy >= 0 && iy < d->input_h) {
                    em_nn_dwf_copy(inner + ky * pw, image + iy * row_bytes, row_bytes);
                } else {
                    em_nn_dwf_fill(inner + ky * pw, zp, row_bytes);
                }
            }
            int32_t ox = 0;
            for (; block4 != NULL && ox + 4 <= d->output_w; ox += 4, out += 4 * cs) {
                block4(k, rows + ox * cs, cs, pw, cs, kh, kw, out);
            }
            for (; ox < d->output_w; ox++, out += cs) {
                pixel(k, tap, (uintptr_t)(ox * p->stride_w * cs), out);
            }
        }
    }
}
#endif

/* noinline: its calls through the chosen pixel / block pointers stay in a function of this name,
 * which the static stack bound resolves them by (stack_bound.py KERNEL_POINTERS); an LTO build
 * would otherwise inline it into its adapter. */
__attribute__((noinline)) bool em_nn_depthwise_m1_s8(const em_nn_context *ctx, const em_conv_params *params,
                                                     const em_per_channel_quant *quant, const em_conv_dims *dims,
                                                     const int8_t *input, const int8_t *weights, const int32_t *bias,
                                                     int8_t *output)
{
    (void)ctx; /* Helium's paths and row path only */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
    const int32_t cs = d.input_c, kh = d.kernel_h, kw = d.kernel_w;
    if (p.depth_multiplier != 1 || kh * kw > EM_NN_DWF_MAX_TAPS || cs > EM_NN_DWF_MAX_CHANNELS) {
        return false;
    }
#if EM_NN_TIER_MVE
    const uint32_t paths = ctx != NULL ? ctx->paths : 0u;
    if ((paths & EM_NN_PATHS_DWF) == 0u) {
        return false; /* the compiler chose the general path */
    }
#endif
    em_nn_dwf k;
    k.c = cs;
    k.taps = kh * kw;
    k.out_offset = p.output_offset;
    k.act_min = p.activation_min;
    k.act_max = p.activation_max;
    k.w = weights;
    k.bias = bias;
    k.mult = quant->multiplier;
    k.shift = quant->shift;
#if EM_NN_TIER_MVE
    /* The program's paths (em_nn_variants.h), checked at load by em_depthwise_conv2d_s8_paths_ok():
     * the tap-table pixel, or its form for a shift > −2; the 4-pixel blocks where the shape has
     * them (3x3, stride_w and dilation_w 1, C % 4 == 0). */
    void (*pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *) =
        EM_NN_TAKES(paths, DWF_MVE_PIXEL_LEFT) ? em_nn_dwf_pixel_left
        : EM_NN_TAKES(paths, DWF_MVE_PIXEL)    ? em_nn_dwf_pixel
                                                 : NULL;
    if (pixel == NULL) {
        return false;
    }
    const bool blocks = cs % 4 == 0 && kh == 3 && kw == 3 && p.stride_w == 1 && p.dilation_w == 1;
    const em_nn_dwf_block_fn block4 = EM_NN_TAKES(paths, DWF_MVE_BLOCK4) && blocks ? em_nn_dwf_block4_3x3_unit : NULL;
#else
    bool simple = p.activation_min == -128 && p.activation_max == 127;
    for (int32_t c = 0; c < cs; c++) {
        simple = simple && quant->shift[c] <= -2;
    }
    void (*const pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *) =
        !simple ? em_nn_dwf_pixel_any : (k.taps == 9 ? EM_NN_DWF_PIXEL_SIMPLE_9 : em_nn_dwf_pixel_simple);
#endif
#if EM_NN_TIER_MVE
    const int32_t rows_bytes = em_nn_dwf_rows_bytes(&p, &d);
    if (EM_NN_TAKES(paths, DWF_MVE_ROWS) && rows_bytes > 0 && ctx != NULL && ctx->buf != NULL
        && ctx->size >= rows_bytes) {
        em_nn_dwf_rows_mve(&k, &p, &d, input, output, (int8_t *)ctx->buf, rows_bytes / kh, block4, pixel);
        return true;
    }
    if (!EM_NN_TAKES(paths, DWF_MVE_TAPS)) {
        return false; /* no path of the program's for this layer: the general path refuses it */
    }
#endif
    int8_t zp_row[EM_NN_DWF_MAX_CHANNELS];
    for (int32_t c = 0; c < cs; c++) {
        zp_row[c] = (int8_t)p.input_zero_point;
    }
    const uintptr_t pad = (uintptr_t)zp_row;
    const int32_t row_stride = d.input_w * cs;
    uintptr_t row_tap[EM_NN_DWF_MAX_TAPS], px_tap[EM_NN_DWF_MAX_TAPS];
    int8_t *out = output;
    for (int32_t n = 0; n < d.batches; n++) {
        const int8_t *image = input + n * d.input_h * row_stride;
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            const int32_t iy0 = oy * p.stride_h - p.pad_top;
            const bool rows_in = iy0 >= 0 && iy0 + (kh - 1) * p.dilation_h < d.input_h;
            if (rows_in) { /* tap addresses of column 0 of this output row; + ix0·C per pixel */
                for (int32_t ky = 0, t = 0; ky < kh; ky++) {
                    const int8_t *row = image + (iy0 + ky * p.dilation_h) * row_stride;
                    for (int32_t kx = 0; kx < kw; kx++, t++) {
                        row_tap[t] = (uintptr_t)(row + kx * p.dilation_w * cs);
                    }
                }
            }
            for (int32_t ox = 0; ox < d.output_w; ox++, out += cs) {
                const int32_t ix0 = ox * p.stride_w - p.pad_left;
                if (rows_in && ix0 >= 0 && ix0 + (kw - 1) * p.dilation_w < d.input_w) {
#if EM_NN_TIER_MVE
                    /* this and the next 3 pixels inside (stride 1): no tap table */
                    if (block4 != NULL && ox + 4 <= d.output_w && ix0 + 3 + (kw - 1) < d.input_w) {
                        block4(&k, image + iy0 * row_stride + ix0 * cs, cs, p.dilation_h * row_stride, cs, kh, kw,
                               out);
                        ox += 3;
                        out += 3 * cs;
                        continue;
                    }
#endif
                    pixel(&k, row_tap, (uintptr_t)(ix0 * cs), out);
                    continue;
                }
                for (int32_t ky = 0, t = 0; ky < kh; ky++) {
                    const int32_t iy = iy0 + ky * p.dilation_h;
                    const bool row_ok = iy >= 0 && iy < d.input_h;
                    const int8_t *row = image + (row_ok ? iy : 0) * row_stride;
                    for (int32_t kx = 0; kx < kw; kx++, t++) {
                        const int32_t ix = ix0 + kx * p.dilation_w;
                        px_tap[t] = row_ok && ix >= 0 && ix < d.input_w ? (uintptr_t)(row + ix * cs) : pad;
                    }
                }
                pixel(&k, px_tap, 0u, out);
            }
        }
    }
    return true;
}

