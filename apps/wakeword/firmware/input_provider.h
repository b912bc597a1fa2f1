/**
 * @file input_provider.h
 * @brief The wake word app's input: consecutive 32 ms hops of raw 16 kHz int16 audio embedded at
 * build time (em_test_vectors.c, generated from apps/wakeword/model.py's test_vectors()), one hop
 * per invoke of the streamed program.
 *
 * A product replaces this file with its microphone driver: before each invoke, fill the program's
 * input tensor with the 512 samples (int16 PCM, oldest first) that followed the previous hop's.
 * The program keeps the samples and activations it still needs from earlier hops itself.
 */
#ifndef WAKEWORD_INPUT_PROVIDER_H
#define WAKEWORD_INPUT_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of embedded hops. */
uint32_t input_count(void);

/**
 * Copies hop @p index (int16 PCM, [1, 512]) into @p dest of @p capacity bytes.
 * @return 0 on success, -1 if @p index is out of range or @p capacity is too small.
 */
int input_fill(uint32_t index, int16_t *dest, size_t capacity);

#endif
