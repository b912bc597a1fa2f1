#include "responder.h"

#include "em_app_model.h"
#include "em_link.h"
#include "em_print.h"
#include "ic_class_names.h"

uint32_t top_class(const int8_t *scores, size_t n) {
    uint32_t best = 0;
    for (size_t i = 1; i < n; ++i) {
        if (scores[i] > scores[best]) {
            best = (uint32_t)i;
        }
    }
    return best;
}

void respond(uint32_t index, uint64_t count, const int8_t *output, size_t size, float scale, int32_t zero_point) {
    const uint32_t best = top_class(output, size);
    const float probability = size ? scale * (float)((int32_t)output[best] - zero_point) : 0.0f;
    em_app_print_vector(index, count, probability, output, size);
    em_print("EM class ");
    em_print_u64(index);
    em_print(" ");
    em_print(best < IC_CLASS_COUNT ? ic_class_names[best] : "?");
    em_print(" probability=");
    em_print_i32((int32_t)(probability * 1000.0f + 0.5f));
    em_print("/1000\n");
}

int32_t em_link_app_result(const em_program *program, uint8_t *const *arenas, uint8_t *out, uint32_t capacity) {
    em_tensor output;
    if (capacity < 2 || em_program_output(program, 0, arenas, &output) != EM_OK || output.dtype != EM_DTYPE_INT8) {
        return -1;
    }
    const int8_t *scores = (const int8_t *)output.data;
    const uint32_t best = top_class(scores, output.size);
    out[0] = (uint8_t)best;
    out[1] = (uint8_t)scores[best];
    return 2;
}
