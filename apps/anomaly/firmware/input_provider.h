/**
 * @file input_provider.h
 * @brief The anomaly app's inputs: feature windows embedded at build time (em_test_vectors.c,
 * generated from apps/anomaly/model.py's test_vectors()).
 */
#ifndef ANOMALY_INPUT_PROVIDER_H
#define ANOMALY_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded feature windows. */
uint32_t input_count(void);

/**
 * Copies window @p index (float32 log-mel dB values, [1, 640]) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity is too small.
 */
int input_fill(uint32_t index, float *dest, size_t capacity);

#endif
