/**
 * @file responder.h
 * @brief The anomaly app's output side: the program returns the residual features −
 * reconstruction; anomaly score = its mean square (the mean squared reconstruction error),
 * reported over the console in the line format site_scons/ember_build/report.py parses.
 */
#ifndef ANOMALY_RESPONDER_H
#define ANOMALY_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

/** Mean of residual[i]^2 over @p n float32 values, summed in index order (0 when @p n is 0). */
float anomaly_score(const float *residual, size_t n);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>`.
 * @p output is the program's output tensor, @p size its bytes.
 */
void respond(uint32_t index, uint64_t count, float score, const void *output, size_t size);

#endif
