#include "input_provider.h"

#include <string.h>

#include "em_test_vectors.h"

uint32_t input_count(void) { return EM_TEST_VECTOR_COUNT; }

int input_fill(uint32_t index, int16_t *dest, size_t capacity) {
    if (index >= EM_TEST_VECTOR_COUNT || capacity < sizeof em_test_vectors[0]) {
        return -1;
    }
    memcpy(dest, em_test_vectors[index], sizeof em_test_vectors[0]);
    return 0;
}
