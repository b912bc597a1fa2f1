#include "gate.h"

#include <string.h>

#include "em_app_generated.h"
#include "em_print.h"
#include "responder.h"

#define PD_CHANNELS 3u

int pd_gate_input(const int8_t *frame, const em_tensor *input) {
    if (input->dtype != EM_DTYPE_INT8 || input->size != PD_GATE_SIDE * PD_GATE_SIDE * PD_CHANNELS) {
        return -1;
    }
    int8_t *out = (int8_t *)input->data;
    for (uint32_t y = 0; y < PD_GATE_SIDE; ++y) {
        const uint32_t sy = ((2u * y + 1u) * PD_FRAME_SIDE) / (2u * PD_GATE_SIDE);
        for (uint32_t x = 0; x < PD_GATE_SIDE; ++x) {
            const uint32_t sx = ((2u * x + 1u) * PD_FRAME_SIDE) / (2u * PD_GATE_SIDE);
            memcpy(out, frame + (sy * PD_FRAME_SIDE + sx) * PD_CHANNELS, PD_CHANNELS);
            out += PD_CHANNELS;
        }
    }
    return 0;
}

/* As firmware/vww/responder.c respond(), which a cascade cannot link beside µYOLO's respond(). */
int pd_gate_respond(uint32_t index, uint64_t count, const em_tensor *output) {
    if (output->dtype != EM_DTYPE_INT8 || output->size != 2) {
        return -1;
    }
    const int8_t *q = (const int8_t *)output->data;
    const int person = q[1] > q[0] ? 1 : 0;
    print_vector_line(index, count, output->scale * (float)((int32_t)q[1] - output->zero_point), output);
    em_print("EM label ");
    em_print_u64(index);
    em_print(" person=");
    em_print_u64((uint64_t)person);
    em_print(" bytes=");
    em_print_i32(q[0]);
    em_print(",");
    em_print_i32(q[1]);
    em_print("\n");
    return person;
}
