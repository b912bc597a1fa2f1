#include "responder.h"

#include "detect.h"
#include "em_print.h"

int respond(uint32_t index, uint64_t count, const em_tensor *output) {
    if (output->dtype != EM_DTYPE_INT8) {
        return -1;
    }
    pd_detections found;
    if (pd_decode((const int8_t *)output->data, output->size, &found) != 0) {
        return -1;
    }
    int8_t best = -128;
    for (uint32_t cell = 0; cell < output->size; cell += PD_CELL_VALUES) {
        const int8_t v = ((const int8_t *)output->data)[cell];
        best = v > best ? v : best;
    }
    /* score: the best cell's objectness value, dequantized (one float multiply; not compared) */
    print_vector_line(index, count, output->scale * (float)((int32_t)best - output->zero_point), output);
    em_print("EM boxes ");
    em_print_u64(index);
    em_print(" n=");
    em_print_u64(found.count);
    for (uint32_t i = 0; i < found.count; ++i) {
        const pd_box *b = &found.boxes[i];
        em_print(" ");
        em_print_i32(b->score);
        em_print("@");
        em_print_u64(b->cell);
        const uint16_t corners[4] = {b->x0, b->y0, b->x1, b->y1};
        for (uint32_t k = 0; k < 4; ++k) {
            em_print(k == 0 ? ":" : ",");
            em_print_u64(corners[k]);
        }
    }
    em_print("\n");
    return 0;
}
