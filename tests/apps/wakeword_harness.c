/* Test harness for apps/wakeword/firmware/responder.c on the host (tests/apps/test_wakeword.py).
 * stdin: one hop a line, the float32 bits of its three probabilities in hex ("3f7f0000 0 0");
 * stdout: what the responder prints for the stream, with the vector lines left out (they are
 * em_app_model.c's, stubbed here): its `EM wake hop=<i> score=<per mille>` lines. */
#include <stdio.h>
#include <string.h>

#include "em_print.h"
#include "responder.h"

void em_print(const char *text) { fputs(text, stdout); }

void em_print_u64(uint64_t value) { printf("%llu", (unsigned long long)value); }

void em_app_print_vector(uint32_t index, uint64_t count, float score, const void *output, size_t size) {
    (void)index, (void)count, (void)score, (void)output, (void)size;
}

int main(void) {
    wakeword_detector detector;
    wakeword_detector_reset(&detector);
    unsigned bits[WAKEWORD_CLASSES];
    for (uint32_t hop = 0; scanf("%x %x %x", &bits[0], &bits[1], &bits[2]) == 3; ++hop) {
        float output[WAKEWORD_CLASSES];
        for (unsigned k = 0; k < WAKEWORD_CLASSES; ++k) {
            const uint32_t word = bits[k];
            memcpy(&output[k], &word, sizeof output[k]);
        }
        respond(&detector, hop, 0u, output, sizeof output);
    }
    return 0;
}
