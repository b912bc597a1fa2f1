/**
 * @file responder.h
 * @brief The image-classification app's output side: the most probable class of the program's
 * int8 softmax output, reported over the console in the line format
 * site_scons/ember_build/report.py parses, then the class name and its probability.
 */
#ifndef IMAGE_CLASSIFICATION_RESPONDER_H
#define IMAGE_CLASSIFICATION_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

/** Index of the largest of @p n int8 scores (the first one on a tie); 0 when @p n is 0. */
uint32_t top_class(const int8_t *scores, size_t n);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>`, where the
 * score is the top class's probability (@p scale × (q − @p zero_point), float32 bits, big endian),
 * then `EM class <index> <name> probability=<per mille>`. @p output is the program's int8 output
 * [1, classes], @p size its bytes; class names come from the checkpoint (ic_class_names.h).
 */
void respond(uint32_t index, uint64_t count, const int8_t *output, size_t size, float scale, int32_t zero_point);

/* The serving firmware's GET_RESULT (em_link.h's em_link_app_result) is defined in responder.c:
 * two bytes, the top class of the last run and its int8 score. */

#endif
