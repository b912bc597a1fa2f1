/**
 * @file em_upsample_nearest.c
 * @brief Nearest-neighbour upsampling of an NHWC map by integer factors, any element size,
 *        exactly compiler/reference.py:upsample_nearest.
 *
 * Each input row becomes one output row (every pixel's C elements written scale_w times),
 * which is then copied scale_h - 1 times whole.
 */
#include <stddef.h>

#include "em_nn_copy.h"
#include "em_nn_data_movement.h"

em_nn_status em_upsample_nearest(const void *input, int32_t batches, int32_t h, int32_t w, int32_t c,
                                 int32_t scale_h, int32_t scale_w, int32_t element_size, void *output)
{
    if (input == NULL || output == NULL || batches < 1 || h < 1 || w < 1 || c < 1 || scale_h < 1 || scale_w < 1
        || !(element_size == 1 || element_size == 2 || element_size == 4)
        || (int64_t)batches * h * scale_h * w * scale_w * c * element_size > INT32_MAX) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t pixel = c * element_size;
    const int32_t out_row = pixel * w * scale_w;
    const uint8_t *in = (const uint8_t *)input;
    uint8_t *out = (uint8_t *)output;
    for (int32_t row = 0; row < batches * h; row++) {
        uint8_t *first = out;
        for (int32_t x = 0; x < w; x++) {
            for (int32_t r = 0; r < scale_w; r++) {
                em_nn_copy_bytes(out, in, pixel);
                out += pixel;
            }
            in += pixel;
        }
        for (int32_t r = 1; r < scale_h; r++) {
            em_nn_copy_bytes(out, first, out_row);
            out += out_row;
        }
    }
    return EM_NN_OK;
}
