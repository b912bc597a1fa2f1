"""Audio front ends as an Ember op: raw int16 PCM in, MFCC or log-mel features out.

Three front ends are defined, each a `FrontEnd` (frozen dataclass):

* `MFCC_KWS` — the MLPerf Tiny keyword-spotting features, `mfcc(audio)`: int16 PCM
  [..., 16000] (1 s at 16 kHz) → float32 [..., 49, 10].
* `LOG_MEL_ANOMALY` — the MLPerf Tiny anomaly-detection features, `log_mel(audio)`: int16 PCM
  [..., 3072] → float32 [..., 5, 128] (the model's 640 inputs, frame-major).
* `LOG_MEL_WAKEWORD` — the MLPerf Tiny streaming wake word's 40 log-mel bands, 1024-sample frames
  every 512: int16 PCM [..., 15872] → float32 [..., 30, 40]; streamed (compiler.options.Stream(1,
  512)) it takes 512 new samples per invoke and makes one frame.

What they follow (facts checked against the sources, 2026-11-30):

* MLPerf Tiny `benchmark/training/keyword_spotting/get_dataset.py` (mlcommons/tiny):
  `tf.signal.stft(frame_length=window_size_samples (30 ms = 480), frame_step=window_stride_samples
  (20 ms = 320), fft_length=None (→ 512, the next power of two), window_fn=tf.signal.hann_window)`,
  `tf.abs` (magnitude), `tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 4000.0)`,
  `tf.math.log(mel + 1e-6)`, `tf.signal.mfccs_from_log_mel_spectrograms(...)[..., :10]`.
  49 frames = (16000 − 480) // 320 + 1 (the last 160 samples are not used).
  (That script first divides each clip by its own maximum; here the scale is fixed: x / 32768.
  Normalising the level, if wanted, is the app's job before the front end.)
* TensorFlow `mel_ops.py`: HTK mel scale mel(f) = 1127·ln(1 + f/700); num_mel_bins + 2 edges
  equally spaced in mel between the lower and upper edge; triangles computed in the mel domain,
  peak 1, no normalisation; the DC bin gets weight 0 ("HTK excludes the spectrogram DC bin").
* TensorFlow `mfcc_ops.py`: MFCC = DCT-II (unnormalised: 2·Σ x_m cos(π k (2m + 1) / 2M)) of the
  log-mel spectrogram times rsqrt(2·M), M = num_mel_bins.
* MLPerf Tiny anomaly detection (DCASE 2020 task 2 baseline, `common.py`):
  `librosa.feature.melspectrogram(n_fft=1024, hop_length=512, n_mels=128, power=2.0)` then
  `20 / power · log10(mel + sys.float_info.epsilon)`, 5 consecutive frames → 640 values.
  librosa's defaults are taken: periodic Hann window, Slaney mel scale and Slaney area
  normalisation (norm="slaney"), 0 Hz to sample_rate / 2. One difference: librosa centres its
  frames (pads n_fft / 2 on both sides); here 3072 samples give exactly 5 uncentred frames.
* Audio is int16 PCM; the float definitions above read it as x / 32768.

Numerics: integer, bit-exact on every tier
-------------------------------------------
The op computes with integers only (`features_int`, mirrored by the C kernels
`runtime/kernels/em_mel_features_s16.c`); the float32 result is q · 2^-16 for an int32 q, which
converts exactly (|q| < 2^24) or with IEEE round-to-nearest-even, the same everywhere. Per frame:

1. v[n] = x[n] · w[n] (int64, |v| <= 2^45), w the Q30 periodic Hann window (int32).
2. Block scaling: sh = B − bitlen(max|v|) with B = 29 − log2(N) (a zero frame counts as
   max 1), then v << sh, or the rounding right shift (v + 2^(s−1)) >> s for s = −sh > 0.
   Now |v| <= 2^B: room for the FFT's growth in int32.
3. Real N-point FFT as an N/2-point complex radix-2 DIT FFT of z[n] = v[2n] + i·v[2n+1]
   (bit-reversed input order, Q30 twiddles cos/sin(2πj/N), each complex product rounded
   (p + 2^29) >> 30, no per-stage scaling), then the split step, which gives 2·X[k], k = 0..N/2.
4. P[k] = (2Xr)² + (2Xi)² (int64, <= 2^61). Magnitude front ends: mag = isqrt(P >> s2) << (s2/2),
   s2 the smallest even shift with P >> s2 < 2^32, isqrt = floor(sqrt()). Power front ends:
   P >> 13. Either is 2^E times the float definition's value, E = 46 + sh (magnitude) or
   79 + 2·sh (power).
5. Mel filters, sparse: filter m covers bins [start, start + count) with int16 weights scaled so
   the largest is 32767 (scale S_m); acc = Σ w·spec (int64, < 2^62), plus eps·S_m·2^E rounded
   (eps·S_m given per filter as mantissa · 2^exponent). Where eps·S_m·2^E would pass 2^61, E
   is lowered by d and acc shifted right by d first (eps then dwarfs the dropped bits).
6. log2 in Q24: e = bitlen(acc) − 1, a 129-entry table of log2(1 + j/128) and linear
   interpolation on the next 16 bits; minus E, plus −log2(S_m) in Q24 (per filter).
7. Output q (Q16): MFCC: Σ_m D[c, m]·lm[m] with D = DCT·ln 2 in Q24, rounded >> 32;
   log-mel: lm · K with K = 10·log10(2) in Q24, rounded >> 32.

Tolerance against the float64 textbook definitions (`textbook_mfcc`, `textbook_log_mel`;
tests/compiler/test_audio_features.py measures it): the integer pipeline's noise floor sits
~50..100 dB below a frame's strongest components (mostly the int16 mel weights: a weight's
rounding, 2^-16 of the filter's peak, times the strongest bin it covers). So:
* log-mel: |error| <= 0.05 dB on mel bands within 60 dB of the frame's strongest band,
  <= 0.1 dB within 80 dB; bands further down may differ by dB (a pure tone's far bands lie
  ~150 dB down in float64, at the eps floor).
* MFCC: |error| <= 0.001 on noise and voiced, speech-like signals (harmonics up to 8 kHz, with
  or without background noise) from −60 dBFS to full scale (measured ~2e-4); <= 0.15 on pure
  tones and chirps (measured 0.08), whose MFCCs mix in bands ~150 dB down.
Both are far below one step of the model's int8 input (about 0.3 for MFCCs, 0.7 dB for log-mel).
"""
from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16_000

