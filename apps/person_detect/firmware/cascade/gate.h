/**
 * @file gate.h
 * @brief model=cascade: the visual wake words gate's side. Its input is derived from the frame on
 * the device (a nearest-neighbour downscale, a byte gather: the gate and µYOLO take the same int8
 * input quantization, which the build checks), its output printed as the vww model prints it.
 * PD_FRAME_SIDE and PD_GATE_SIDE come from em_app_generated.h (apps/person_detect/model.py Cascade).
 */
#ifndef PERSON_DETECT_GATE_H
#define PERSON_DETECT_GATE_H

#include <stdint.h>

#include "ember.h"

/**
 * Writes the gate's input, int8 NHWC [1, PD_GATE_SIDE, PD_GATE_SIDE, 3], from @p frame, int8 NHWC
 * [1, PD_FRAME_SIDE, PD_FRAME_SIDE, 3]: gate pixel (y, x) takes frame pixel
 * (((2y + 1) · PD_FRAME_SIDE) / (2 · PD_GATE_SIDE), the same for x), the pixel under its centre
 * (model.py gate_input is the twin).
 * @return 0, or -1 when @p input is not an int8 tensor of the gate's size.
 */
int pd_gate_input(const int8_t *frame, const em_tensor *input);

/**
 * Reports gate inference @p index: the vector line, then `EM label <index> person=<0|1>
 * bytes=<no person>,<person>` (as firmware/vww/responder.c; model.py label_line is the twin).
 * @return 1 when the gate says person (the person byte exceeds the other), 0 when not, -1 when
 *         @p output is not the gate's int8 [1, 2].
 */
int pd_gate_respond(uint32_t index, uint64_t count, const em_tensor *output);

#endif
