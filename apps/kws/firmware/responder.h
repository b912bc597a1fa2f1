/**
 * @file responder.h
 * @brief The keyword-spotting app's output side: the most probable of the 12 classes, reported
 * over the console in the line format site_scons/ember_build/report.py parses, plus a line
 * naming the keyword.
 */
#ifndef KWS_RESPONDER_H
#define KWS_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

/** Number of classes the model scores (the 10 keywords, silence, unknown). */
#define KWS_CLASSES 12u

/** Class names in the model's output order (apps/kws/data.py LABELS). */
extern const char *const kws_labels[KWS_CLASSES];

/**
 * Index of the highest of @p n probabilities (the first one on ties); 0 when @p n is 0.
 */
uint32_t kws_top_class(const float *probabilities, size_t n);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>` (score =
 * the top class's probability) then `EM keyword <index> <label> score=<per mille>`.
 * @p output is the program's output tensor (float32 probabilities), @p size its bytes.
 */
void respond(uint32_t index, uint64_t count, const float *output, size_t size);

#endif
