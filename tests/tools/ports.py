"""Ports that damage what passes through them, for the serial link's tests."""
from __future__ import annotations


class CutOnce:
    """A port that loses `drop` of the bytes it receives, after the next `at` (a reply cut short)."""

    def __init__(self, port, at: int, drop: int) -> None:
        self.port, self.at, self.drop = port, at, drop

    def read(self, n: int) -> bytes:
        data = self.port.read(n)
        if self.drop and len(data) > self.at:
            lost = data[self.at:self.at + self.drop]
            data, self.at, self.drop = data[:self.at] + data[self.at + len(lost):], 0, self.drop - len(lost)
        elif self.drop:
            self.at -= len(data)
        return data

    def __getattr__(self, name: str):
        return getattr(self.port, name)
