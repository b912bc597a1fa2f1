/**
 * @file em_conv2d_s8_scalar_dsp.c
 * @brief em_conv2d_s8() on the scalar and DSP tiers: the entry point and the walk over the
 *        output pixels, one column at a time (em_nn_conv2d.h: the columns), packed by memcpy.
 *
 * DSP: pixels in pairs (K >= 32, scratch for two columns and their word-interleaved copy): each
 * weight word's two SXTB16 serve both pixels, two rows per pass (em_nn_dot2x2_s8_dsp); when both
 * columns are read in place (1x1 ...) and K / 4 is a multiple of 4 they are sign-extended once
 * into the scratch for all the row pairs (em_nn_dot2x2x_s8_dsp, em_nn_conv2d_dsp.h); a single
 * pixel runs four rows per column word (em_nn_dot4_s8_dsp, via em_nn_dot_rows_s8).
 * Scalar: six, then four, rows per column byte (em_nn_dot_rows_s8: LDRSB + MLA per row).
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "em_nn_conv2d.h"
#include "em_nn_conv2d_dsp.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if !EM_NN_TIER_MVE /* Helium: em_conv2d_s8_mve.c */

/** Packs the column of one pixel (window origin iy0, ix0) and group (input channels from
 *  @p x_group) into @p col, zero point in padded cells. */
EM_NN_NOINLINE static void em_nn_conv_pack_dsp(const em_conv_params *p, const em_conv_dims *d,
                                                const int8_t *x_group, int32_t iy0, int32_t ix0,
                                                int8_t *col)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t row_bytes = d->kernel_w * cg;
    const int zp = (int)(int8_t)p->input_zero_point;
    const bool row_contiguous = p->groups == 1 && (p->dilation_w == 1 || d->kernel_w == 1)
                                && ix0 >= 0 && ix0 + d->kernel_w - 1 < d->input_w;
    for (int32_t ky = 0; ky < d->kernel_h; ky++, col += row_bytes) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        if (iy < 0 || iy >= d->input_h) {
            memset(col, zp, (size_t)row_bytes);
            continue;
        }
        const int8_t *x_row = x_group + (int32_t)iy * d->input_w * d->input_c;
        if (row_contiguous) {
            memcpy(col, x_row + ix0 * d->input_c, (size_t)row_bytes);
            continue;
        }
        for (int32_t kx = 0; kx < d->kernel_w; kx++) {
            const int32_t ix = ix0 + kx * p->dilation_w;
            if (ix < 0 || ix >= d->input_w) {
                memset(col + kx * cg, zp, (size_t)cg);
            } else {
                memcpy(col + kx * cg, x_row + ix * d->input_c, (size_t)cg);
            }
        }
    }
}

#if EM_NN_TIER_DSP
/** Requantizes @p rows (1..4) accumulators of channels o.. and stores them (bias added here). */
static inline void em_nn_conv_store_dsp(const int32_t acc[4], int32_t rows, const em_conv_params *p,
                                        const em_per_channel_quant *quant, const int32_t *bias,
                                        int32_t o, int8_t *out)
{
    for (int32_t r = 0; r < rows; r++) {
        const uint32_t b = bias != NULL ? (uint32_t)bias[o + r] : 0u;
        out[o + r] = em_nn_conv_output((uint32_t)acc[r] + b, p, quant->multiplier[o + r],
                                       quant->shift[o + r]);
    }
}

/** One pixel and group without scratch: each tap's Cg channels read in place; a padded tap
 *  adds zp·w. */
