/**
 * @file em_op_mel_features.c
 * @brief MEL_FEATURES adapter: audio int16 [..., T] and the front end's constant tables (window,
 *        twiddles, mel_bands, mel_weights, log2_table[, dct]) -> features float32 [..., F, C] and
 *        scratch int32 [>= N + 2 + 2 n_mels], MelFeaturesOptions.
 *
 * check() verifies shapes and every table entry the kernel's arithmetic relies on (window and
 * twiddle magnitudes, band extents, eps exponents, log2 table entries in 0..2^24 (Q24), DCT and
 * log-scale ranges), so that no int32 or int64 sum of the kernel can overflow on any audio (bounds:
 * compiler/audio_features.py). Sizes: N a power of two in 8..4096, frame and band extents within
 * it; the remaining sizes are tensor dims, which the loader bounds.
 * The scratch is a planned arena tensor (an output no other op reads), not the stack.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

enum {
    EM_MEL_AUDIO, EM_MEL_WINDOW, EM_MEL_TWIDDLES, EM_MEL_BANDS, EM_MEL_WEIGHTS, EM_MEL_LOG2,
    EM_MEL_DCT, EM_MEL_MAX_INPUTS
};
enum { EM_MEL_FEATURES, EM_MEL_SCRATCH, EM_MEL_N_OUTPUTS };
enum { EM_MEL_BAND_FIELDS = 5, EM_MEL_LOG2_ENTRIES = 129 };

typedef struct {
    em_tensor in[EM_MEL_MAX_INPUTS]; /**< audio, tables; dct only when n_inputs == 7 */
    em_tensor out[EM_MEL_N_OUTPUTS];
    uint32_t n_inputs;
    em_mel_features_params params;
    em_mel_features_tables tables;
    int32_t batches;
} em_mel_args;

static em_status em_mel_decode(const em_op_context *ctx, em_mel_args *a)
{
    a->n_inputs = ctx->inputs.len == EM_MEL_MAX_INPUTS ? EM_MEL_MAX_INPUTS : EM_MEL_DCT;
    em_mel_features_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, a->n_inputs, a->out, EM_MEL_N_OUTPUTS);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_MEL_FEATURES);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MEL_FEATURES_OPTIONS_FRAME_STEP, 1, &p->frame_step);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MEL_FEATURES_OPTIONS_MAGNITUDE, 0, &p->magnitude);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_MEL_FEATURES_OPTIONS_LOG_SCALE, 0, &p->log_scale);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *in = a->in;
    const bool has_dct = a->n_inputs == EM_MEL_MAX_INPUTS;
    p->samples = in[EM_MEL_AUDIO].rank >= 1 ? em_op_dim(&in[EM_MEL_AUDIO], in[EM_MEL_AUDIO].rank - 1) : 0;
    p->frame_length = in[EM_MEL_WINDOW].rank == 1 ? em_op_dim(&in[EM_MEL_WINDOW], 0) : 0;
    p->fft_length = in[EM_MEL_TWIDDLES].rank == 2 ? 2 * em_op_dim(&in[EM_MEL_TWIDDLES], 0) : 0;
    p->n_mels = in[EM_MEL_BANDS].rank == 2 ? em_op_dim(&in[EM_MEL_BANDS], 0) : 0;
    p->coefficients = has_dct && in[EM_MEL_DCT].rank == 2 ? em_op_dim(&in[EM_MEL_DCT], 0) : 0;
    const em_mel_features_tables t = {
        (const int32_t *)in[EM_MEL_WINDOW].data, (const int32_t *)in[EM_MEL_TWIDDLES].data,
        (const int32_t *)in[EM_MEL_BANDS].data, (const int16_t *)in[EM_MEL_WEIGHTS].data,
        (const int32_t *)in[EM_MEL_LOG2].data, has_dct ? (const int32_t *)in[EM_MEL_DCT].data : NULL};
    a->tables = t;
    a->batches = p->samples > 0 ? (int32_t)(em_tensor_elements(&in[EM_MEL_AUDIO]) / (uint32_t)p->samples) : 0;
    return EM_OK;
}

