"""Conformance cases, one file per op: see README.md."""