EM_NN_NOINLINE static void em_nn_conv_taps_dsp(const em_conv_params *p, const em_per_channel_quant *quant,
                                                const em_conv_dims *d, const int8_t *x_group,
                                                int32_t iy0, int32_t ix0, int32_t o_begin,
                                                int32_t o_end, const int8_t *weights,
                                                const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t zp = p->input_zero_point;
    for (int32_t o = o_begin; o < o_end; o += 4) {
        const int32_t rows = o_end - o < 4 ? o_end - o : 4;
        int32_t acc[4] = {0, 0, 0, 0};
        const int8_t *w_o = weights + (int32_t)o * k;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                const int8_t *w = w_o + (ky * d->kernel_w + kx) * cg;
                if (!row_ok || ix < 0 || ix >= d->input_w) { /* padded tap */
                    for (int32_t r = 0; r < rows; r++) {
                        uint32_t a = (uint32_t)acc[r];
                        for (int32_t i = 0; i < cg; i++) {
                            a += (uint32_t)(zp * (int32_t)w[r * k + i]);
                        }
                        acc[r] = (int32_t)a;
                    }
                    continue;
                }
                const int8_t *x = x_group + ((int32_t)iy * d->input_w + ix) * d->input_c;
                if (rows == 4) {
                    em_nn_dot4_s8_dsp(x, w, k, cg, acc);
                } else {
                    for (int32_t r = 0; r < rows; r++) {
                        acc[r] = em_nn_dot_s8_dsp(x, w + r * k, cg, acc[r]);
                    }
                }
            }
        }
        em_nn_conv_store_dsp(acc, rows, p, quant, bias, o, out);
    }
}

#else /* scalar */

/** One pixel and group without scratch: each output channel tap by tap (padded taps: zp·w). */
static void em_nn_conv_taps_scalar(const em_conv_params *p, const em_per_channel_quant *quant,
                                   const em_conv_dims *d, const int8_t *x_group, int32_t iy0,
                                   int32_t ix0, int32_t o_begin, int32_t o_end,
                                   const int8_t *weights, const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t zp = p->input_zero_point;
    for (int32_t o = o_begin; o < o_end; o++) {
        const int8_t *w = weights + (int32_t)o * k;
        uint32_t acc = bias != NULL ? (uint32_t)bias[o] : 0u;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cg) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                if (row_ok && ix >= 0 && ix < d->input_w) {
                    const int8_t *x = x_group + ((int32_t)iy * d->input_w + ix) * d->input_c;
                    acc = (uint32_t)em_nn_dot_s8_scalar(x, w, cg, (int32_t)acc);
                } else { /* padded tap: every cell holds the zero point */
                    for (int32_t i = 0; i < cg; i++) {
                        acc += (uint32_t)(zp * (int32_t)w[i]);
                    }
                }
            }
        }
        out[o] = em_nn_requantize_s8((int32_t)acc, quant->multiplier[o], quant->shift[o],
                                     p->output_offset, p->activation_min, p->activation_max);
    }
}

#endif

#if EM_NN_TIER_DSP
#define EM_NN_CONV_TAPS em_nn_conv_taps_dsp
#else
#define EM_NN_CONV_TAPS em_nn_conv_taps_scalar
#endif

#if EM_NN_TIER_DSP
/** dst = the columns @p a and @p b (k int8 each) word by word: a's word i at dst[2i], b's at
 *  dst[2i + 1], i < k / 4 (the tail of k % 4 bytes is not copied). */
static void em_nn_conv_interleave_dsp(uint32_t *dst, const int8_t *a, const int8_t *b, int32_t k)
{
    for (int32_t i = 0; i + 4 <= k; i += 4, dst += 2) {
        dst[0] = em_nn_read_s8x4(a + i);
        dst[1] = em_nn_read_s8x4(b + i);
    }
}

/** dst = the columns @p a and @p b (k int8 each) sign-extended once for every row pair: per
 *  four inputs i..i+3 the words SXTB16(a), SXTB16(a, ROR 8), SXTB16(b), SXTB16(b, ROR 8)
 *  ((a_i, a_i+2), (a_i+1, a_i+3) as int16 pairs, then b's); the tail of k % 4 bytes is not
 *  copied. 4·(k & ~3) bytes. */
static void em_nn_conv_extend_dsp(uint32_t *dst, const int8_t *a, const int8_t *b, int32_t k)
{
    for (int32_t i = 0; i + 4 <= k; i += 4, dst += 4) {
        const uint32_t wa = em_nn_read_s8x4(a + i), wb = em_nn_read_s8x4(b + i);
        dst[0] = (uint32_t)em_nn_sxtb16_02(wa), dst[1] = (uint32_t)em_nn_sxtb16_13(wa);
        dst[2] = (uint32_t)em_nn_sxtb16_02(wb), dst[3] = (uint32_t)em_nn_sxtb16_13(wb);
    }
}

