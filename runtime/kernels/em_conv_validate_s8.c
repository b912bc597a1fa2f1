/**
 * @file em_conv_validate_s8.c
 * @brief The argument contract of em_conv2d_s8() and em_depthwise_conv2d_s8(), in one place:
 *        both kernels check it at every call and both adapters' check() at load, so it is
 *        linked once (about 300 bytes) instead of four inlined copies; and their paths' checks.
 *        Tier-neutral C (as every em_*_validate_*.c): the host verifier of any tier builds it.
 */
#include "em_nn_conv_window.h"
#include "em_nn_functions.h"
#include "em_nn_variants.h"

static bool em_nn_in_s8(int32_t v) { return v >= -128 && v <= 127; }

em_nn_status em_conv_s8_validate(const em_conv_params *p, const em_per_channel_quant *quant, const em_conv_dims *d,
                                 bool depthwise)
{
    if (p == NULL || quant == NULL || d == NULL || quant->multiplier == NULL || quant->shift == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const bool channels_ok = depthwise
                                 ? p->depth_multiplier >= 1 && (int64_t)d->input_c * p->depth_multiplier == d->output_c
                                 : p->groups >= 1 && d->input_c % p->groups == 0 && d->output_c % p->groups == 0;
    if (d->batches < 1 || d->input_h < 1 || d->input_w < 1 || d->input_c < 1 || d->kernel_h < 1 || d->kernel_w < 1
        || d->output_c < 1 || !channels_ok || p->dilation_h < 1 || p->dilation_w < 1 || p->pad_top < 0
        || p->pad_bottom < 0 || p->pad_left < 0 || p->pad_right < 0 || !em_nn_in_s8(p->input_zero_point)
        || !em_nn_in_s8(p->output_offset) || !em_nn_in_s8(p->activation_min) || !em_nn_in_s8(p->activation_max)
        || p->activation_min > p->activation_max
        || !em_nn_output_size_ok(d->output_h, d->input_h, d->kernel_h, p->stride_h, p->dilation_h, p->pad_top,
                                 p->pad_bottom)
        || !em_nn_output_size_ok(d->output_w, d->input_w, d->kernel_w, p->stride_w, p->dilation_w, p->pad_left,
                                 p->pad_right)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return EM_NN_OK;
}

/* The kernels' paths (em_nn_variants.h), checked at load: on Helium, whether the program's choice
 * covers the layer; tier-neutral C, so the host verifier of a Helium build (tools/em_verify) runs it too. */
#if EM_NN_TIER_MVE
/** Whether the paths of @p ctx cover every pixel em_nn_conv2d_mve() computes with its scratch
 *  (ctx->size bytes): none needed when every pixel's column is in place (em_nn_conv_in_place() of the first
 *  and the last pixel, as the window's corner only grows with the pixel), else packing with
 *  scratch for a column, or taps. */
static bool em_nn_conv_mve_covered(const em_nn_context *ctx, const em_conv_params *p, const em_conv_dims *d)
{
    if (em_nn_conv_in_place(p, d, -p->pad_top, -p->pad_left)
        && em_nn_conv_in_place(p, d, (d->output_h - 1) * p->stride_h - p->pad_top,
                               (d->output_w - 1) * p->stride_w - p->pad_left)) {
        return true;
    }
    return (EM_NN_TAKES(ctx->paths, CONV_MVE_PACK) && ctx->size >= em_nn_conv_col_bytes(p, d))
           || EM_NN_TAKES(ctx->paths, CONV_MVE_TAPS);
}

EM_NN_LOAD_TIME em_nn_status em_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params, const em_conv_dims *dims)
{
    const em_nn_status s = em_nn_paths_linked(ctx->paths, EM_NN_PATHS_CONV);
    if (s != EM_NN_OK) {
        return s;
    }
    return em_nn_conv_mve_covered(ctx, params, dims) ? EM_NN_OK : EM_NN_ERR_BAD_ARGUMENT;
}

/** Whether @p paths name every block em_nn_dw_mve() calls for these shapes (a KW = 3 layer
 *  may take the any-KW block instead of the unrolled one: the same sums). */
static bool em_nn_dw_mve_covered(uint32_t paths, const em_conv_params *p, const em_conv_dims *d)
{
    if (p->depth_multiplier != 1) {
        return EM_NN_TAKES(paths, DW_MVE_STRIDED);
    }
    const bool full = d->input_c < 4 || EM_NN_TAKES(paths, DW_MVE_FULL) ||
                      (EM_NN_TAKES(paths, DW_MVE_FULL_KW3) && d->kernel_w == 3);
    return full && (d->input_c % 4 == 0 || EM_NN_TAKES(paths, DW_MVE_TAIL));
}

/** What the fast path's paths (EM_NN_PATHS_DWF) need of the layer, its weights and shifts:
 *  M 1, KH·KW and C in range, every weight >= −127 (int16 pair sums; int4 weights, -8..7, are
 *  not read), exactly one pixel form (the plain one only where every shift <= −2, as the 4-pixel
 *  blocks need too), and the staged rows only where they fit the scratch, else the tap tables. */
static bool em_nn_dwf_paths_fit(const em_nn_context *ctx, const em_conv_params *p, const em_per_channel_quant *quant,
                                const em_conv_dims *d, const int8_t *weights, bool weights_s4)
{
    const uint32_t paths = ctx->paths;
    const bool pixel = (paths & EM_NN_PATH_DWF_MVE_PIXEL) != 0u, left = (paths & EM_NN_PATH_DWF_MVE_PIXEL_LEFT) != 0u;
    if (p->depth_multiplier != 1 || d->kernel_h * d->kernel_w > EM_NN_DWF_MAX_TAPS
        || d->input_c > EM_NN_DWF_MAX_CHANNELS || weights == NULL || pixel == left
        || (paths & (EM_NN_PATHS_DEPTHWISE & ~EM_NN_PATHS_DWF)) != 0u) {
        return false;
    }
    const int32_t n = weights_s4 ? 0 : d->kernel_h * d->kernel_w * d->input_c;
    for (int32_t i = 0; i < n; i++) {
        if (weights[i] == -128) {
            return false;
        }
    }
    bool shifts_low = true;
    for (int32_t c = 0; c < d->input_c; c++) {
        shifts_low = shifts_low && quant->shift[c] <= -2;
    }
    /* the blocks run only where the shape has them (em_nn_depthwise_m1_s8()) */
    if ((pixel || (paths & EM_NN_PATH_DWF_MVE_BLOCK4) != 0u) && !shifts_low) {
        return false;
    }
    const int32_t rows_bytes = em_nn_dwf_rows_bytes(p, d);
    return ((paths & EM_NN_PATH_DWF_MVE_ROWS) != 0u && rows_bytes > 0 && rows_bytes <= ctx->size)
           || (paths & EM_NN_PATH_DWF_MVE_TAPS) != 0u;
}

EM_NN_LOAD_TIME em_nn_status em_depthwise_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int8_t *weights, bool weights_s4)
{
    const em_nn_status s = em_nn_paths_linked(ctx->paths, EM_NN_PATHS_DEPTHWISE);
    if (s != EM_NN_OK) {
        return s;
    }
    const bool fits = (ctx->paths & EM_NN_PATHS_DWF) != 0u
                          ? em_nn_dwf_paths_fit(ctx, params, quant, dims, weights, weights_s4)
                          : em_nn_dw_mve_covered(ctx->paths, params, dims);
    return fits ? EM_NN_OK : EM_NN_ERR_BAD_ARGUMENT;
}

#else
/* Below Helium no variant is chosen: a program's paths must be 0 (em_nn_variants.h). */
EM_NN_LOAD_TIME em_nn_status em_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params, const em_conv_dims *dims)
{
    (void)params, (void)dims;
    return em_nn_paths_linked(ctx->paths, EM_NN_PATHS_CONV);
}

EM_NN_LOAD_TIME em_nn_status em_depthwise_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int8_t *weights, bool weights_s4)
{
    (void)params, (void)quant, (void)dims, (void)weights, (void)weights_s4;
    return em_nn_paths_linked(ctx->paths, EM_NN_PATHS_DEPTHWISE);
}
#endif