/** Shapes and dtypes of the operands (ranks first, then each dimension). */
static bool em_mel_shapes_ok(const em_mel_args *a)
{
    const em_tensor *in = a->in, *features = &a->out[EM_MEL_FEATURES];
    const em_mel_features_params *p = &a->params;
    const int32_t n = p->fft_length, rank = in[EM_MEL_AUDIO].rank;
    if (in[EM_MEL_AUDIO].dtype != EM_DTYPE_INT16 || rank < 1
        || !em_op_is(&in[EM_MEL_WINDOW], EM_DTYPE_INT32, 1) || !em_op_is(&in[EM_MEL_TWIDDLES], EM_DTYPE_INT32, 2)
        || !em_op_is(&in[EM_MEL_BANDS], EM_DTYPE_INT32, 2) || !em_op_is(&in[EM_MEL_WEIGHTS], EM_DTYPE_INT16, 1)
        || !em_op_is(&in[EM_MEL_LOG2], EM_DTYPE_INT32, 1)
        || (a->n_inputs == EM_MEL_MAX_INPUTS && !em_op_is(&in[EM_MEL_DCT], EM_DTYPE_INT32, 2))
        || !em_op_is(features, EM_DTYPE_FLOAT32, rank + 1) || a->out[EM_MEL_SCRATCH].dtype != EM_DTYPE_INT32) {
        return false;
    }
    if (n < 8 || n > 4096 || (n & (n - 1)) != 0 || em_op_dim(&in[EM_MEL_TWIDDLES], 1) != 2
        || p->frame_length < 1 || p->frame_length > n || p->frame_step < 1 || p->samples < p->frame_length
        || a->batches < 1 /* no empty audio: em_mel_features_s16 takes one frame at least */
        || p->n_mels < 1 || em_op_dim(&in[EM_MEL_BANDS], 1) != EM_MEL_BAND_FIELDS
        || em_tensor_elements(&in[EM_MEL_LOG2]) != EM_MEL_LOG2_ENTRIES || (p->magnitude != 0 && p->magnitude != 1)
        || em_tensor_elements(&a->out[EM_MEL_SCRATCH]) * 4u
               < (uint32_t)em_mel_features_s16_get_buffer_size(n, p->n_mels)) {
        return false;
    }
    if (a->n_inputs == EM_MEL_MAX_INPUTS
        && (p->coefficients < 1 || em_op_dim(&in[EM_MEL_DCT], 1) != p->n_mels)) {
        return false;
    }
    for (int32_t k = 0; k + 1 < rank; k++) {
        if (em_op_dim(features, k) != em_op_dim(&in[EM_MEL_AUDIO], k)) {
            return false;
        }
    }
    const int32_t frames = (p->samples - p->frame_length) / p->frame_step + 1;
    return em_op_dim(features, rank - 1) == frames
           && em_op_dim(features, rank) == (p->coefficients > 0 ? p->coefficients : p->n_mels);
}

/** Table entries within the ranges that keep the kernel's sums in int32 / int64. */
static bool em_mel_tables_ok(const em_mel_args *a)
{
    const em_mel_features_params *p = &a->params;
    const em_mel_features_tables *t = &a->tables;
    const int64_t q30 = 1LL << 30;
    if (t->window == NULL || t->twiddles == NULL || t->mel_bands == NULL || t->mel_weights == NULL
        || t->log2_table == NULL || (p->coefficients > 0 && t->dct == NULL)) {
        return false; /* the tables must be constants (arena tensors have no data in check()) */
    }
    for (int32_t i = 0; i < p->frame_length; i++) {
        if (t->window[i] > q30 || t->window[i] < -q30) {
            return false;
        }
    }
    for (int32_t k = 0; k < p->fft_length / 2; k++) {
        const int64_t c = t->twiddles[2 * k], s = t->twiddles[2 * k + 1];
        if ((uint64_t)(c * c) + (uint64_t)(s * s) > (1ull << 60) + (1ull << 32)) {
            return false; /* |W| <= 1 (plus rounding): the FFT's growth stays bounded */
        }
    }
    int64_t weights = 0;
    for (int32_t m = 0; m < p->n_mels; m++) {
        const int32_t *band = t->mel_bands + EM_MEL_BAND_FIELDS * m;
        if (band[0] < 0 || band[1] < 0 || (int64_t)band[0] + band[1] > p->fft_length / 2 + 1
            || band[2] > q30 || band[2] < -q30 || band[3] < 0 || band[4] < -200 || band[4] > 40) {
            return false;
        }
        weights += band[1];
    }
    if (weights != (int64_t)em_tensor_elements(&a->in[EM_MEL_WEIGHTS])) {
        return false;
    }
    for (int64_t j = 0; j < weights; j++) {
        if (t->mel_weights[j] < 0) {
            return false;
        }
    }
    for (int32_t j = 0; j < EM_MEL_LOG2_ENTRIES; j++) {
        if (t->log2_table[j] < 0 || t->log2_table[j] > (1 << 24)) {
            return false; /* log2(1 + j/128) in Q24: with it every log value stays below 2^32 */
        }
    }
    for (int32_t c = 0; c < p->coefficients; c++) {
        int64_t row = 0; /* Σ |dct| <= 2^30 and |log2 values| < 2^32: the DCT sum fits int64 */
        for (int32_t m = 0; m < p->n_mels; m++) {
            const int64_t d = t->dct[c * p->n_mels + m];
            row += d < 0 ? -d : d;
        }
        if (row > (1LL << 30)) {
            return false;
        }
    }
    return p->log_scale <= (1 << 26) && p->log_scale >= -(1 << 26);
}

static em_status em_mel_check(const em_op_context *ctx)
{
    em_mel_args a;
    const em_status s = em_mel_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_mel_shapes_ok(&a) && em_mel_tables_ok(&a) ? EM_OK : EM_ERR_BAD_OPERATOR;
}

static em_status em_mel_eval(const em_op_context *ctx)
{
    em_mel_args a;
    const em_status s = em_mel_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_nn_context scratch = {a.out[EM_MEL_SCRATCH].data,
                                   (int32_t)(em_tensor_elements(&a.out[EM_MEL_SCRATCH]) * sizeof(int32_t)),
                                   0u /* no variants */};
    return em_op_status(em_mel_features_s16(&scratch, &a.params, &a.tables, a.batches,
                                            (const int16_t *)a.in[EM_MEL_AUDIO].data,
                                            (float *)a.out[EM_MEL_FEATURES].data));
}

const em_op_registration em_op_mel_features = {EM_OP_MEL_FEATURES, "mel_features", EM_OP_CHECK(em_mel_check),
                                               EM_OP_EVAL(em_mel_eval)};
