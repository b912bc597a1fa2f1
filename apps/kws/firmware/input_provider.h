/**
 * @file input_provider.h
 * @brief The keyword-spotting app's inputs: 1 s clips of raw 16 kHz int16 audio embedded at build
 * time (em_test_vectors.c, generated from apps/kws/model.py's test_vectors()).
 *
 * A product replaces this file with its microphone driver: fill the program's input tensor with
 * the latest 16000 samples (int16 PCM, oldest first) before each invoke.
 */
#ifndef KWS_INPUT_PROVIDER_H
#define KWS_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded clips. */
uint32_t input_count(void);

/**
 * Copies clip @p index (int16 PCM, [1, 16000]) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity is too small.
 */
int input_fill(uint32_t index, int16_t *dest, size_t capacity);

#endif
