/**
 * The keyword-spotting app's answer to the serial link's GET_RESULT (serving firmware,
 * `scons app=kws serve=1`): the most probable class of the program's output, as
 * u8 class index, float32 probability (little-endian), then the label's characters (no NUL).
 * The output tensor is read as it stands: after a RUN, that inference's probabilities.
 */
#include <string.h>

#include "em_link.h"
#include "responder.h"

int32_t em_link_app_result(const em_program *program, uint8_t *const *arenas, uint8_t *out, uint32_t capacity) {
    em_tensor output;
    if (em_program_output(program, 0, arenas, &output) != EM_OK || output.size < sizeof(float)) {
        return -1;
    }
    const float *probabilities = (const float *)output.data;
    const uint32_t top = kws_top_class(probabilities, output.size / sizeof(float));
    if (top >= KWS_CLASSES) {
        return -1;
    }
    const size_t length = strlen(kws_labels[top]);
    if (capacity < 5u + length) {
        return -1;
    }
    const float score = probabilities[top];
    out[0] = (uint8_t)top;
    memcpy(out + 1, &score, sizeof score); /* every supported core is little-endian */
    memcpy(out + 5, kws_labels[top], length);
    return (int32_t)(5u + length);
}