KWS_SAMPLES = 16_000
KWS_FRAMES = 49
KWS_COEFFICIENTS = 10
MFCC_SHAPE = (KWS_FRAMES, KWS_COEFFICIENTS)

ANOMALY_SAMPLES = 3072
ANOMALY_FRAMES = 5
ANOMALY_MELS = 128
LOG_MEL_SHAPE = (ANOMALY_FRAMES, ANOMALY_MELS)

# Fixed-point formats of the integer pipeline (shared with the C kernel).
TWIDDLE_BITS = 30  # Q30 twiddles
LOG2_BITS = 24  # log2 values and the output scale K / DCT weights in Q24
LOG2_TABLE_BITS = 7  # 128 intervals
OUTPUT_BITS = 16  # the output integer q is features · 2^16
POWER_SHIFT = 13  # power spectra are shifted right by this before the mel sums
WEIGHT_MAX = (1 << 15) - 1  # mel weights: each filter scaled so its largest weight is this
WINDOW_BITS = 30  # Q30 window
EPS_BITS = 30  # eps · S_m · 2^E is kept below 2^(EPS_BITS + 31)


@dataclass(frozen=True)
class FrontEnd:
    """An audio front end: framing, FFT, mel filters, log, optional DCT.

    `magnitude`: mel filters over |X| (True) or |X|² (False). `log`: "ln" (natural log) or
    "db" (10·log10). `eps` is added to every mel energy before the log. `dct_coefficients`: 0
    for log-mel output, else the first that many MFCCs (TensorFlow's DCT-II scaling).
    `mel_scale`: "htk" (TensorFlow: triangles in the mel domain, DC bin excluded, peak 1) or
    "slaney" (librosa: Slaney scale, triangles in Hz, area-normalised).
    """

    name: str
    samples: int
    frame_length: int
    frame_step: int
    fft_length: int
    n_mels: int
    fmin: float
    fmax: float
    mel_scale: str
    magnitude: bool
    log: str
    eps: float
    dct_coefficients: int = 0
    sample_rate: int = SAMPLE_RATE

    def __post_init__(self) -> None:
        n = self.fft_length
        if n < 8 or n & (n - 1) or n > 4096:
            raise ValueError(f"{self.name}: fft_length {n} must be a power of two in 8..4096")
        if not 1 <= self.frame_length <= n:
            raise ValueError(f"{self.name}: frame_length {self.frame_length} must be in 1..fft_length ({n})")
        if self.frame_step < 1 or self.samples < self.frame_length:
            raise ValueError(f"{self.name}: need frame_step >= 1 and samples >= frame_length")
        if self.mel_scale not in ("htk", "slaney") or self.log not in ("ln", "db"):
            raise ValueError(f"{self.name}: mel_scale must be 'htk' or 'slaney', log 'ln' or 'db'")
        if not 0 <= self.dct_coefficients <= self.n_mels:
            raise ValueError(f"{self.name}: dct_coefficients must be in 0..n_mels ({self.n_mels})")


    @property
    def frames(self) -> int:
        return (self.samples - self.frame_length) // self.frame_step + 1

    @property
    def input_shape(self) -> tuple[int, ...]:
        return (self.samples,)

    @property
    def output_shape(self) -> tuple[int, int]:
        return (self.frames, self.dct_coefficients or self.n_mels)

    @property
    def block_bits(self) -> int:
        """B: the block scaling puts every frame's samples in |v| <= 2^B."""
        return 29 - int(math.log2(self.fft_length))

    def mel_matrix(self) -> np.ndarray:
        """float64 [n_mels, fft_length/2 + 1] filter weights of the float definition."""
        if self.mel_scale == "htk":
            return htk_mel_matrix(self.n_mels, self.fft_length, self.sample_rate, self.fmin, self.fmax)
        return slaney_mel_matrix(self.n_mels, self.fft_length, self.sample_rate, self.fmin, self.fmax)

    def constants(self) -> dict[str, np.ndarray]:
        """The op's constant inputs (computed once per front end; do not modify them): window,
        twiddles, mel bands and weights, log2 table and, for MFCC, the DCT matrix. See
        `features_int` for their meaning."""
        return dict(_constants(self))

    @property
    def log_scale_q24(self) -> int:
        """K: log2 → output units (ln or dB) in Q24 (used without a DCT)."""
        unit = math.log(2.0) if self.log == "ln" else 10.0 * math.log10(2.0)
        return int(round(unit * (1 << LOG2_BITS)))

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        """The device's features of int16 PCM [..., samples] → float32 [..., frames, coefficients]."""
        return features_int(_checked(audio, self), magnitude=self.magnitude, frame_step=self.frame_step,
                            log_scale_q24=self.log_scale_q24, **self.constants())

    def textbook(self, audio: np.ndarray) -> np.ndarray:
        """The float64 definition (numpy FFT, float window and filters) of the same features."""
        x = np.asarray(_checked(audio, self), np.float64) / 32768.0
        frames = _frames(x, self.frame_length, self.frame_step, self.frames)
        spectrum = np.abs(np.fft.rfft(frames * hann(self.frame_length), n=self.fft_length, axis=-1))
        if not self.magnitude:
            spectrum = spectrum ** 2
        mel = spectrum @ self.mel_matrix().T + self.eps
        logs = np.log(mel) if self.log == "ln" else 10.0 * np.log10(mel)
        if self.dct_coefficients:
            return logs @ dct_matrix(self.n_mels, self.dct_coefficients).T
        return logs


