/**
 * @file em_nn_buffer_sizes.c
 * @brief Every kernel's *_get_buffer_size(), and the conv column size the kernel packs with, in
 *        one file that needs no ISA header: the compiler builds it for the host once per tier
 *        (-DEM_NN_SIZING_TIER=0/1/2, see em_nn_tier.h; compiler/scratch.py) and plans the scratch
 *        these functions ask for, so that the plan and the kernels read the same numbers.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_tier.h"

int32_t em_nn_conv_col_bytes(const em_conv_params *p, const em_conv_dims *d)
{
    const int32_t k = d->kernel_h * d->kernel_w * (d->input_c / p->groups);
#if EM_NN_TIER_MVE
    return (k + 15) & ~15; /* 16-byte vector stores */
#else
    return (k + 3) & ~3; /* word reads */
#endif
}

int32_t em_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims)
{
    if (params == NULL || dims == NULL || params->groups < 1 || dims->input_c < 1
        || dims->kernel_h < 1 || dims->kernel_w < 1) {
        return 0;
    }
#if EM_NN_TIER_MVE
    /* A block of 4 columns; contiguous columns (1x1 kernels ...) need scratch only at padded
     * borders. The kernel packs as many columns as ctx->size holds. */
    return 4 * em_nn_conv_col_bytes(params, dims);
#elif EM_NN_TIER_DSP
    return 4 * em_nn_conv_col_bytes(params, dims); /* two columns and their interleaved copy */
#else
    return em_nn_conv_col_bytes(params, dims);
#endif
}

int32_t em_nn_dwf_rows_bytes(const em_conv_params *p, const em_conv_dims *d)
{
#if EM_NN_TIER_MVE
    /* Every factor is bounded before it is multiplied, so that a malformed program's stride or
     * padding cannot wrap a huge row into a small size (the kernel would then stage rows outside
     * the scratch): a row or a step of more than EM_NN_DWF_ROWS_MAX bytes never fits anyway. */
    const int32_t max = EM_NN_DWF_ROWS_MAX;
    if (p == NULL || d == NULL || p->depth_multiplier != 1 || d->kernel_h < 1 || d->kernel_h > EM_NN_DWF_MAX_TAPS
        || d->kernel_w < 1 || d->kernel_w > EM_NN_DWF_MAX_TAPS || d->kernel_h * d->kernel_w > EM_NN_DWF_MAX_TAPS
        || d->input_c < 1 || d->input_c > EM_NN_DWF_MAX_CHANNELS
        || p->stride_w < 1 || p->stride_w > max || p->dilation_w < 1 || p->dilation_w > max || d->output_w < 1
        || d->output_w > max || d->input_w < 1 || d->input_w > max || p->pad_left < 0 || p->pad_left > max) {
        return 0;
    }
    const int32_t c = d->input_c;
    const bool blocks = c % 4 == 0 && d->kernel_h == 3 && d->kernel_w == 3 && p->stride_w == 1 && p->dilation_w == 1;
    if (c < 16 && !blocks) { /* the general path's layers (em_nn_depthwise_m1_s8) */
        return 0;
    }
    /* columns past the input that the last window reaches (below 2^25: the bounds above) */
    const int32_t right = (d->output_w - 1) * p->stride_w + (d->kernel_w - 1) * p->dilation_w + 1 - p->pad_left
                          - d->input_w;
    const int32_t row = p->pad_left + d->input_w + (right > 0 ? right : 0);
    if (row > max) {
        return 0;
    }
    const int32_t bytes = d->kernel_h * row * c; /* <= 49 · 4096 · 512: no wrap */
    return bytes <= max ? bytes : 0;
#else
    (void)p;
    (void)d;
    return 0;
#endif
}

int32_t em_depthwise_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims)
{
    return em_nn_dwf_rows_bytes(params, dims); /* the Helium fast path's padded rows */
}

int32_t em_fully_connected_s8_get_buffer_size(const em_fc_dims *dims)
{
    (void)dims;
    return 0;
}

int32_t em_avg_pool_s8_get_buffer_size(const em_pool_params *params, const em_pool_dims *dims)
{
    (void)params;
    (void)dims;
    return 0;
}

int32_t em_softmax_s8_get_buffer_size(int32_t rows, int32_t row_size)
{
    if (rows < 1 || row_size < 1 || row_size > EM_SOFTMAX_MAX_ROW
        || (int64_t)rows * row_size < EM_SOFTMAX_TABLE_MIN_VALUES) {
        return 0;
    }
    return 256 * (int32_t)sizeof(int32_t);
}

int32_t em_mel_features_s16_get_buffer_size(int32_t fft_length, int32_t n_mels)
{
    return (int32_t)sizeof(int32_t) * (fft_length + 2 + 2 * n_mels);
}

/* Recurrent layers: the gates' int16 input and recurrent parts (G·H each), LSTM's int16 cell
 * state (H), the int16 Q0.15 hidden state (H); 4-byte multiples. Hidden sizes past
 * EM_NN_RNN_HIDDEN_MAX are refused. */
static int32_t em_nn_rnn_scratch(int32_t gates, int32_t hidden, int32_t cell)
{
    if (hidden < 1 || hidden > EM_NN_RNN_HIDDEN_MAX) {
        return 0;
    }
    return (2 * 2 * gates * hidden + 2 * cell * hidden + 2 * hidden + 3) & ~3;
}

int32_t em_gru_s8_get_buffer_size(int32_t hidden)
{
    return em_nn_rnn_scratch(3, hidden, 0);
}

int32_t em_lstm_s8_get_buffer_size(int32_t hidden)
{
    return em_nn_rnn_scratch(4, hidden, 1);
}

int32_t em_conv2d_s16_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims)
{
    if (params == NULL || dims == NULL || params->groups < 1 || dims->input_c < 1 || dims->kernel_h < 1
        || dims->kernel_w < 1 || dims->kernel_h > EM_NN_CONV_S16_MAX_COLUMN
        || dims->kernel_w > EM_NN_CONV_S16_MAX_COLUMN
        || dims->input_c / params->groups > EM_NN_CONV_S16_MAX_COLUMN) {
        return 0;
    }
    const int64_t k = (int64_t)dims->kernel_h * dims->kernel_w * (dims->input_c / params->groups);
    const bool in_place = dims->kernel_h == 1 && dims->kernel_w == 1 && params->pad_top == 0
                          && params->pad_bottom == 0 && params->pad_left == 0 && params->pad_right == 0;
    if (in_place || k > EM_NN_CONV_S16_MAX_COLUMN) {
        return 0;
    }
    return (int32_t)((2 * k + 15) & ~(int64_t)15); /* one column of K int16, on every tier */
}
