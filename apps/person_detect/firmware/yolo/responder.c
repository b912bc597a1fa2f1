#include "responder.h"

#include <string.h>

#include "detect.h"
#include "em_print.h"

/* Prints the report line; score_bits: the best cell's objectness value, dequantized
 * (scale · (q − zero point): one float multiply, not compared by the check). */
static void print_vector(uint32_t index, uint64_t count, const em_tensor *output, int8_t best) {
    const float score = output->scale * (float)((int32_t)best - output->zero_point);
    uint32_t bits;
    memcpy(&bits, &score, sizeof bits);
    const uint8_t be[4] = {(uint8_t)(bits >> 24), (uint8_t)(bits >> 16), (uint8_t)(bits >> 8), (uint8_t)bits};
    em_print("EM vector ");
    em_print_u64(index);
    em_print(" instructions=");
    em_print_u64(count);
    em_print(" score_bits=");
    em_print_hex(be, sizeof be);
    em_print(" output=");
    em_print_hex(output->data, output->size);
    em_print("\n");
}

int respond(uint32_t index, uint64_t count, const em_tensor *output) {
    if (output->dtype != EM_DTYPE_INT8) {
        return -1;
    }
    pd_detections found;
    if (pd_decode((const int8_t *)output->data, output->size, &found) != 0) {
        return -1;
    }
    int8_t best = -128;
    for (uint32_t cell = 0; cell < output->size; cell += PD_CELL_VALUES) {
        const int8_t v = ((const int8_t *)output->data)[cell];
        best = v > best ? v : best;
    }
    print_vector(index, count, output, best);
    em_print("EM boxes ");
    em_print_u64(index);
    em_print(" n=");
    em_print_u64(found.count);
    for (uint32_t i = 0; i < found.count; ++i) {
        const pd_box *b = &found.boxes[i];
        em_print(" ");
        em_print_i32(b->score);
        em_print("@");
        em_print_u64(b->cell);
        em_print(":");
        em_print_u64(b->x0);
        em_print(",");
        em_print_u64(b->y0);
        em_print(",");
        em_print_u64(b->x1);
        em_print(",");
        em_print_u64(b->y1);
    }
    em_print("\n");
    return 0;
}