/**
 * Output channels [o_begin, o_end) of two pixels whose columns (k int8) are @p a and @p b,
 * word-interleaved at @p x; outputs at out_a and out_b. Two weight rows per pass
 * (em_nn_dot2x2_s8_dsp), the k % 4 tail and a last odd row in C.
 */
EM_NN_NOINLINE static void em_nn_conv_pair_dsp(const uint32_t *x, const int8_t *a, const int8_t *b,
                                               int32_t k, int32_t o_begin, int32_t o_end,
                                               const int8_t *weights, const int32_t *bias,
                                               const em_per_channel_quant *quant,
                                               const em_conv_params *p, int8_t *out_a, int8_t *out_b,
                                               bool extended)
{
    const int32_t offset = p->output_offset, lo = p->activation_min, hi = p->activation_max;
    const int32_t *multiplier = quant->multiplier, *shift = quant->shift;
    const int32_t k4 = k & ~3;
    int32_t o = o_begin;
    for (; o + 2 <= o_end; o += 2) {
        const int8_t *w0 = weights + (int32_t)o * k, *w1 = w0 + k;
        int32_t sums[4];
        if (extended) {
            em_nn_dot2x2x_s8_dsp(x, w0, k, k >> 2, sums);
        } else {
            em_nn_dot2x2_s8_dsp(x, w0, k, k >> 2, sums);
        }
        uint32_t s00 = (uint32_t)sums[0], s01 = (uint32_t)sums[1];
        uint32_t s10 = (uint32_t)sums[2], s11 = (uint32_t)sums[3];
        for (int32_t i = k4; i < k; i++) { /* 0..3 left, wrapping like the reference */
            s00 += (uint32_t)(a[i] * w0[i]), s01 += (uint32_t)(a[i] * w1[i]);
            s10 += (uint32_t)(b[i] * w0[i]), s11 += (uint32_t)(b[i] * w1[i]);
        }
        if (bias != NULL) {
            s00 += (uint32_t)bias[o], s10 += (uint32_t)bias[o];
            s01 += (uint32_t)bias[o + 1], s11 += (uint32_t)bias[o + 1];
        }
        out_a[o] = em_nn_requantize_s8((int32_t)s00, multiplier[o], shift[o], offset, lo, hi);
        out_b[o] = em_nn_requantize_s8((int32_t)s10, multiplier[o], shift[o], offset, lo, hi);
        out_a[o + 1] = em_nn_requantize_s8((int32_t)s01, multiplier[o + 1], shift[o + 1], offset, lo, hi);
        out_b[o + 1] = em_nn_requantize_s8((int32_t)s11, multiplier[o + 1], shift[o + 1], offset, lo, hi);
    }
    if (o < o_end) { /* a last odd row */
        const int32_t bo = bias != NULL ? bias[o] : 0;
        const int8_t *w0 = weights + (int32_t)o * k;
        out_a[o] = em_nn_requantize_s8(em_nn_dot_s8_dsp(a, w0, k, bo), multiplier[o], shift[o], offset, lo, hi);
        out_b[o] = em_nn_requantize_s8(em_nn_dot_s8_dsp(b, w0, k, bo), multiplier[o], shift[o], offset, lo, hi);
    }
}
#endif

/** Whether @p ctx's scratch lies clear of the input. Patches are memcpy'd from the input, so a
 *  scratch over it (only a malformed program places one there) is left unused, as if absent:
 *  the same bytes, read tap by tap. Out of line and inside the scratch test it costs least
 *  (runtime/kernels/README.md). */
EM_NN_NOINLINE static bool em_nn_scratch_apart(const em_nn_context *ctx, const em_conv_dims *d, const int8_t *input)
{
    return em_nn_bytes_apart(ctx->buf, (uintptr_t)ctx->size, input,
                             (uintptr_t)d->batches * d->input_h * d->input_w * d->input_c);
}

