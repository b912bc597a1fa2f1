/**
 * @file em_runtime_tier.c
 * @brief em_runtime_tier(): the kernels' tier, from em_nn_tier.h (the one place that derives it).
 */
#include "em_nn_tier.h"
#include "ember.h"

em_tier em_runtime_tier(void)
{
    return (em_tier)EM_NN_TIER;
}
