"""Ember build helpers used by SCons and by the tests (plain Python: never imports SCons)."""
