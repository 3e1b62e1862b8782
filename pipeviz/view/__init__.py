"""The explorer's model, below the rendering layer (no bokeh, no panel): its fields
and URL (`fields`), the rules that keep its state valid (`state`), the columns and
properties each figure receives (`columns`) and its readouts (`readouts`).

Both explorers use it: the served app directly, the standalone page through its
JavaScript twin in `static/`, which tests/test_js_parity.py holds to it.
"""
