/**
 * The streaming wake word app: feeds the embedded audio to the program one 32 ms hop per invoke
 * (the log-mel front end and the DS-CNN both run in it, each on the new frame only), and reports
 * each hop's class probabilities, counted instructions per hop and the detections of the rule.
 * The program's state (the audio and activations it keeps between hops) is reset once, when the
 * program is opened (apps/common/firmware/em_app_model.c): the hops are one stream.
 * Exit status: 0 when every invoke ran, else the runtime status that stopped it.
 */
#include <stdint.h>

#include "em_app_model.h"
#include "input_provider.h"
#include "responder.h"

int em_app_main(void) {
    em_app_model model;
    em_status status = em_app_model_open(&model);
    if (status != EM_OK) {
        return (int)status;
    }
    wakeword_detector detector;
    wakeword_detector_reset(&detector);
    for (uint32_t i = 0; i < input_count(); ++i) {
        if (input_fill(i, (int16_t *)model.input.data, model.input.size) != 0) {
            return em_app_fail("input", EM_ERR_BAD_ARGUMENT);
        }
        uint64_t count;
        if ((status = em_app_model_invoke(&model, &count)) != EM_OK) {
            return (int)status;
        }
        respond(&detector, i, count, (const float *)model.output.data, model.output.size);
    }
    return em_app_model_finish();
}