MFCC_KWS = FrontEnd(name="mfcc_kws", samples=KWS_SAMPLES, frame_length=480, frame_step=320, fft_length=512,
                    n_mels=40, fmin=20.0, fmax=4000.0, mel_scale="htk", magnitude=True, log="ln", eps=1e-6,
                    dct_coefficients=KWS_COEFFICIENTS)
LOG_MEL_ANOMALY = FrontEnd(name="log_mel_anomaly", samples=ANOMALY_SAMPLES, frame_length=1024, frame_step=512,
                           fft_length=1024, n_mels=ANOMALY_MELS, fmin=0.0, fmax=SAMPLE_RATE / 2,
                           mel_scale="slaney", magnitude=False, log="db", eps=sys.float_info.epsilon)
# MLPerf Tiny v1.3 streaming wake word ("lfbe" features of benchmark/training/streaming_wakeword/
# get_dataset.py): 64 ms frames (1024 samples) every 32 ms (512), 40 HTK mel bands over 0..8 kHz
# of the power spectrum, 10·log10; 30 frames (15,872 samples) a window. The reference clips
# P / 1024 at 10^-5.2 below (then maps -52..12 dB to 0..1): here eps = 10^-5.2 · 1024 ≈ 6.5e-3 puts
# the same floor under the mel energies of P (x / 32768, no 1 / N). Unlike the reference: a
# periodic Hann window (its Hamming), and no pre-emphasis (the op has none); the model, trained on
# these very features, does not mind.
WAKEWORD_FRAMES = 30
LOG_MEL_WAKEWORD = FrontEnd(name="log_mel_wakeword", samples=1024 + (WAKEWORD_FRAMES - 1) * 512, frame_length=1024,
                            frame_step=512, fft_length=1024, n_mels=40, fmin=0.0, fmax=SAMPLE_RATE / 2,
                            mel_scale="htk", magnitude=False, log="db", eps=10 ** -5.2 * 1024)
