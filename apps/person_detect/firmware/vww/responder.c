#include "responder.h"

#include "em_print.h"

/* Visual wake words: output [1, 2] int8 (no person, person), softmax probabilities. The label is
 * 1 when the person byte exceeds the other (ties: no person), as model.py's vww_label. */
int respond(uint32_t index, uint64_t count, const em_tensor *output) {
    if (output->dtype != EM_DTYPE_INT8 || output->size != 2) {
        return -1;
    }
    const int8_t *q = (const int8_t *)output->data;
    /* score: the person probability, scale · (q − zero point) (one float multiply; not compared) */
    print_vector_line(index, count, output->scale * (float)((int32_t)q[1] - output->zero_point), output);
    em_print("EM label ");
    em_print_u64(index);
    em_print(" person=");
    em_print_u64(q[1] > q[0] ? 1u : 0u);
    em_print(" bytes=");
    em_print_i32(q[0]);
    em_print(",");
    em_print_i32(q[1]);
    em_print("\n");
    return 0;
}
