/**
 * @file em_conv_validate_s8.c
 * @brief The argument contract of em_conv2d_s8() and em_depthwise_conv2d_s8(), in one place:
 *        both kernels check it at every call and both adapters' check() at load, so it is
 *        linked once (about 300 bytes) instead of four inlined copies.
 */
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

#if !EM_NN_TIER_MVE
/* Below Helium no variant is chosen: a program's paths must be 0 (em_nn_variants.h). The Helium
 * forms are in em_conv2d_s8_mve.c and em_depthwise_conv2d_s8_mve.c. */
EM_NN_LOAD_TIME em_nn_status em_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params, const em_conv_dims *dims)
{
    (void)params, (void)dims;
    return em_nn_paths_linked(ctx->paths, EM_NN_PATHS_CONV);
}

EM_NN_LOAD_TIME em_nn_status em_depthwise_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int8_t *weights)
{
    (void)params, (void)quant, (void)dims, (void)weights;
    return em_nn_paths_linked(ctx->paths, EM_NN_PATHS_DEPTHWISE);
}
#endif
