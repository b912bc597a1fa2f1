/**
 * @file responder.h
 * @brief The anomaly app's output side: the program returns the residual features −
 * reconstruction; anomaly score = its mean square (the mean squared reconstruction error of the
 * log-mel features, in dB²); the window is anomalous when the score is strictly greater than
 * ANOMALY_THRESHOLD (em_app_generated.h, from the checkpoint: chosen on validation windows by
 * apps/anomaly/train.py). Reported over the console in the line formats
 * site_scons/ember_build/report.py parses.
 */
#ifndef ANOMALY_RESPONDER_H
#define ANOMALY_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

/** Mean of residual[i]^2 over @p n float32 values, summed in index order in float32 (0 when
 * @p n is 0); apps/anomaly/model.py device_score() is its bit-exact Python twin. */
float anomaly_score(const float *residual, size_t n);

/** 1 when @p score (dB², as anomaly_score returns it) is greater than ANOMALY_THRESHOLD, else 0. */
int anomaly_verdict(float score);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>` and
 * `EM verdict vector=<index> score=<score, 3 decimals> threshold=<threshold, 3 decimals> anomalous=<0|1>`.
 * @p output is the program's output tensor, @p size its bytes.
 */
void respond(uint32_t index, uint64_t count, float score, const void *output, size_t size);

#endif
