"""The wake word app's detection rule and how a stream's detections are scored: the
specification the firmware's responder (firmware/responder.c) follows and the stream harness
(apps/wakeword/stream.py) measures with.

Rule, on the program's per-hop probability of "marvin" (float32, one per 32 ms hop):
- a hop counts when its score is at or above `threshold`;
- the rule holds on a hop when at least `hits` of the last `window` hops (itself included) count,
  and fires on the hop where it starts to hold (once per stretch it holds: a score that dips for
  a hop in the middle of the word does not restart the count, as hops in a row would);
- and not within `refractory` hops after its last firing (one detection per refractory window).

Scoring against the words a stream holds (apps/wakeword/data.Event): a detection fires at the
end of its hop's samples. It is a hit of the first "marvin" not yet hit that started before it
and ended at most `late_ms` before it; every other detection is a false accept, every "marvin"
without a hit a false reject. Latency: from the end of the word to the detection (negative when
the rule fires before the word's last sample).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np


@dataclass(frozen=True)
class Rule:
    """Chosen on three 20-minute validation streams (voices neither the training nor the test
    stream has) among thresholds 0.6–0.9 and hits of windows up to 6 hops: `python -m
    apps.wakeword.stream --board host --sweep 0,1,2` (the table is in apps/wakeword/README.md);
    of the rules with the fewest errors, the one with fewer false accepts (they cost more)."""
    threshold: float = 0.8  # probability of "marvin" (float32 compare, as the device's)
    hits: int = 4           # counting hops among the last `window`: ~100 ms of agreement
    window: int = 5
    refractory: int = 31    # hops (~1 s) after a detection in which the rule does not fire again

    def __post_init__(self) -> None:
        if (not 0.0 < self.threshold <= 1.0 or not 1 <= self.hits <= self.window <= MAX_WINDOW
                or self.refractory < 0):
            raise ValueError(f"detection rule needs 0 < threshold <= 1, 1 <= hits <= window <= {MAX_WINDOW} and "
                             f"refractory >= 0, got {self}")


MAX_WINDOW = 32  # the firmware keeps the last hops' verdicts in one 32-bit word
RULE = Rule()
LATE_MS = 1000.0  # a detection up to a second after the word's end still counts as its hit


def detections(scores: np.ndarray, rule: Rule = RULE) -> list[int]:
    """Hop indices at which the rule fires on `scores` (float32 [hops], "marvin" per hop)."""
    counting = (np.asarray(scores, np.float32) >= np.float32(rule.threshold)).astype(np.int64)
    if counting.size == 0:
        return []
    recent = np.convolve(counting, np.ones(rule.window, np.int64))[:len(counting)]  # counting hops in the window
    holds = recent >= rule.hits
    starts = np.flatnonzero(holds & ~np.concatenate([[False], holds[:-1]]))
    fired: list[int] = []
    for hop in starts.tolist():
        if not fired or hop - fired[-1] > rule.refractory:
            fired.append(hop)
    return fired


def wake_line(hop: int, score: float) -> str:
    """The line the firmware prints when the rule fires on `hop`: the score in per mille, truncated
    (one float32 multiply, as responder.c computes it: no fused rounding to differ by)."""
    return f"EM wake hop={hop} score={int(np.float32(score) * np.float32(1000.0))}"


class Score(NamedTuple):
    false_accepts: int
    false_rejects: int
    hits: int
    latencies_ms: list[float]   # one per hit, in the order of the words
    accepted_hops: list[int]    # detections that were false accepts
    missed_words: list[int]     # indices (into the wake words) of the false rejects


def score(fired: Sequence[int], events: Sequence, hop_samples: int, sample_rate: int = 16_000,
          late_ms: float = LATE_MS) -> Score:
    """`fired` (hop indices, in order) against the stream's `events` (data.Event, in order)."""
    words = [e for e in events if e.is_wake_word]
    late = int(round(late_ms * sample_rate / 1000))
    hit = [False] * len(words)
    latencies: dict[int, float] = {}
    accepted = []
    for hop in fired:
        at = (hop + 1) * hop_samples  # the hop's last sample has been heard
        match = next((k for k, w in enumerate(words) if not hit[k] and w.start < at <= w.end + late), None)
        if match is None:
            accepted.append(hop)
        else:
            hit[match] = True
            latencies[match] = (at - words[match].end) * 1000.0 / sample_rate
    missed = [k for k, h in enumerate(hit) if not h]
    return Score(len(accepted), len(missed), sum(hit), [latencies[k] for k in sorted(latencies)], accepted, missed)
