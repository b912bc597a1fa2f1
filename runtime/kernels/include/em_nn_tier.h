/**
 * @file em_nn_tier.h
 * @brief The ONE place that derives the ISA tier of the kernels from the compiler's target macros.
 *
 * Exactly one of EM_NN_TIER_MVE, EM_NN_TIER_DSP, EM_NN_TIER_SCALAR is defined to 1, and
 * EM_NN_TIER is its number (0 scalar, 1 dsp, 2 mve: the schema's Tier enum). Kernels select
 * their ISA path with `#if EM_NN_TIER_MVE ... #elif EM_NN_TIER_DSP ... #else` and always keep
 * a scalar path. The tier is fixed at compile time; there is no run-time dispatch.
 *
 * - MVE:    integer Helium (`__ARM_FEATURE_MVE` bit 0), e.g. -mcpu=cortex-m55.
 * - DSP:    Armv7E-M / Armv8-M DSP extension (`__ARM_FEATURE_DSP`), e.g. cortex-m4, m33.
 * - SCALAR: everything else (M0, M3, hosts).
 *
 * EM_NN_MVE_FLOAT (0 or 1) tells, within the MVE tier, whether Helium has floating point.
 *
 * Define EM_NN_FORCE_SCALAR to build the scalar path on any target (for tests/benchmarks).
 * EM_NN_SIZING_TIER (0, 1, 2) sets the tier on any host, for em_nn_buffer_sizes.c ONLY: the
 * compiler builds that file per tier into a host library and asks it for scratch sizes.
 */
#ifndef EM_NN_TIER_H
#define EM_NN_TIER_H

#if defined(EM_NN_SIZING_TIER)
#define EM_NN_TIER_MVE (EM_NN_SIZING_TIER == 2)
#define EM_NN_TIER_DSP (EM_NN_SIZING_TIER == 1)
#define EM_NN_TIER_SCALAR (EM_NN_SIZING_TIER == 0)
#define EM_NN_TIER EM_NN_SIZING_TIER
#elif !defined(EM_NN_FORCE_SCALAR) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define EM_NN_TIER_MVE 1
#define EM_NN_TIER_DSP 0
#define EM_NN_TIER_SCALAR 0
#define EM_NN_TIER 2
#elif !defined(EM_NN_FORCE_SCALAR) && defined(__ARM_FEATURE_DSP) && (__ARM_FEATURE_DSP == 1)
#define EM_NN_TIER_MVE 0
#define EM_NN_TIER_DSP 1
#define EM_NN_TIER_SCALAR 0
#define EM_NN_TIER 1
#else
#define EM_NN_TIER_MVE 0
#define EM_NN_TIER_DSP 0
#define EM_NN_TIER_SCALAR 1
#define EM_NN_TIER 0
#endif

/* Floating-point Helium (`__ARM_FEATURE_MVE` bit 1, e.g. cortex-m55 with its FPU): the float
 * kernels (quantize, dequantize) vectorise only with it; integer-only MVE keeps their scalar path. */
#if EM_NN_TIER_MVE && (__ARM_FEATURE_MVE & 2)
#define EM_NN_MVE_FLOAT 1
#else
#define EM_NN_MVE_FLOAT 0
#endif

#endif /* EM_NN_TIER_H */
