/**
 * @file responder.h
 * @brief The person-detection app's output side, one per model (firmware/yolo/, firmware/vww/):
 * prints the line site_scons/ember_build/report.py parses,
 *   EM vector <i> instructions=<n> score_bits=<float, 8 hex digits> output=<hex bytes>
 * and the model's result line that the build compares with the Python twin's verbatim:
 *   EM boxes <i> n=<k> <score>@<cell>:<x0>,<y0>,<x1>,<y1> ...   (µYOLO, apps/person_detect/detect.py)
 *   EM label <i> person=<0|1> bytes=<no person>,<person>         (visual wake words)
 */
#ifndef PERSON_DETECT_RESPONDER_H
#define PERSON_DETECT_RESPONDER_H

#include <stdint.h>

#include "ember.h"

/**
 * Reports inference @p index: @p count counted instructions (or ns on the host) and @p output,
 * the program's int8 output tensor (µYOLO [1, 245], visual wake words [1, 2]).
 * @return 0, or -1 when @p output is not the int8 tensor this model expects.
 */
int respond(uint32_t index, uint64_t count, const em_tensor *output);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>` (responder.c,
 * shared by both models); @p score is printed as its float32 bits, big-endian.
 */
void print_vector_line(uint32_t index, uint64_t count, float score, const em_tensor *output);

#endif
