/**
 * @file input_provider.h
 * @brief The anomaly app's inputs: raw audio windows embedded at build time (em_test_vectors.c,
 * generated from apps/anomaly/model.py's test_vectors()). A product reads its microphone here:
 * the latest 3072 int16 samples at 16 kHz, oldest first, every 512 new samples.
 */
#ifndef ANOMALY_INPUT_PROVIDER_H
#define ANOMALY_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded audio windows. */
uint32_t input_count(void);

/**
 * Copies window @p index (int16 PCM, [1, 3072]) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity is too small.
 */
int input_fill(uint32_t index, int16_t *dest, size_t capacity);

#endif
