/**
 * @file em_conv2d_s8_mve.c
 * @brief em_conv2d_s8() on Helium (MVE): the entry point and the walk over the output pixels,
 *        in blocks of up to EM_NN_CONV_BLOCK whose columns are read in place or packed into the
 *        scratch, or, without scratch, one pixel tap by tap (em_nn_conv2d.h: the columns;
 *        em_nn_conv2d_mve.h: the block's channels).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_conv2d_mve.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE

/** Per image, pixels in blocks of up to EM_NN_CONV_BLOCK and, per block, each group: a pixel's
 *  column is read in place or packed into the scratch (a window inside the input by
 *  em_nn_copy_rows_mve, else em_nn_conv_pack_mve), and the columns go to em_nn_conv_block_mve
 *  at the block's end or when the scratch is full; with no scratch for one column, a pixel
 *  that needs packing runs tap by tap instead (em_nn_conv_taps_mve). */
static void em_nn_conv2d_mve(const em_nn_context *ctx, const em_conv_params *p,
                             const em_per_channel_quant *quant, const em_conv_dims *d,
                             const int8_t *input, const int8_t *weights, const int32_t *bias,
                             int8_t *output)
{
    const int32_t col_bytes = em_nn_conv_col_bytes(p, d);
    int32_t packable = 0; /* columns the scratch holds */
    if (ctx != NULL && ctx->buf != NULL) {
        packable = ctx->size / col_bytes;
        packable = packable > EM_NN_CONV_BLOCK ? EM_NN_CONV_BLOCK : packable;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t og = d->output_c / p->groups;
    const int32_t pixels = d->output_h * d->output_w;
    const em_nn_conv_requant q = {quant->multiplier, quant->shift, bias, p->output_offset,
                                  p->activation_min, p->activation_max};
    /* A window inside the input (origin iy0 in [0, iy_max], ix0 in [0, ix_max]) with one group
     * and adjacent taps packs as KH runs of KW·C bytes (em_nn_copy_rows_mve). */
    const bool rows_fast = p->groups == 1 && (p->dilation_w == 1 || d->kernel_w == 1);
    const int32_t iy_max = d->input_h - 1 - (d->kernel_h - 1) * p->dilation_h;
    const int32_t ix_max = d->input_w - 1 - (d->kernel_w - 1) * p->dilation_w;
    const int32_t row_bytes = d->kernel_w * d->input_c;
    const int32_t row_step = p->dilation_h * d->input_w * d->input_c;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        int8_t *out_image = output + (int32_t)n * pixels * d->output_c;
        for (int32_t first = 0; first < pixels; first += EM_NN_CONV_BLOCK) {
            const int32_t block = pixels - first < EM_NN_CONV_BLOCK ? pixels - first : EM_NN_CONV_BLOCK;
            for (int32_t g = 0; g < p->groups; g++) {
                /* Pixels first.. in runs of columns (in place, or packed while the scratch
                 * has room); without scratch a pixel that needs packing runs tap by tap. */
                em_nn_conv_col cols[EM_NN_CONV_BLOCK + 1]; /* + the NULL end */
                int32_t n_cols = 0, packed = 0, start = first;
                for (int32_t px = first; px < first + block; px++) {
                    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
                    const int32_t iy0 = oy * p->stride_h - p->pad_top;
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const bool in_place = em_nn_conv_in_place(p, d, iy0, ix0);
                    if (!in_place && packed == packable && n_cols > 0) { /* scratch full: flush */
                        em_nn_conv_block_mve(&q, cols, n_cols, k, g * og, (g + 1) * og, weights,
                                             out_image + start * d->output_c, d->output_c);
                        n_cols = 0, packed = 0, start = px;
                    }
                    if (in_place) {
                        cols[n_cols++].col = x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
                    } else if (EM_NN_VARIANT_CONV_MVE_PACK && packed < packable) {
                        int8_t *col = (int8_t *)ctx->buf + packed++ * col_bytes;
                        if (rows_fast && iy0 >= 0 && iy0 <= iy_max && ix0 >= 0 && ix0 <= ix_max) {
                            em_nn_copy_rows_mve(col, x_image + (iy0 * d->input_w + ix0) * d->input_c,
                                                row_bytes, row_step, d->kernel_h);
                        } else {
                            em_nn_conv_pack_mve(p, d, x_image + g * cg, iy0, ix0, col);
                        }
                        cols[n_cols++].col = col;
                    } else if (EM_NN_VARIANT_CONV_MVE_TAPS) { /* no packing: this pixel's taps in place
                                                               * (em_conv2d_s8_paths_ok(): chosen) */
                        em_nn_conv_taps_mve(p, quant, d, x_image + g * cg, iy0, ix0, g * og, (g + 1) * og,
                                            weights, bias, out_image + px * d->output_c);
                        start = px + 1;
                    }
                }
                if (n_cols > 0) {
                    em_nn_conv_block_mve(&q, cols, n_cols, k, g * og, (g + 1) * og, weights,
                                         out_image + start * d->output_c, d->output_c);
                }
            }
        }
    }
}

/* em_conv2d_s8_paths_ok(): em_conv_validate_s8.c (the verifier's, built for the host too) */

em_nn_status em_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                  const em_per_channel_quant *quant, const em_conv_dims *dims,
                                  const int8_t *input, const int8_t *weights, const int32_t *bias,
                                  int8_t *output)
{
    /* Locals, not the caller's structs: no int8 store can alias them, so the pixel loops keep
     * them in registers. */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
    /* the scratch packs columns only where the program chose packing */
    const em_nn_context c = {ctx != NULL && EM_NN_TAKES(ctx->paths, CONV_MVE_PACK) ? ctx->buf : NULL,
                             ctx != NULL ? ctx->size : 0, 0u};
    em_nn_conv2d_mve(&c, &p, quant, &d, input, weights, bias, output);
    return EM_NN_OK;
}

#endif /* EM_NN_TIER_MVE */
