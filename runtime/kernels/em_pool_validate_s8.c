/**
 * @file em_pool_validate_s8.c
 * @brief The argument contract of the int8 and int16 (A16W8) pooling kernels, in one place: the
 *        kernels check it at every call (em_max_pool_s8(), em_avg_pool_s8(), em_max_pool_s16(),
 *        em_avg_pool_s16()) and the MAX_POOL_2D / AVG_POOL_2D adapters' check() at load time,
 *        through these same functions (one copy in flash, not one inlined into each caller).
 *        Tier-independent.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"

/** One axis of the window: kernel and stride >= 1, 0 <= each padding < kernel, the padded extent
 *  size + pads within int32 and >= kernel, and out == (padded − kernel) / stride + 1
 *  (reference.output_size). In 32 bits: each sum is checked against INT32_MAX before it is formed. */
static bool em_nn_pool_axis_ok(int32_t size, int32_t out, int32_t kernel, int32_t stride, int32_t pad_before,
                               int32_t pad_after)
{
    if (size < 1 || kernel < 1 || stride < 1 || pad_before < 0 || pad_after < 0 || pad_before >= kernel
        || pad_after >= kernel || pad_before > INT32_MAX - size || pad_after > INT32_MAX - size - pad_before) {
        return false;
    }
    const int32_t padded = size + pad_before + pad_after;
    return padded >= kernel && out == (padded - kernel) / stride + 1;
}

/** n · h · w · c for positive factors, or false when any partial product leaves int32. */
static bool em_nn_pool_size_ok(int32_t n, int32_t h, int32_t w, int32_t c)
{
    int32_t v;
    return !__builtin_mul_overflow(n, h, &v) && !__builtin_mul_overflow(v, w, &v) && !__builtin_mul_overflow(v, c, &v);
}

/** The window, the sizes and the clamps within [@p low, @p high]; the zero point in it too
 *  (int16: 0, A16W8's symmetric activations, @p zero_only). */
static em_nn_status em_nn_pool_validate(const em_pool_params *params, const em_pool_dims *dims, int32_t low,
                                        int32_t high, bool zero_only)
{
    if (params == NULL || dims == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_pool_params *p = params;
    const em_pool_dims *d = dims;
    const bool zero_point = zero_only ? p->zero_point == 0 : p->zero_point >= low && p->zero_point <= high;
    /* Every window then holds at least one real cell; output_h / output_w >= 1 by the formula. */
    if (d->batches < 1 || d->channels < 1
        || !em_nn_pool_axis_ok(d->input_h, d->output_h, p->kernel_h, p->stride_h, p->pad_top, p->pad_bottom)
        || !em_nn_pool_axis_ok(d->input_w, d->output_w, p->kernel_w, p->stride_w, p->pad_left, p->pad_right)
        || !zero_point || p->activation_min < low || p->activation_max > high
        || p->activation_min > p->activation_max
        || !em_nn_pool_size_ok(d->batches, d->input_h, d->input_w, d->channels)
        || !em_nn_pool_size_ok(d->batches, d->output_h, d->output_w, d->channels)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return EM_NN_OK;
}

em_nn_status em_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    return em_nn_pool_validate(params, dims, -128, 127, false);
}

em_nn_status em_avg_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    const em_nn_status s = em_pool_s8_validate(params, dims);
    if (s != EM_NN_OK || (int64_t)params->kernel_h * params->kernel_w > EM_AVG_POOL_MAX_CELLS) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return EM_NN_OK;
}

em_nn_status em_pool_s16_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    return em_nn_pool_validate(params, dims, -32768, 32767, true);
}

em_nn_status em_avg_pool_s16_validate(const em_pool_params *params, const em_pool_dims *dims)
{
    const em_nn_status s = em_pool_s16_validate(params, dims);
    if (s != EM_NN_OK || (int64_t)params->kernel_h * params->kernel_w > EM_AVG_POOL_S16_MAX_CELLS) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return EM_NN_OK;
}
