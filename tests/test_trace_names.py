"""What an event's name says: PyTorch's actions, GPipe's names, a user's pattern
(text, never code)."""

from __future__ import annotations

import pytest

from pipeviz.errors import TraceError
from pipeviz.trace.names import MAX_NAME, OWN_STAGE, OverlapError, classify, compile_pattern, pp_action


@pytest.mark.parametrize("name, op", [
    ("PP:2F0", ("F", 0, 2, -1, -1)), ("PP:11I305", ("I", 305, 11, -1, -1)), ("PP:0W1", ("W", 1, 0, -1, -1)),
    ("PP:3B2", ("B", 2, 3, -1, -1)), ("PP:(0F3;3B1)OVERLAP_F_B", ("F&B", 3, 0, 1, 3)),
    ("PP:(3B1;0F3)OVERLAP_F_B", ("F&B", 3, 0, 1, 3)), ("PP:0SEND_F1", ("SEND_F", 1, 0, -1, -1)),
    ("PP:2RECV_B0", ("RECV_B", 0, 2, -1, -1)), ("PP:2UNSHARD", ("UNSHARD", -1, 2, -1, -1)),
    ("PP:0REDUCE_GRAD", ("REDUCE_GRAD", -1, 0, -1, -1)), ("Forward 3", ("F", 3, OWN_STAGE, -1, -1)),
    ("Backward 12", ("B", 12, OWN_STAGE, -1, -1)),
    ("PP:2F0\n", None), ("PP:2X0", None), ("PP:2F", None), ("PP:٣F0", None), ("PP:1234567890F0", None),
    ("pp:2F0", None), ("Forward", None), ("Forward 3 ", None), ("aten::mm", None), ("PP:2F0 ", None),
])
def test_pytorchs_names(name, op):
    assert classify(name, None) == op


def test_an_overlap_of_other_parts_is_refused():
    for action in ("(0F3;3I1)OVERLAP_F_B", "(0F3)OVERLAP_F_B", "(0F3;3B1;1W0)OVERLAP_F_B", "(0F3;x)OVERLAP_F_B"):
        with pytest.raises(OverlapError):
            pp_action(action)


def test_a_pattern_reads_kind_micro_batch_and_stage():
    p = compile_pattern("{kind}_mb{mb}_stage{stage}")
    assert p.match("forward_mb3_stage1") == ("F", 3, 1, -1, -1)
    assert p.match("BWD_mb10_stage0") == ("B", 10, 0, -1, -1)
    assert p.match("backward_input_mb2_stage4") == ("I", 2, 4, -1, -1)
    assert p.match("optimizer_mb2_stage4") is None  # not a kind word
    q = compile_pattern("* {kind} micro-batch {mb}", "fprop=F,bprop=B,xfer=SEND_F")
    assert q.match("megatron: fprop micro-batch 7") == ("F", 7, OWN_STAGE, -1, -1)
    assert q.match("xfer micro-batch 7") is None  # * needs the space after it
    assert q.match("a xfer micro-batch 7") == ("SEND_F", 7, OWN_STAGE, -1, -1)


def test_a_pattern_is_text_not_a_regular_expression():
    p = compile_pattern("(.*)+[a]{kind}{mb}$")
    assert p.match("(.*)+[a]F3$") == ("F", 3, OWN_STAGE, -1, -1)
    assert p.match("xxaF3") is None and p.match("aF3") is None


def test_names_past_the_limit_are_not_matched():
    p = compile_pattern("*.{kind}{mb}")
    assert p.match("a" * (MAX_NAME - 3) + ".F1") == ("F", 1, OWN_STAGE, -1, -1)
    assert p.match("a" * (MAX_NAME - 2) + ".F1") is None


@pytest.mark.parametrize("template, kinds, key", [
    ("{kind}", None, "trace.pattern_needs"), ("{mb}{stage}", None, "trace.pattern_needs"),
    ("{kind}{mb}{kind}", None, "trace.pattern_slot"), ("{kind}{mb}{rank}", None, "trace.pattern_slot"),
    ("{kind}{mb}{}", None, "trace.pattern_slot"), ("", None, "trace.pattern_length"),
    ("x" * (MAX_NAME + 1), None, "trace.pattern_length"), ("*a*b*{kind}{mb}", None, "trace.pattern_stars"),
    ("{kind}{mb}", "fwd", "trace.pattern_kinds"), ("{kind}{mb}", "fwd=X", "trace.pattern_kinds"),
    ("{kind}{mb}", "f w=F", "trace.pattern_kinds"), ("{kind}{mb}", "__import__('os')=F;", "trace.pattern_kinds"),
])
def test_a_bad_pattern_is_named(template, kinds, key):
    with pytest.raises(TraceError) as e:
        compile_pattern(template, kinds)
    assert e.value.msg.key == key
