#include "responder.h"

#include "em_app_model.h"

void print_vector_line(uint32_t index, uint64_t count, float score, const em_tensor *output) {
    em_app_print_vector(index, count, score, output->data, output->size);
}
