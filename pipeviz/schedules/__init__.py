"""Schedule generators. Each module turns (P, m, V, options) into each rank's ordered
ops, written as the named phases of SPEC.md with their closed-form counts, and states
the closed forms (bubble, peak in-flight) that the simulator is checked against.

The registry (`pipeviz.registry`) is the one list of schedules.
"""
