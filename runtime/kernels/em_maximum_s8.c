/**
 * @file em_maximum_s8.c
 * @brief int8 elementwise maximum with broadcasting, exactly compiler/reference.py:maximum_s8
 *        (the loop and its tiers: em_nn_min_max.h).
 */
#include "em_nn_functions.h"
#include "em_nn_min_max.h"

em_nn_status em_maximum_s8(const em_broadcast_dims *dims, const int8_t *a, const int8_t *b, int8_t *output)
{
    return em_nn_min_max_s8(dims, a, b, output, true);
}
