"""Schedule generators, one module each. A module turns (P, m, V, options) into each
rank's ordered ops, written as named phases with their closed-form counts
(docs/model.md, "Schedules"); states the closed forms (bubble, peak in-flight) that
the simulator is checked against; and declares its `ENTRY` (a `registry.Schedule`)
and its strings.
The registry finds every module here that has an ENTRY.
"""
