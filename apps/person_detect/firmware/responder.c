#include "responder.h"

#include <string.h>

#include "em_print.h"

void print_vector_line(uint32_t index, uint64_t count, float score, const em_tensor *output) {
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
