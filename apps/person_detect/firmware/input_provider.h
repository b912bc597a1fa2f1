/**
 * @file input_provider.h
 * @brief The person-detection app's inputs: images embedded at build time (em_test_vectors.c,
 * generated from apps/person_detect/model.py's test_vectors(), quantized to the program's int8
 * input: NHWC [1, S, S, 3], S = 128 for µYOLO, 96 for visual wake words).
 */
#ifndef PERSON_DETECT_INPUT_PROVIDER_H
#define PERSON_DETECT_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded images. */
uint32_t input_count(void);

/**
 * Copies image @p index (int8, the program's input quantization) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity differs from the image's size.
 */
int input_fill(uint32_t index, int8_t *dest, size_t capacity);

#endif