FRONT_ENDS = {f.name: f for f in (MFCC_KWS, LOG_MEL_ANOMALY, LOG_MEL_WAKEWORD)}


def mfcc(audio: np.ndarray) -> np.ndarray:
    """int16 PCM [..., 16000] → float32 [..., 49, 10]: exactly the device's MFCCs."""
    return MFCC_KWS(audio)


def log_mel(audio: np.ndarray) -> np.ndarray:
    """int16 PCM [..., 3072] → float32 [..., 5, 128]: exactly the device's log-mel energies (dB)."""
    return LOG_MEL_ANOMALY(audio)


def textbook_mfcc(audio: np.ndarray) -> np.ndarray:
    """float64 MFCCs as TensorFlow defines them (MLPerf Tiny KWS), for tolerance checks."""
    return MFCC_KWS.textbook(audio)


def textbook_log_mel(audio: np.ndarray) -> np.ndarray:
    """float64 log-mel energies as librosa defines them (MLPerf Tiny AD), for tolerance checks."""
    return LOG_MEL_ANOMALY.textbook(audio)


def _checked(audio: np.ndarray, front_end: FrontEnd) -> np.ndarray:
    audio = np.asarray(audio)
    if audio.dtype != np.int16:
        raise TypeError(f"{front_end.name}: audio must be int16 PCM, got {audio.dtype} "
                        "(convert float audio in [-1, 1) with np.round(x * 32768).clip(-32768, 32767).astype(np.int16))")
    if audio.ndim < 1 or audio.shape[-1] != front_end.samples:
        raise ValueError(f"{front_end.name}: audio must have shape [..., {front_end.samples}], got {audio.shape}")
    return audio


# ---------------------------------------------------------------------------------------------
# Float definitions (the textbook side and the source of the integer constants)

def hann(length: int) -> np.ndarray:
    """Periodic Hann window (tf.signal.hann_window, scipy's fftbins=True)."""
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(length) / length)


def htk_mel_matrix(n_mels: int, n_fft: int, sample_rate: int, fmin: float, fmax: float) -> np.ndarray:
    """tf.signal.linear_to_mel_weight_matrix, transposed: [n_mels, n_fft/2 + 1]."""
    def to_mel(hz):
        return 1127.0 * np.log1p(np.asarray(hz, np.float64) / 700.0)

    bins_mel = to_mel(np.linspace(0.0, sample_rate / 2, n_fft // 2 + 1))[1:]
    edges = np.linspace(to_mel(fmin), to_mel(fmax), n_mels + 2)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    weights = np.maximum(0.0, np.minimum((bins_mel - lower) / (centre - lower), (upper - bins_mel) / (upper - centre)))
    return np.concatenate([np.zeros((n_mels, 1)), weights], axis=1)


def _slaney_hz_to_mel(hz: np.ndarray) -> np.ndarray:
    hz = np.asarray(hz, np.float64)
    linear = hz / (200.0 / 3)
    log_part = 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(hz >= 1000.0, log_part, linear)


def _slaney_mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, np.float64)
    return np.where(mel >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel - 15.0)), mel * (200.0 / 3))


