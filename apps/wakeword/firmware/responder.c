#include "responder.h"

#include "em_app_generated.h"
#include "em_app_model.h"
#include "em_print.h"

void wakeword_detector_reset(wakeword_detector *detector) {
    detector->recent = 0u;
    detector->last_fired = 0u;
    detector->held = false;
    detector->fired = false;
}

bool wakeword_detector_step(wakeword_detector *detector, uint32_t hop, float marvin) {
    /* the same float32 compare as detect.py's (scores >= np.float32(threshold)) */
    const uint32_t window = WAKEWORD_WINDOW == 32u ? 0xffffffffu : (1u << WAKEWORD_WINDOW) - 1u;
    detector->recent = ((detector->recent << 1) | (marvin >= WAKEWORD_THRESHOLD ? 1u : 0u)) & window;
    const bool holds = (uint32_t)__builtin_popcount(detector->recent) >= WAKEWORD_HITS;
    const bool starts = holds && !detector->held; /* once per stretch the rule holds: where it starts */
    detector->held = holds;
    if (!starts || (detector->fired && hop - detector->last_fired <= WAKEWORD_REFRACTORY)) {
        return false;
    }
    detector->fired = true;
    detector->last_fired = hop;
    return true;
}

void respond(wakeword_detector *detector, uint32_t index, uint64_t count, const float *output, size_t size) {
    const float marvin = size >= WAKEWORD_CLASSES * sizeof(float) ? output[WAKEWORD_CLASS_MARVIN] : 0.0f;
    em_app_print_vector(index, count, marvin, output, size);
    if (wakeword_detector_step(detector, index, marvin)) {
        em_print("EM wake hop=");
        em_print_u64(index);
        em_print(" score=");
        em_print_u64((uint64_t)(marvin * 1000.0f)); /* per mille, truncated (detect.py wake_line): no printf */
        em_print("\n");
    }
}
