/**
 * @file em_pool_validate_s8.c
 * @brief The argument contract of the int8 pooling kernels, in one place: the kernels check it
 *        at every call (em_max_pool_s8(), em_avg_pool_s8()) and the MAX_POOL_2D / AVG_POOL_2D
 *        adapters' check() at load time, through these same functions (one copy in flash, not one
 *        inlined into each caller). Tier-independent.
 */
#include <stddef.h>

#include "em_nn_functions.h"

em_status em_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    if (params == NULL || dims == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const em_pool_params *p = params;
    const em_pool_dims *d = dims;
    if (d->batches < 1 || d->input_h < 1 || d->input_w < 1 || d->channels < 1 || p->kernel_h < 1
        || p->kernel_w < 1 || p->stride_h < 1 || p->stride_w < 1 || p->pad_top < 0 || p->pad_bottom < 0
        || p->pad_left < 0 || p->pad_right < 0 || p->pad_top >= p->kernel_h || p->pad_bottom >= p->kernel_h
        || p->pad_left >= p->kernel_w || p->pad_right >= p->kernel_w || p->zero_point < -128
        || p->zero_point > 127 || p->activation_min < -128 || p->activation_max > 127
        || p->activation_min > p->activation_max) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const int64_t padded_h = (int64_t)d->input_h + p->pad_top + p->pad_bottom;
    const int64_t padded_w = (int64_t)d->input_w + p->pad_left + p->pad_right;
    if (padded_h > INT32_MAX || padded_w > INT32_MAX || padded_h < p->kernel_h || padded_w < p->kernel_w
        || d->output_h != (int32_t)(padded_h - p->kernel_h) / p->stride_h + 1
        || d->output_w != (int32_t)(padded_w - p->kernel_w) / p->stride_w + 1) {
        return EM_ERR_BAD_ARGUMENT;
    }
    /* Each factor < 2^31 and each partial product checked: no int64 overflow. */
    const int64_t in_pixels = (int64_t)d->batches * d->input_h;
    const int64_t out_pixels = (int64_t)d->batches * d->output_h;
    if (in_pixels > INT32_MAX || in_pixels * d->input_w > INT32_MAX
        || in_pixels * d->input_w * d->channels > INT32_MAX || out_pixels > INT32_MAX
        || out_pixels * d->output_w > INT32_MAX || out_pixels * d->output_w * d->channels > INT32_MAX) {
        return EM_ERR_BAD_ARGUMENT;
    }
    return EM_OK;
}

em_status em_avg_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    const em_status s = em_pool_s8_validate(params, dims);
    if (s != EM_OK || (int64_t)params->kernel_h * params->kernel_w > EM_AVG_POOL_MAX_CELLS) {
        return EM_ERR_BAD_ARGUMENT;
    }
    return EM_OK;
}
