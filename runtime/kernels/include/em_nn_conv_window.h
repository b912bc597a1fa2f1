/**
 * @file em_nn_conv_window.h
 * @brief Where a convolution's window lies in its input: tier-neutral, for the kernels and for
 *        the paths' checks at load (em_conv_validate_s8.c, which the host verifier builds too).
 */
#ifndef EM_NN_CONV_WINDOW_H
#define EM_NN_CONV_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_functions.h"

/** True when the column of output pixel (column of the input x0) is contiguous in the input:
 *  one kernel row, taps adjacent (dilation_w 1 or KW 1), one group, window inside the input. */
static inline bool em_nn_conv_in_place(const em_conv_params *p, const em_conv_dims *d, int32_t iy0,
                                       int32_t ix0)
{
    return d->kernel_h == 1 && (d->kernel_w == 1 || p->dilation_w == 1) && p->groups == 1
           && iy0 >= 0 && iy0 < d->input_h && ix0 >= 0 && ix0 + d->kernel_w - 1 < d->input_w;
}

#endif /* EM_NN_CONV_WINDOW_H */
