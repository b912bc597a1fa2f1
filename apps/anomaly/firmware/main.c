/**
 * The anomaly app: runs every embedded audio window through the program (the log-mel front end
 * and the autoencoder are both in it; it returns the residual) and reports outputs, anomaly
 * scores, the normal/anomalous verdict and counted instructions per inference.
 * Loading, the arena and the timed invoke: apps/common/firmware/em_app_model.c.
 * Exit status: 0 when every inference ran, else the runtime status that stopped it.
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
    for (uint32_t i = 0; i < input_count(); ++i) {
        if (input_fill(i, (int16_t *)model.input.data, model.input.size) != 0) {
            return em_app_fail("input", EM_ERR_BAD_ARGUMENT);
        }
        uint64_t count;
        if ((status = em_app_model_invoke(&model, &count)) != EM_OK) {
            return (int)status;
        }
        const float score = anomaly_score((const float *)model.output.data, model.output.size / sizeof(float));
        respond(i, count, score, model.output.data, model.output.size);
    }
    return em_app_model_finish();
}
