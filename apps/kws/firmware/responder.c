#include "responder.h"

#include "em_app_model.h"
#include "em_print.h"

const char *const kws_labels[KWS_CLASSES] = {"down", "go", "left", "no", "off", "on",
                                             "right", "stop", "up", "yes", "silence", "unknown"};

uint32_t kws_top_class(const float *probabilities, size_t n) {
    uint32_t best = 0;
    for (size_t i = 1; i < n; ++i) {
        if (probabilities[i] > probabilities[best]) {
            best = (uint32_t)i;
        }
    }
    return best;
}

void respond(uint32_t index, uint64_t count, const float *output, size_t size) {
    const size_t n = size / sizeof(float);
    const uint32_t top = kws_top_class(output, n);
    const float score = n ? output[top] : 0.0f;
    em_app_print_vector(index, count, score, output, size);
    em_print("EM keyword ");
    em_print_u64(index);
    em_print(" ");
    em_print(top < KWS_CLASSES ? kws_labels[top] : "?");
    em_print(" score=");
    /* per mille, rounded: no float formatting on the device */
    em_print_u64((uint64_t)(score * 1000.0f + 0.5f));
    em_print("\n");
}
