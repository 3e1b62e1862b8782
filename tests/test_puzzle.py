"""The puzzles (pipeviz/puzzle.py, pipeviz/view/puzzle.py): each guided puzzle solved
by placing par's ops, each refusal in words, undo, redo and clear, the hint, the
score and the comparison with the known schedules; invariants over generated move
sequences (every placed op timed as soon as its dependency and its rank's previous op
allow, never over the cap, earlier ops never moved by a later one, a complete order
the simulator accepts and times alike); the rule and the URL."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeviz import Config, ConfigError, Costs, run
from pipeviz.config import Encoder
from pipeviz.order import KIND_CODES
from pipeviz.puzzle import (
    GOALS,
    M_MAX,
    P_MAX,
    PuzzleResult,
    clear,
    hint,
    move_text,
    moves_text,
    par,
    place,
    redo_move,
    replay,
    result,
    score,
    setup_of,
    undo,
)
from pipeviz.served.session import Session
from pipeviz.simulate import simulate
from pipeviz.view import puzzle as view
from pipeviz.view import readouts
from pipeviz.view.fields import FIELDS, encode, parse

DEFAULT_CAPS = {name: g.cap for name, g in GOALS.items()}


def at(goal, P=4, m=8, V=None, cap=None, costs=None, enc=None):
    g = GOALS[goal]
    return setup_of(goal, P, m, V or g.V[0], DEFAULT_CAPS[goal] if cap is None else cap, costs or Costs(),
                    enc or Encoder())


def solution(s) -> list[str]:
    """Par's ops as a student would place them: at each step, of the ranks whose next
    par op can be placed, the one par starts earliest (its board offers it)."""
    known = par(s)
    theirs = [[known.order.token(i) for i in range(int(known.order.rank_ptr[r]), int(known.order.rank_ptr[r + 1]))]
              for r in range(s.P)]
    board, moves, pos = replay(s, ""), [], [0] * s.P
    while True:
        best = None
        for r in range(s.P):
            if pos[r] < len(theirs[r]):
                mv = s.parse(theirs[r][pos[r]], r)
                offered = [c for c, why in board.candidates(r) if why is None]
                if board.why_not(mv) is None and mv in offered:
                    t = float(known.timeline.start[int(known.order.rank_ptr[r]) + pos[r]])
                    if best is None or t < best[0]:
                        best = (t, r, mv)
        if best is None:
            return moves
        moves.append(move_text(best[2]))
        pos[best[1]] += 1
        board = replay(s, ",".join(moves))


# -- the guided puzzles ------------------------------------------------------------------------


@pytest.mark.parametrize("goal", list(GOALS))
def test_each_guided_puzzle_is_solved_by_placing_pars_ops(goal):
    s = at(goal)
    moves = solution(s)
    b = replay(s, ",".join(moves))
    assert b.refused is None and b.complete and len(moves) == s.total
    sc = score(b)
    known = par(s)
    assert sc["solved"] and sc["verdict"].key == "puzzle.solved"
    assert sc["makespan"] == f"{known.metrics.makespan:.6g}" and sc["peak"] == known.metrics.peak_chunks.tolist()
    assert sc["equals"] is not None and sc["differs"] is None
    assert hint(b).key == "puzzle.hint_done"


def test_the_guided_puzzles_follow_the_article():
    """At P=4, m=8 (docs/model.md's reference numbers): GPipe holds all 8 on every
    rank, 1F1B under P-r keeps GPipe's bubble, V=2 cuts it, the split backward leaves
    only the fill, the encoder hides in the bubbles."""
    pars = {goal: par(at(goal)) for goal in GOALS}
    assert pars["gpipe"].metrics.peak_chunks.tolist() == [8, 8, 8, 8]
    assert pars["1f1b"].metrics.peak_chunks.tolist() == [4, 3, 2, 1]
    assert pars["1f1b"].metrics.bubble_fraction == pars["gpipe"].metrics.bubble_fraction == 3 / 11
    assert pars["interleaved"].metrics.makespan == 28.5 and pars["interleaved"].config.V == 2
    assert pars["zb"].metrics.makespan == 27.0 and pars["zb"].metrics.peak_chunks.max() <= 4
    assert pars["encoder"].metrics.makespan == 34.5


def test_solving_the_1f1b_puzzle_shows_what_choosing_1f1b_shows():
    s = at("1f1b")
    b = replay(s, ",".join(solution(s)))
    shown, chosen = result(b), run(Config("1f1b", 4, 8, 1))
    assert np.array_equal(shown.timeline.start, chosen.timeline.start)
    assert np.array_equal(shown.timeline.end, chosen.timeline.end)
    assert shown.order.to_text() == chosen.order.to_text()
    for lang in ("en", "zh"):
        assert readouts.readout_html(readouts.readout_values(shown), lang) == \
            readouts.readout_html(readouts.readout_values(chosen), lang)


def test_a_different_complete_order_is_compared_op_by_op_and_drawn_on_one_axis():
    s = at("1f1b", cap="none")
    known = par(s)
    gpipe = run(Config("gpipe", 4, 8, 1))
    moves = [gpipe.order.token(i) for i in np.argsort(gpipe.timeline.start, kind="stable")]
    b = replay(s, ",".join(moves))
    assert b.complete
    sc = score(b)
    assert sc["equals"].key == "sched.gpipe.title"  # GPipe's order, op for op
    assert not sc["solved"] or sc["verdict"].key == "puzzle.solved"  # as fast as 1F1B (33): the bubble is the same
    res = result(b)
    assert isinstance(res, PuzzleResult) and res.yours is not None and res.config.P == 8
    # Yours on ranks 0..3, par's on 4..7, each timed as it was.
    n = b.order.n_ops
    assert np.array_equal(res.timeline.start[:n], b.timeline.start)
    assert np.array_equal(res.timeline.start[n:], known.timeline.start)
    assert res.metrics.peak_chunks.tolist() == [8, 8, 8, 8, 4, 3, 2, 1]
    # The readout reports yours, under its label.
    v = readouts.readout_values(res)
    assert v["own"]["label"].key == "puzzle.shown_compare" and v["peak_chunks"] == 8
    assert sc["differs"]["n"] > 0 and sc["differs"]["first"][0].args["rank"] == 0
    d = sc["differs"]["first"][0]
    assert d.text() == "rank 0 slot 4: yours 0F4, 1F1B's 0B0"
    # The rows are named on the rank axis; the hovers do not name ranks.
    fv = view.figure_view(res, "en")
    assert fv["props"]["rank_axis"]["major_label_overrides"] == {
        **{r: f"you {r}" for r in range(4)}, **{4 + r: f"par {r}" for r in range(4)}}
    assert all(len(v) == 0 for v in fv["sources"]["waits"].values())


def test_gpipes_check_is_its_memory():
    s = at("gpipe")
    one = run(Config("1f1b", 4, 8, 1))
    moves = [one.order.token(i) for i in np.argsort(one.timeline.start, kind="stable")]
    sc = score(replay(s, ",".join(moves)))
    assert not sc["solved"]
    assert sc["verdict"].text() == ("Complete, but rank 0 held at most 4 activations: GPipe runs every forward before "
                                    "any backward, so every rank holds all 8.")


def test_a_slower_order_is_not_solved():
    """One micro-batch at a time, all the way down and back: under the cap, no pipelining."""
    s = at("1f1b")
    moves = [t for mb in range(8) for t in [f"{st}F{mb}" for st in range(4)] + [f"{st}B{mb}" for st in range(3, -1, -1)]]
    b = replay(s, ",".join(moves))
    assert b.refused is None and b.complete
    sc = score(b)
    assert not sc["solved"] and sc["verdict"].text() == (
        "Complete, but slower than par: makespan 96, par 33. Undo, or ask for a hint.")
    assert sc["equals"] is None and sc["differs"]["n"] > 0


# -- refusals, in words ------------------------------------------------------------------------


def refusal(s, moves: str, text: str, rank=None) -> str:
    out = place(s, moves, "", text, rank)
    assert out.moves is None and out.said.key == "puzzle.refused"
    return out.said.args["why"].text()


def test_every_refusal_says_why():
    s = at("1f1b")
    assert refusal(s, "", "1F3") == "F(mb 3, stage 1) needs F(mb 3, stage 0) from rank 0, not run yet"
    assert refusal(s, "0F0,0F1,0F2,0F3", "0F4") == "rank 0 would hold 5 activations, the cap is 4"
    assert refusal(s, "0F0", "0F0") == "F(mb 0, stage 0) is placed already, on rank 0"
    assert refusal(s, "", "0B0") == "B(mb 0, stage 0) needs B(mb 0, stage 1) from rank 1, not run yet"
    assert refusal(s, "", "3B0") == "B(mb 0, stage 3) needs F(mb 0, stage 3) from rank 3, not run yet"
    assert refusal(s, "", "0F8") == "0F8 is not in this puzzle: micro-batches 0..7, stages 0..3, ranks 0..3"
    assert refusal(s, "", "0I0").startswith("0I0: this puzzle does not split the backward")
    assert refusal(s, "", "EF0@1") == "EF0@1: this puzzle has no encoder"
    assert refusal(s, "", "hello") == ("'hello' is not an op: write stage, kind and micro-batch, e.g. 0F3 (kinds F, B); "
                                       "an encoder op with its rank, e.g. EF3@2")
    z = at("zb")
    assert refusal(z, "", "0B0").startswith("0B0: this puzzle splits each backward into I")
    assert refusal(z, "", "0W0") == "W(mb 0, stage 0) needs I(mb 0, stage 0) from rank 0, not run yet"
    e = at("encoder")
    assert refusal(e, "", "0F0") == "F(mb 0, stage 0) needs EF(mb 0), which no rank has run yet"
    assert refusal(e, "", "EB0", 2) == "EB(mb 0) needs B(mb 0, stage 0) from rank 0, not run yet"
    assert refusal(e, "", "EF0") .startswith("'EF0' is not an op")  # an encoder op names its rank
    frozen = at("encoder", enc=Encoder(frozen=True))
    assert refusal(frozen, "", "EB0@0") == "EB0@0: the encoder is frozen: it has no backward"
    assert place(s, "", "", "1F3").said.text("zh") == (
        "不行：F（微批次 3，第 1 段） 需要 rank 0 上的 F（微批次 3，第 0 段），它还没有运行")


def test_an_encoder_op_goes_on_the_rank_it_is_placed_on():
    e = at("encoder")
    out = place(e, "", "", "EF0", 2)
    assert out.moves == "EF0@2" and out.said.text() == "EF(mb 0) placed on rank 2: 0 to 0.5"
    out = place(e, out.moves, "", "0F0")
    assert out.said.text() == "F(mb 0, stage 0) placed on rank 0: 0.5 to 1.5"


def test_a_board_with_nothing_to_place_says_so():
    """Interleaved on one rank under a cap of 1: its first chunk's forward holds the one
    activation, and the second chunk's forward, which every backward waits for, would
    hold a second: nothing can be placed."""
    s = at("interleaved", P=1, m=1, V=2, cap="P-r")
    out = place(s, "", "", "0F0")
    assert out.moves == "0F0" and out.said.key == "puzzle.and"
    assert out.said.text() == ("F(mb 0, stage 0) placed on rank 0: 0 to 0.5. No op can be placed: every rank's next "
                               "ops wait for each other or would break the cap. Undo a few moves")
    b = replay(s, out.moves)
    assert hint(b).key == "puzzle.hint_stuck"
    assert [why.key for _, why in b.candidates(0)] == ["puzzle.waits", "puzzle.cap", "puzzle.waits"]


# -- undo, redo, clear, hint --------------------------------------------------------------------


def test_undo_redo_and_clear():
    s = at("1f1b")
    out = place(s, "0F0,1F0", "", "0F1")
    assert out.moves == "0F0,1F0,0F1"
    u = undo(s, out.moves, out.redo)
    assert (u.moves, u.redo, u.said.text()) == ("0F0,1F0", "0F1", "took back F(mb 1, stage 0) from rank 0")
    u2 = undo(s, u.moves, u.redo)
    assert (u2.moves, u2.redo) == ("0F0", "1F0,0F1")
    r = redo_move(s, u2.moves, u2.redo)
    assert (r.moves, r.redo) == ("0F0,1F0", "0F1")
    other = place(s, r.moves, r.redo, "0F1")  # the move redo holds: it stays a redo line
    assert other.redo == ""
    new = place(s, r.moves, r.redo, "2F0")  # another move: the redo line is gone
    assert new.redo == ""
    c = clear(s, "0F0,1F0", "0F1")
    assert (c.moves, c.redo) == ("", "0F0,1F0,0F1")
    assert undo(s, "", "").said.key == "puzzle.no_undo" and undo(s, "", "").moves is None
    assert redo_move(s, "", "").said.key == "puzzle.no_redo"


def test_the_hint_names_pars_next_op_that_starts_first():
    s = at("1f1b")
    h = hint(replay(s, "0F0,0F1"))
    assert h.text() == "Hint: F(mb 0, stage 1) on rank 1: it is 1F1B's next op there, and it can start at 1"
    # Off par's path on every rank: the op that starts earliest of those that can be placed.
    h = hint(replay(at("1f1b", cap="none"), "0F1"))
    assert h.key == "puzzle.hint_ready" and h.args["start"] == 1.0


# -- invariants over generated move sequences -------------------------------------------------


@st.composite
def boards(draw):
    goal = draw(st.sampled_from(list(GOALS)))
    g = GOALS[goal]
    s = setup_of(goal, draw(st.integers(1, 5)), draw(st.integers(1, 6)), draw(st.integers(g.V[0], min(g.V[1], 3))),
                 draw(st.sampled_from(["none", "P-r", "P", "1", "2", "3"])),
                 Costs(draw(st.sampled_from([1.0, 0.5, 2.0])), draw(st.sampled_from([1.0, 2.0, 0.3])),
                       draw(st.sampled_from([1.0, 0.0, 0.7])), draw(st.sampled_from([0.0, 0.5]))),
                 Encoder(draw(st.sampled_from([0.5, 2.0])), 1.0, "bubbles", draw(st.booleans())))
    picks = draw(st.lists(st.integers(0, 99), max_size=120))
    moves = []
    board = replay(s, "")
    for k in picks:
        ready = [mv for r in range(s.P) for mv, why in board.candidates(r) if why is None]
        if not ready:
            break
        moves.append(move_text(ready[k % len(ready)]))
        board = replay(s, ",".join(moves))
    return s, moves


@settings(max_examples=80, deadline=None)
@given(boards())
def test_placed_ops_are_timed_as_soon_as_possible_and_never_move(case):
    s, moves = case
    b = replay(s, ",".join(moves))
    assert b.refused is None and len(b.moves) == len(moves)
    tl, order = b.timeline, b.order
    def where(board, mv) -> int:
        return int(board.index[KIND_CODES[mv[0]], mv[1], max(mv[2], 0)])

    for j in range(1, len(moves) + 1):  # each prefix: the ops placed before keep their times
        prefix, before = replay(s, ",".join(moves[:j])), replay(s, ",".join(moves[: j - 1]))
        mv = prefix.moves[-1]
        assert prefix.timeline.start[where(prefix, mv)] == before.start_if(mv)  # its dependency, its rank's last op
        for old in before.moves:
            assert before.timeline.end[where(before, old)] == prefix.timeline.end[where(prefix, old)]
    for r in range(s.P):
        cap = s.cap_of(r)
        assert cap is None or int(b.metrics.peak_chunks[r]) <= cap
        assert int(b.held[r]) >= 0
    if b.complete:  # a whole order: the simulator, checking it, times it the same
        again = simulate(order, s.costs, dur=b.timeline.duration)
        assert np.array_equal(again.start, tl.start) and np.array_equal(again.end, tl.end)


@settings(max_examples=60, deadline=None)
@given(boards())
def test_the_hint_can_be_placed_and_starts_when_it_says(case):
    s, moves = case
    b = replay(s, ",".join(moves))
    h = hint(b)
    if b.complete:
        assert h.key == "puzzle.hint_done"
        return
    assert h.key in ("puzzle.hint_par", "puzzle.hint_ready", "puzzle.hint_stuck")
    if h.key == "puzzle.hint_stuck":
        assert all(why is not None for r in range(s.P) for _, why in b.candidates(r))
        return
    op = h.args["op"]
    token = (f"{op.args['kind']}{op.args['mb']}@{h.args['rank']}" if op.key == "op.encoder"
             else f"{op.args['stage']}{op.args['kind']}{op.args['mb']}")
    out = place(s, ",".join(moves), "", token)
    said = out.said.args["first"] if out.said.key == "puzzle.and" else out.said  # placed, and now nothing can be
    assert out.moves is not None and said.args["start"] == h.args["start"]


# -- the rule, the URL, the session -------------------------------------------------------------


def test_a_url_links_a_puzzle_and_a_bad_move_is_one_note():
    s = Session()
    s.apply_query("", "#puzzle=1f1b&moves=0F0,1F0,0F1")
    assert (s.puzzle, s.cap, s.moves, s.schedule, s.problem) == ("1f1b", "P-r", "0F0,1F0,0F1", "1f1b", None)
    assert isinstance(s.shown, PuzzleResult) and s.shown.order.n_ops == 3
    assert "puzzle=1f1b&cap=P-r&moves=0F0,1F0,0F1" in encode(s.state())
    s.apply_query("", "#puzzle=1f1b&moves=0F0,1F0,2B0,0F1")
    assert s.moves == "0F0,1F0" and [n.text() for n in s.notes] == [
        "moves: move 3, 2B0, is refused (B(mb 0, stage 2) needs B(mb 0, stage 3) from rank 3, not run yet); "
        "the 2 moves before it are kept"]
    s.apply_query("", "#puzzle=1f1b&moves=0F0,junk!")
    assert s.moves == "0F0" and len(s.notes) == 1 and s.notes[0].args["text"] == "junk!"
    updates, notes = parse("", "#puzzle=hard&cap=99")
    assert updates == {} and [n.key for n in notes] == ["url.choice", "url.choice"]
    # Old URLs keep working: no puzzle.
    s.apply_query("?schedule=zb-h1&P=4&m=8", "")
    assert s.puzzle == "off" and s.schedule == "zb-h1"


def test_the_rule_keeps_a_puzzle_placeable_by_hand():
    s = Session()
    s.update({"P": 16, "m": 64})
    s.update({"puzzle": "interleaved"})
    assert (s.P, s.m, s.V, s.schedule) == (P_MAX, M_MAX, 2, "interleaved")
    assert {n.key for n in s.notes} == {"rule.puzzle_max"}  # the puzzle brings its V along
    s.update({"m": 3})  # below m = P the puzzle is PyTorch's interleaved order: m stays
    assert s.m == 3 and s.problem is None and "rule.m_snap" not in {n.key for n in s.notes}
    s.update({"m": P_MAX})
    s.update({"moves": "0F0,0F7,1F0"})
    s.update({"m": 1})  # 0F7 and all after it no longer fit: the moves that do stay, and a note says so
    assert (s.m, s.moves) == (1, "0F0") and s.notes[0].key == "rule.puzzle_moves"
    s.update({"m": P_MAX})
    s.update({"moves": "0F0,0F7,1F0"})
    s.update({"P": 4, "m": 6})  # 0F7 and all after it no longer fit
    assert (s.P, s.m, s.moves) == (4, 6, "0F0") and s.notes[0].key == "rule.puzzle_moves"
    s.update({"V": 1})
    assert s.V == 2 and s.notes[0].key == "rule.puzzle_v"
    s.update({"schedule": "gpipe"})  # a schedule chosen: the puzzle is put away, its moves kept
    assert s.puzzle == "off" and s.moves == "0F0" and s.notes[0].key == "rule.puzzle_off"
    s.update({"puzzle": "1f1b"})  # a puzzle chosen: empty, at its cap
    assert (s.moves, s.cap, s.V) == ("", "P-r", 1)


def test_costs_the_engine_refuses_are_a_problem_not_an_exception():
    state = {**{k: f.default for k, f in FIELDS.items()}, "puzzle": "1f1b", "cap": "P-r", "tf": -1.0}
    from pipeviz.view.state import normalize

    out, _ = normalize(state, {"tf"})
    assert out["puzzle"] == "1f1b"
    with pytest.raises(ConfigError):
        view.run(out)


def test_open_as_your_own_order():
    s = Session()
    s.update({"puzzle": "1f1b"})
    st_ = at("1f1b")
    s.update({"moves": ",".join(solution(st_))})
    updates, said = view.act(s.state(), {"what": "own"})
    s.update(updates)
    assert s.custom and s.puzzle == "off" and said.key == "puzzle.opened"
    assert s.shown.order.to_text() == run(Config("1f1b", 4, 8, 1)).order.to_text()


def test_actions_from_a_browser_are_checked():
    state = {**{k: f.default for k, f in FIELDS.items()}, "puzzle": "1f1b", "cap": "P-r"}
    for junk in (None, 3, [], {"what": "rm -rf"}, {"what": "set", "field": "P", "value": "9"},
                 {"what": "set", "field": "cap", "value": 4}):
        assert view.act(state, junk) == ({}, None)
    updates, said = view.act(state, {"what": "place", "move": "0F0" * 100, "rank": "0"})
    assert updates == {} and said.args["why"].key == "puzzle.not_op"
    assert view.act({**state, "puzzle": "off"}, {"what": "undo"}) == ({}, None)


def test_the_block_in_both_languages():
    state = {**{k: f.default for k, f in FIELDS.items()}, "puzzle": "1f1b", "cap": "P-r", "moves": "0F0,1F0"}
    said = place(at("1f1b"), "0F0,1F0", "", "9F9").said
    v = view.block_values(state, said)
    en, zh = view.block_html(v, "en"), view.block_html(v, "zh")
    assert 'data-move="0F1"' in en and "rank 0 would hold" not in en and "Build it yourself" in en
    assert "自己动手排" in zh and 'aria-label="1B0：B（微批次 0，第 1 段），还不能放' in zh
    assert view.live_text(v, "en").startswith("Refused: 9F9 is not in this puzzle")
    assert view.live_text(v, "zh").startswith("不行：9F9 不在这道题里")
    off = view.block_values({**state, "puzzle": "off"})
    assert 'data-field="puzzle"' in view.block_html(off, "en") and view.live_text(off, "en") == ""


def test_encoded_moves_fit_the_field():
    s = at("interleaved", P=P_MAX, m=M_MAX, V=GOALS["interleaved"].V[1])
    longest = moves_text([("B", M_MAX - 1, s.S - 1, 0)] * s.total)
    assert len(longest) <= FIELDS["moves"].max_len
