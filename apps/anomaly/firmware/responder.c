#include "responder.h"

#include <string.h>

#include "em_print.h"

float anomaly_score(const float *residual, size_t n) {
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        sum += residual[i] * residual[i];
    }
    return n ? sum / (float)n : 0.0f;
}

void respond(uint32_t index, uint64_t count, float score, const void *output, size_t size) {
    uint32_t bits;
    memcpy(&bits, &score, sizeof bits);
    uint8_t be[4] = {(uint8_t)(bits >> 24), (uint8_t)(bits >> 16), (uint8_t)(bits >> 8), (uint8_t)bits};
    em_print("EM vector ");
    em_print_u64(index);
    em_print(" instructions=");
    em_print_u64(count);
    em_print(" score_bits=");
    em_print_hex(be, sizeof be);
    em_print(" output=");
    em_print_hex(output, size);
    em_print("\n");
}
