/**
 * @file input_provider.h
 * @brief The image-classification app's inputs: held-out test images embedded at build time
 * (em_test_vectors.c, generated from apps/image_classification/model.py's test_vectors() and
 * quantized with the program's input quantization: int8 [32, 32, 3], rows top to bottom, RGB).
 *
 * A camera pipeline replaces input_fill with its own: each uint8 pixel p becomes
 * q = clamp(round(((p - 128) / 128) / scale) + zero_point, -128, 127), with the scale and
 * zero point of the program's input tensor (em_tensor.scale, em_tensor.zero_point).
 */
#ifndef IMAGE_CLASSIFICATION_INPUT_PROVIDER_H
#define IMAGE_CLASSIFICATION_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded images. */
uint32_t input_count(void);

/**
 * Copies image @p index (int8 NHWC [1, 32, 32, 3], 3,072 bytes) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity is too small.
 */
int input_fill(uint32_t index, int8_t *dest, size_t capacity);

#endif
