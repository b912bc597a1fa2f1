/**
 * @file em_float_conv2d_f32.c
 * @brief Float grouped 2-D convolution (depthwise: groups = C_IN), NHWC, portable float32 C.
 *        Taps run in (ky, kx, i) order and only inside the input (em_nn_float.h).
 */
#include <stddef.h>

#include "em_nn_float_support.h"

em_nn_status em_float_conv2d_f32(const em_conv_dims *dims, const em_float_conv_params *params, const float *input,
                                 const float *weights, const float *bias, em_float_activation act, float *output)
{
    if (dims == NULL || params == NULL || input == NULL || weights == NULL || bias == NULL || output == NULL
        || params->groups < 1 || dims->input_c % params->groups != 0 || dims->output_c % params->groups != 0
        || params->stride_h < 1 || params->stride_w < 1 || params->dilation_h < 1 || params->dilation_w < 1) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t group_in = dims->input_c / params->groups;
    const int32_t group_out = dims->output_c / params->groups;
    const size_t row = (size_t)dims->input_w * (size_t)dims->input_c;
    const size_t taps = (size_t)dims->kernel_h * (size_t)dims->kernel_w * (size_t)group_in;
    float *out = output;
    for (int32_t n = 0; n < dims->batches; n++) {
        const float *image = input + (size_t)n * (size_t)dims->input_h * row;
        for (int32_t oy = 0; oy < dims->output_h; oy++) {
            const int32_t y0 = oy * params->stride_h - params->pad_top;
            for (int32_t ox = 0; ox < dims->output_w; ox++) {
                const int32_t x0 = ox * params->stride_w - params->pad_left;
                for (int32_t o = 0; o < dims->output_c; o++) {
                    const float *in_group = image + (size_t)(o / group_out) * (size_t)group_in;
                    const float *w = weights + (size_t)o * taps;
                    float acc = bias[o];
                    for (int32_t ky = 0; ky < dims->kernel_h; ky++) {
                        const int32_t y = y0 + ky * params->dilation_h;
                        if (y < 0 || y >= dims->input_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < dims->kernel_w; kx++) {
                            const int32_t x = x0 + kx * params->dilation_w;
                            if (x < 0 || x >= dims->input_w) {
                                continue;
                            }
                            const float *pixel = in_group + (size_t)y * row + (size_t)x * (size_t)dims->input_c;
                            const float *tap = w + ((size_t)ky * (size_t)dims->kernel_w + (size_t)kx) * (size_t)group_in;
                            for (int32_t i = 0; i < group_in; i++) {
                                acc += pixel[i] * tap[i];
                            }
                        }
                    }
                    *out++ = em_nn_float_clamp(acc, act.min, act.max);
                }
            }
        }
    }
    return EM_NN_OK;
}
