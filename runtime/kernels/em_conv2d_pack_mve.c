/**
 * @file em_conv2d_pack_mve.c
 * @brief em_conv2d_s8() on Helium (MVE): a border pixel's column packed into the scratch
 *        (im2col), zero point in the padded cells (em_nn_conv2d.h: the columns).
 */
#include <stdbool.h>
#include <stdint.h>

#include "em_nn_conv2d_mve.h"

#if EM_NN_TIER_MVE

/**
 * Packs the column of one pixel (window origin iy0, ix0) and group (input channels from
 * @p x_group, a pointer to channel g·Cg of image n) into @p col, zero point in padded cells.
 * The taps of a kernel row that lie inside the input, [kx_lo, kx_hi), are found once; with one
 * group and adjacent taps (dilation_w 1 or KW 1) they are one contiguous run of the input row,
 * so each row is at most a fill, one copy and a fill (a window inside the input: one copy per
 * row), whatever the channel count.
 */
EM_NN_NOINLINE void em_nn_conv_pack_mve(const em_conv_params *p, const em_conv_dims *d, const int8_t *x_group,
                                        int32_t iy0, int32_t ix0, int8_t *col)
{
    const int32_t c = d->input_c, cg = c / p->groups;
    const int32_t kh = d->kernel_h, kw = d->kernel_w, h = d->input_h, w_in = d->input_w;
    const int32_t dh = p->dilation_h, dw = p->dilation_w;
    const int32_t row_bytes = kw * cg;
    const int32_t row_stride = w_in * c;
    const int8x16_t zp = vdupq_n_s8((int8_t)p->input_zero_point);
    const bool contiguous = p->groups == 1 && (dw == 1 || kw == 1);
    int32_t kx_lo = ix0 >= 0 ? 0 : (-ix0 + dw - 1) / dw; /* taps [kx_lo, kx_hi) inside the row */
    int32_t kx_hi = ix0 < w_in ? (w_in - 1 - ix0) / dw + 1 : 0;
    kx_lo = kx_lo < kw ? kx_lo : kw;
    kx_hi = kx_hi < kw ? kx_hi : kw;
    kx_hi = kx_hi > kx_lo ? kx_hi : kx_lo;
    const int32_t lo_bytes = kx_lo * cg, mid_bytes = (kx_hi - kx_lo) * cg;
    const int32_t hi_bytes = row_bytes - lo_bytes - mid_bytes;
    const int8_t *x_row = x_group + (int32_t)iy0 * row_stride + (ix0 + kx_lo * dw) * c;
    const int32_t x_step = dh * row_stride;
    for (int32_t ky = 0, iy = iy0; ky < kh; ky++, iy += dh, col += row_bytes, x_row += x_step) {
        if (iy < 0 || iy >= h) {
            em_nn_fill_s8_mve(col, zp, row_bytes);
            continue;
        }
        if (contiguous) {
            if (lo_bytes > 0) {
                em_nn_fill_s8_mve(col, zp, lo_bytes);
            }
            if (mid_bytes > 0) {
                em_nn_copy_s8_mve(col + lo_bytes, x_row, mid_bytes);
            }
            if (hi_bytes > 0) {
                em_nn_fill_s8_mve(col + lo_bytes + mid_bytes, zp, hi_bytes);
            }
            continue;
        }
        for (int32_t kx = 0; kx < kw; kx++) {
            const int32_t ix = ix0 + kx * dw;
            if (ix < 0 || ix >= w_in) {
                em_nn_fill_s8_mve(col + kx * cg, zp, cg);
            } else {
                em_nn_copy_s8_mve(col + kx * cg, x_group + (int32_t)iy * row_stride + ix * c, cg);
            }
        }
    }
}

#endif /* EM_NN_TIER_MVE */
