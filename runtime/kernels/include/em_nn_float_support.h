/**
 * @file em_float_support.h
 * @brief The output clamp every float kernel applies (header-only, so each kernel links alone).
 */
#ifndef EM_FLOAT_SUPPORT_H
#define EM_FLOAT_SUPPORT_H

#include "em_nn_float.h"

/** v < min ? min : v, then v > max ? max : v: NaN passes through (reference._clamp_f32). */
static inline float em_nn_float_clamp(float v, float min, float max)
{
    v = v < min ? min : v;
    return v > max ? max : v;
}

#endif /* EM_FLOAT_SUPPORT_H */
