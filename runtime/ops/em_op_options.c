/**
 * @file em_op_options.c
 * @brief em_op_option_i32s(): consecutive int32 option fields, one loop shared by the op adapters
 *        (conv2d, depthwise_conv2d, the pools, fully_connected) that read several.
 */
#include "em_op_support.h"

em_status em_op_option_i32s(const em_op_context *ctx, uint32_t first, const int8_t *defaults, uint32_t n,
                            int32_t *out)
{
    em_status s = EM_OK;
    for (uint32_t i = 0; s == EM_OK && i < n; i++) {
        s = em_op_option_i32(ctx, first + i, defaults[i], &out[i]);
    }
    return s;
}
