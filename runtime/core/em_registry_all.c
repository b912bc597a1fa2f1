/* Registry of every operator, for the host runner, tests and the fuzzer (firmware uses the
 * compiler-generated em_registry.c of the same form instead; link exactly one of them). */
#include "em_registry.h"
extern const em_op_registration em_op_quantize, em_op_dequantize, em_op_fully_connected;
const em_op_registration *const em_registry[] = { &em_op_quantize, &em_op_dequantize, &em_op_fully_connected };
const uint32_t em_registry_count = 3;
