/**
 * @file responder.h
 * @brief The wake word app's output side: each hop's probabilities in the line format
 * site_scons/ember_build/report.py parses, and the detection rule of apps/wakeword/detect.py
 * (its constants generated into em_app_generated.h from that module): a hop counts when the
 * probability of "marvin" is at or above WAKEWORD_THRESHOLD; the rule holds when at least
 * WAKEWORD_HITS of the last WAKEWORD_WINDOW hops count, and fires on the hop where it starts to
 * hold, unless it fired within the last WAKEWORD_REFRACTORY hops; it prints
 * `EM wake hop=<i> score=<per mille>`.
 */
#ifndef WAKEWORD_RESPONDER_H
#define WAKEWORD_RESPONDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Number of classes the model scores, in the model's output order (apps/wakeword/data.py LABELS). */
#define WAKEWORD_CLASSES 3u
#define WAKEWORD_CLASS_MARVIN 0u

/** The rule's state between hops: no heap, the caller owns it. */
typedef struct {
    uint32_t recent;     /**< bit i: whether hop (current - i) counted, for the last WAKEWORD_WINDOW hops */
    uint32_t last_fired; /**< hop of the last detection (valid when fired) */
    bool held;           /**< whether the rule held on the hop before */
    bool fired;          /**< whether the rule has fired since the reset */
} wakeword_detector;

/** The state of a stream's start: no counting hop yet, no detection. */
void wakeword_detector_reset(wakeword_detector *detector);

/**
 * One hop of the rule on @p marvin (the probability of "marvin").
 * @return true when the rule fires on hop @p hop (hops given in order, from 0).
 */
bool wakeword_detector_step(wakeword_detector *detector, uint32_t hop, float marvin);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>` (score = the
 * probability of "marvin"), then `EM wake hop=<index> score=<per mille>` when the rule fires.
 * @p output is the program's output tensor (float32 probabilities), @p size its bytes.
 */
void respond(wakeword_detector *detector, uint32_t index, uint64_t count, const float *output, size_t size);

#endif
