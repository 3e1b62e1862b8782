"""Schedule generators, one module each. A module turns (P, m, V, options) into each
rank's ordered ops, written as the named phases of SPEC.md with their closed-form
counts; states the closed forms (bubble, peak in-flight) that the simulator is
checked against; and declares its `ENTRY` (a `registry.Schedule`) and its strings.
The registry finds every module here that has an ENTRY.
"""