def slaney_mel_matrix(n_mels: int, n_fft: int, sample_rate: int, fmin: float, fmax: float) -> np.ndarray:
    """librosa.filters.mel(htk=False, norm='slaney'): [n_mels, n_fft/2 + 1]."""
    freqs = np.linspace(0.0, sample_rate / 2, n_fft // 2 + 1)
    edges = _slaney_mel_to_hz(np.linspace(_slaney_hz_to_mel(fmin), _slaney_hz_to_mel(fmax), n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    return weights * (2.0 / (edges[2:] - edges[:-2]))[:, None]


def dct_matrix(n_mels: int, coefficients: int) -> np.ndarray:
    """TensorFlow's MFCC DCT: 2·cos(π k (2m + 1) / 2M) · rsqrt(2M), [coefficients, n_mels]."""
    k = np.arange(coefficients)[:, None]
    m = np.arange(n_mels)[None, :]
    return 2.0 * np.cos(np.pi * k * (2 * m + 1) / (2 * n_mels)) / np.sqrt(2.0 * n_mels)


def _frames(x: np.ndarray, length: int, step: int, count: int) -> np.ndarray:
    index = np.arange(length)[None, :] + step * np.arange(count)[:, None]
    return x[..., index]


# ---------------------------------------------------------------------------------------------
# Integer constants

def _mantissa_exponent(value: float) -> tuple[int, int]:
    """value ≈ m · 2^e with m in [2^30, 2^31) (m = 0 for value 0)."""
    if value <= 0.0:
        return 0, 0
    frac, exp = math.frexp(value)  # value = frac · 2^exp, frac in [0.5, 1)
    m = int(round(frac * (1 << 31)))
    if m == 1 << 31:
        m, exp = 1 << 30, exp + 1
    return m, exp - 31


@functools.lru_cache(maxsize=None)
def _constants(fe: FrontEnd) -> dict[str, np.ndarray]:
    n = fe.fft_length
    window = np.round(hann(fe.frame_length) * (1 << WINDOW_BITS)).astype(np.int32)
    angle = 2.0 * np.pi * np.arange(n // 2) / n
    twiddles = np.stack([np.round(np.cos(angle) * (1 << TWIDDLE_BITS)),
                         np.round(np.sin(angle) * (1 << TWIDDLE_BITS))], axis=1).astype(np.int32)
    matrix = fe.mel_matrix()
    bands, weights = [], []
    for row in matrix:
        nonzero = np.flatnonzero(row > 0.0)
        start, count = (int(nonzero[0]), int(nonzero[-1] - nonzero[0] + 1)) if len(nonzero) else (0, 0)
        peak = float(row.max()) if len(nonzero) else 1.0
        scale = WEIGHT_MAX / peak
        weights.append(np.round(row[start:start + count] * scale))
        mantissa, exponent = _mantissa_exponent(fe.eps * scale)
        if mantissa and not -200 <= exponent <= 40:
            raise ValueError(f"{fe.name}: eps {fe.eps} is out of the integer pipeline's range (about 1e-50..1e3)")
        bands.append((start, count, -int(round(math.log2(scale) * (1 << LOG2_BITS))), mantissa, exponent))
    table = np.round(np.log2(1.0 + np.arange((1 << LOG2_TABLE_BITS) + 1) / (1 << LOG2_TABLE_BITS))
                     * (1 << LOG2_BITS)).astype(np.int32)
    constants = {
        "window": window,
        "twiddles": twiddles,
        "mel_bands": np.array(bands, np.int32).reshape(fe.n_mels, 5),
        "mel_weights": np.concatenate(weights).astype(np.int16),
        "log2_table": table,
    }
    if fe.dct_coefficients:
        dct = dct_matrix(fe.n_mels, fe.dct_coefficients) * math.log(2.0)
        constants["dct"] = np.round(dct * (1 << LOG2_BITS)).astype(np.int32)
        if np.abs(constants["dct"].astype(np.int64)).sum(axis=1).max() > 1 << 30:  # keeps the sums in int64
            raise ValueError(f"{fe.name}: {fe.n_mels} mel bins are too many for the DCT's int64 sums")
    return constants


# ---------------------------------------------------------------------------------------------
# The integer pipeline (the op's reference; the C kernel computes the same integers)

def _bitlen(a: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 values (exact: each half is exact in float64)."""
    a = np.asarray(a, np.int64)
    high = a >> 32
    low = a & 0xFFFFFFFF
    high_len = np.frexp(high.astype(np.float64))[1]
    low_len = np.frexp(low.astype(np.float64))[1]
    return np.where(high > 0, 32 + high_len, low_len).astype(np.int64)


def _round_shift(a: np.ndarray, shift: int) -> np.ndarray:
    """(a + 2^(shift-1)) >> shift, arithmetic (int64)."""
    return (a + (1 << (shift - 1))) >> shift


def _shift_signed(a: np.ndarray, sh: np.ndarray) -> np.ndarray:
    """a << sh for sh >= 0, else the rounding right shift by -sh (elementwise sh, int64)."""
    left = a << np.maximum(sh, 0)
    s = np.maximum(-sh, 1)
    right = (a + (np.int64(1) << (s - 1))) >> s
    return np.where(sh >= 0, left, right)


def _fft(zr: np.ndarray, zi: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In-order complex FFT over the last axis (length n = N/2) of bit-reversed input, radix-2 DIT."""
    n = zr.shape[-1]
    size = 2
    while size <= n:
        half = size // 2
        idx = np.arange(half) * (2 * n // size)
        c, s = cos[idx], sin[idx]
        shape = zr.shape[:-1] + (n // size, 2, half)
        r, i = zr.reshape(shape), zi.reshape(shape)
        ar, ai, br, bi = r[..., 0, :], i[..., 0, :], r[..., 1, :], i[..., 1, :]
        tr = _round_shift(br * c + bi * s, TWIDDLE_BITS)
        ti = _round_shift(bi * c - br * s, TWIDDLE_BITS)
        zr = np.stack([ar + tr, ar - tr], axis=-2).reshape(zr.shape)
        zi = np.stack([ai + ti, ai - ti], axis=-2).reshape(zi.shape)
        size *= 2
    return zr, zi


def _bit_reverse(n: int) -> np.ndarray:
    bits = int(math.log2(n))
    idx = np.arange(n)
    rev = np.zeros(n, np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


def _isqrt(a: np.ndarray) -> np.ndarray:
    """floor(sqrt(a)) for 0 <= a < 2^32 (exact in float64)."""
    return np.floor(np.sqrt(a.astype(np.float64))).astype(np.int64)


def log2_q24(a: np.ndarray, table: np.ndarray) -> np.ndarray:
    """log2(a) in Q24 for int64 a >= 1: exponent + table interpolation (see module doc, step 6)."""
    e = _bitlen(a) - 1
    mant = np.where(e >= 31, a >> np.maximum(e - 31, 0), a << np.maximum(31 - e, 0))
    i = (mant >> 24) & ((1 << LOG2_TABLE_BITS) - 1)
    f = (mant >> 8) & 0xFFFF
    t = table.astype(np.int64)
    return (e << LOG2_BITS) + t[i] + (((t[i + 1] - t[i]) * f) >> 16)


def features_int(audio: np.ndarray, *, window: np.ndarray, twiddles: np.ndarray, mel_bands: np.ndarray,
                 mel_weights: np.ndarray, log2_table: np.ndarray, dct: np.ndarray | None = None,
                 magnitude: bool, frame_step: int, log_scale_q24: int) -> np.ndarray:
    """The MEL_FEATURES op: int16 [..., T] → float32 [..., frames, dct rows or n_mels].

    window int32 [L] (Q30); twiddles int32 [N/2, 2] (Q30 cos, sin of 2πj/N); mel_bands int32
    [n_mels, 5] (start bin, bin count, −log2(S_m) in Q24, eps mantissa, eps exponent);
    mel_weights int16 [Σ counts] (the float weights · S_m, 0..32767, filter after filter);
    log2_table int32 [129] (Q24); dct int32 [C, n_mels] (Q24, ln 2 folded in) or None (then
    log_scale_q24 scales the log2 values).
    """
    audio = np.asarray(audio, np.int16)
    length, n_half = len(window), twiddles.shape[0]
    n = 2 * n_half
    frames = (audio.shape[-1] - length) // frame_step + 1
    block_bits = 29 - int(math.log2(n))
    x = _frames(audio.astype(np.int64), length, frame_step, frames)  # [..., F, L]
    v = x * window.astype(np.int64)  # |v| <= 2^45
    peak = np.maximum(np.abs(v).max(axis=-1, keepdims=True), 1)
    sh = block_bits - _bitlen(peak)  # [..., F, 1]
    v = _shift_signed(v, sh)
    v = np.concatenate([v, np.zeros(v.shape[:-1] + (n - length,), np.int64)], axis=-1)
    rev = _bit_reverse(n_half)
    cos, sin = twiddles[:, 0].astype(np.int64), twiddles[:, 1].astype(np.int64)
    zr, zi = _fft(v[..., 0::2][..., rev], v[..., 1::2][..., rev], cos, sin)

    # Split: 2·X[k] for k = 1..n/2-1 from A = Z[k], B = conj(Z[n/2 - k]); k = 0 and N/2 apart.
    k = np.arange(1, n_half)
    ar, ai = zr[..., k], zi[..., k]
    br, bi = zr[..., n_half - k], -zi[..., n_half - k]
    sr, si, qr, qi = ar + br, ai + bi, ai - bi, -(ar - br)
    c, s = cos[k], sin[k]
    xr = sr + _round_shift(c * qr + s * qi, TWIDDLE_BITS)
    xi = si + _round_shift(c * qi - s * qr, TWIDDLE_BITS)
    z0r, z0i = zr[..., :1], zi[..., :1]
    xr = np.concatenate([2 * (z0r + z0i), xr, 2 * (z0r - z0i)], axis=-1)
    xi = np.concatenate([np.zeros_like(z0r), xi, np.zeros_like(z0r)], axis=-1)
    power = xr * xr + xi * xi  # [..., F, N/2 + 1]
    if magnitude:
        s2 = np.maximum(_bitlen(power) - 32, 0)
        s2 = s2 + (s2 & 1)
        spectrum = _isqrt(power >> s2) << (s2 >> 1)
        exponent = 46 + sh
    else:
        spectrum = power >> POWER_SHIFT
        exponent = 79 + 2 * sh

    weights = mel_weights.astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(mel_bands[:, 1])])
    logs = []
    for m, (start, count, log_offset, eps_m, eps_e) in enumerate(mel_bands.astype(np.int64)):
        w = weights[offsets[m]:offsets[m] + count]
        acc = spectrum[..., start:start + count] @ w if count else np.zeros(spectrum.shape[:-1], np.int64)
        # eps_int = eps · S_m · 2^E; where that would pass 2^(EPS_BITS + 31), E is lowered by d
        # and acc shifted right by d (eps then dominates acc's dropped bits by far).
        t = eps_e + exponent[..., 0]
        drop = np.where(eps_m > 0, np.maximum(t - EPS_BITS, 0), 0)
        t, e = t - drop, exponent[..., 0] - drop
        eps_int = np.where(t >= 0, np.int64(eps_m) << np.clip(t, 0, EPS_BITS),
                           (np.int64(eps_m) + (np.int64(1) << np.clip(-t - 1, 0, 31))) >> np.clip(-t, 1, 32))
        eps_int = np.where(t < -31, 0, eps_int)
        a = np.maximum(np.where(drop > 62, 0, acc >> np.minimum(drop, 62)) + eps_int, 1)
        logs.append(log2_q24(a, log2_table) - (e << LOG2_BITS) + log_offset)
    lm = np.stack(logs, axis=-1)  # [..., F, n_mels] log2 Q24
    if dct is not None:
        q = _round_shift(lm @ dct.astype(np.int64).T, 32)
    else:
        q = _round_shift(lm * np.int64(log_scale_q24), 32)
    return q.astype(np.int32).astype(np.float32) * np.float32(2.0 ** -OUTPUT_BITS)
