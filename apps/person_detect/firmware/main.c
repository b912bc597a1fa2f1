/**
 * The person-detection app (µYOLO or visual wake words, by the build's model=): runs every
 * embedded image through the program and reports the raw output, the model's result (boxes after
 * decoding and NMS, or the label) and counted instructions per inference.
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
    if (model.input.dtype != EM_DTYPE_INT8 || model.output.dtype != EM_DTYPE_INT8) {
        return em_app_fail("io (the app needs int8_io: true in app.yaml)", EM_ERR_BAD_ARGUMENT);
    }
    for (uint32_t i = 0; i < input_count(); ++i) {
        if (input_fill(i, (int8_t *)model.input.data, model.input.size) != 0) {
            return em_app_fail("input", EM_ERR_BAD_ARGUMENT);
        }
        uint64_t count;
        if ((status = em_app_model_invoke(&model, &count)) != EM_OK) {
            return (int)status;
        }
        if (respond(i, count, &model.output) != 0) {
            return em_app_fail("output", EM_ERR_BAD_ARGUMENT);
        }
    }
    return em_app_model_finish();
}
