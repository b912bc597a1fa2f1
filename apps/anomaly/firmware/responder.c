#include "responder.h"

#include "em_app_generated.h"
#include "em_app_model.h"
#include "em_print.h"

float anomaly_score(const float *residual, size_t n) {
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        sum += residual[i] * residual[i];
    }
    return n ? sum / (float)n : 0.0f;
}

int anomaly_verdict(float score) { return score > ANOMALY_THRESHOLD; }

/* <int>.<3 digits> of a non-negative value, rounded per mille, saturating at 4294967.295: no float
 * formatting on the device, and 32-bit arithmetic (a uint64 % would link libgcc's 64-bit
 * division, 800 bytes). apps/anomaly/model.py milli() is its Python twin. */
static void print_milli(float value) {
    const float scaled = value * 1000.0f + 0.5f;
    const uint32_t milli = scaled < 4294967296.0f ? (uint32_t)scaled : UINT32_MAX;
    const uint32_t fraction = milli % 1000u;
    em_print_u64(milli / 1000u);
    em_print(fraction < 10u ? ".00" : fraction < 100u ? ".0" : ".");
    em_print_u64(fraction);
}

void respond(uint32_t index, uint64_t count, float score, const void *output, size_t size) {
    em_app_print_vector(index, count, score, output, size);
    em_print("EM verdict vector=");
    em_print_u64(index);
    em_print(" score=");
    print_milli(score);
    em_print(" threshold=");
    print_milli(ANOMALY_THRESHOLD);
    em_print(" anomalous=");
    em_print_u64((uint64_t)anomaly_verdict(score));
    em_print("\n");
}
