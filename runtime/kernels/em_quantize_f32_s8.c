/**
 * @file em_quantize_f32_s8.c
 * @brief float32 -> int8 quantization, exactly compiler/reference.py:quantize_f32_s8.
 *
 * Float32 only, and the product must not be fused with anything: build with -ffp-contract=off.
 * One scalar path on every tier (it runs once per inference, at the program's boundary).
 */
#include <math.h>

#include "em_nn_functions.h"

em_status em_quantize_f32_s8(const float *input, int32_t count, float inv_scale,
                             int32_t zero_point, int8_t *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const float zp = (float)zero_point;
    for (int32_t i = 0; i < count; i++) {
        const float product = input[i] * inv_scale;
        float q = nearbyintf(product) + zp;
        if (q != q) { /* NaN (x NaN, or inf * 0) */
            q = zp;
        }
        q = q < -128.0f ? -128.0f : q;
        q = q > 127.0f ? 127.0f : q;
        output[i] = (int8_t)q;
    }
    return EM_OK;
}