/** The column of pixel @p px for group @p g: in place, packed into @p col_buf (NULL: none). */
static inline const int8_t *em_nn_conv_column(const em_conv_params *p, const em_conv_dims *d,
                                              const int8_t *x_image, int32_t g, int32_t px,
                                              int8_t *col_buf)
{
    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
    const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
    if (em_nn_conv_in_place(p, d, iy0, ix0)) {
        return x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
    }
    if (col_buf == NULL) {
        return NULL;
    }
    em_nn_conv_pack_dsp(p, d, x_image + g * (d->input_c / p->groups), iy0, ix0, col_buf);
    return col_buf;
}

/* One driver for DSP and scalar: per pixel and group, the column in place (1x1 ...), packed
 * into the scratch, or (no scratch) tap by tap. DSP: pixels in pairs when the scratch holds
 * two columns and their word-interleaved copy (em_nn_conv_pair_dsp). */
static void em_nn_conv2d_cols(const em_nn_context *ctx, const em_conv_params *p,
                              const em_per_channel_quant *quant, const em_conv_dims *d,
                              const int8_t *input, const int8_t *weights, const int32_t *bias,
                              int8_t *output)
{
    const int32_t col_bytes = em_nn_conv_col_bytes(p, d);
    int8_t *scratch = NULL;
    if (ctx != NULL && ctx->buf != NULL && ctx->size >= col_bytes && em_nn_scratch_apart(ctx, d, input)) {
        scratch = (int8_t *)ctx->buf;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
#if EM_NN_TIER_DSP
    /* Pairs pay from K = 32 on (runtime/kernels/README.md). */
    const bool pairs = scratch != NULL && ctx->size >= 4 * col_bytes && k >= 32; /* a, b, a|b (2) */
#endif
    const int32_t og = d->output_c / p->groups;
    const int32_t pixels = d->output_h * d->output_w;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        int8_t *out_image = output + (int32_t)n * pixels * d->output_c;
        for (int32_t px = 0; px < pixels; px++) {
            int8_t *out = out_image + px * d->output_c;
#if EM_NN_TIER_DSP
            if (pairs && px + 1 < pixels) {
                for (int32_t g = 0; g < p->groups; g++) {
                    const int8_t *a = em_nn_conv_column(p, d, x_image, g, px, scratch);
                    const int8_t *b = em_nn_conv_column(p, d, x_image, g, px + 1, scratch + col_bytes);
                    /* Both columns in place (1x1 ...) and k / 4 a multiple of 4: the whole
                     * scratch (4·col_bytes >= 4·(k & ~3)) takes them sign-extended once for
                     * all the row pairs (em_nn_dot2x2x_s8_dsp). */
                    const bool extended = a != scratch && b != scratch + col_bytes && (k & 12) == 0;
                    uint32_t *x = (uint32_t *)(void *)(extended ? scratch : scratch + 2 * col_bytes);
                    if (extended) {
                        em_nn_conv_extend_dsp(x, a, b, k);
                    } else {
                        em_nn_conv_interleave_dsp(x, a, b, k);
                    }
                    em_nn_conv_pair_dsp(x, a, b, k, g * og, (g + 1) * og, weights, bias, quant, p, out,
                                        out + d->output_c, extended);
                }
                px++;
                continue;
            }
#endif
            for (int32_t g = 0; g < p->groups; g++) {
                const int8_t *col = em_nn_conv_column(p, d, x_image, g, px, scratch);
                if (col != NULL) {
                    em_nn_dot_rows_s8(col, weights, k, g * og, (g + 1) * og, bias, quant->multiplier,
                                      quant->shift, p->output_offset, p->activation_min,
                                      p->activation_max, out);
                } else {
                    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
                    EM_NN_CONV_TAPS(p, quant, d, x_image + g * cg, oy * p->stride_h - p->pad_top,
                                    ox * p->stride_w - p->pad_left, g * og, (g + 1) * og, weights,
                                    bias, out);
                }
            }
        }
    }
}


em_nn_status em_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                  const em_per_channel_quant *quant, const em_conv_dims *dims,
                                  const int8_t *input, const int8_t *weights, const int32_t *bias,
                                  int8_t *output)
{
    /* Locals, not the caller's structs: no int8 store can alias them, so the pixel loops keep
     * them in registers. */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
    em_nn_conv2d_cols(ctx, &p, quant, &d, input, weights, bias, output);
    return EM_NN_OK;
}

#endif /* !EM_NN_TIER_MVE */
