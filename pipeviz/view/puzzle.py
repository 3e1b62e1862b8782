"""The explorer's side of the puzzles (the logic is `pipeviz.puzzle`): the fields, the
rule, what a click or a key does, the puzzle's block and what the figures show.

Fields (in the URL but `redo`): `puzzle` (off, or a goal), `cap` (none, P-r, P or a
number), `moves` (the placed ops, `0F0,1F0,...`), `redo` (the moves undone, next
first). A course page links a puzzle: `#puzzle=1f1b&moves=0F0,1F0`.

Rule: while a puzzle is on, P and m stay within what a hand can place, V within the
goal's range, m where par's schedule accepts it (as the schedules' rule would move
it), the schedule is the goal's (going back shows it), and the moves are replayed: the first
refused one and every one after it are dropped, with one note (a URL's bad move
included). Choosing a puzzle opens it empty with its cap; choosing a schedule or an
order of one's own puts it away (its moves stay for when it is chosen again).

Both explorers show the same block, built here (`block_values`, `block_html`; the
page's twin is static/puzzle_view.js) and run by static/puzzle_board.js in the
browser; the block sends each click and key back as an action (`act`).
"""

from __future__ import annotations

from html import escape

from ..config import Encoder
from ..costs import Costs
from ..engine import Result
from ..errors import ConfigError
from ..order import KIND_CODES
from ..puzzle import (
    CAP_MAX,
    CAPS,
    DIFF_SHOWN,
    ENCODER_KINDS,
    GOALS,
    M_MAX,
    MOVES_MAX,
    NAMES,
    OFF,
    P_MAX,
    PAR_PLACE,
    SEP,
    Board,
    Setup,
    clear,
    config_of,
    hint,
    move_text,
    moves_text,
    op_msg,
    place,
    redo_move,
    replay_cached,
    result,
    score,
    setup_of,
    undo,
)
from ..registry import check
from ..text import LANGS, Msg, fill, join, msg, template
from . import columns, markup, teach
from .feature import Feature
from .field import Field
from .palette import DISPLAY_KIND, MAX_CHUNKS, chunk_palette, label_color

FIELDS = (
    Field(name="puzzle", kind="choice", default=OFF, choices=NAMES),
    Field(name="cap", kind="choice", default="none", choices=CAPS),
    Field(name="moves", kind="text", default="", max_len=MOVES_MAX),
    Field(name="redo", kind="text", default="", in_url=False, max_len=MOVES_MAX),
)
ACTIONS = ("place", "undo", "redo", "clear", "hint", "own", "set")
SETTABLE = ("puzzle", "cap")  # the block's own menus

LAYOUTS = {
    "pz": '<section class="pv-pz" aria-labelledby="pv-pz-title"><h3 id="pv-pz-title" class="pv-pz-title">{title}</h3>'
          "{body}</section>",
    # Put away: one line that opens (the first screen stays the explorer's, in an iframe too).
    "pz_closed": '<section class="pv-pz pv-pz-closed" aria-labelledby="pv-pz-title"><details>'
                 '<summary id="pv-pz-title" class="pv-pz-title">{title}</summary>{body}</details></section>',
    "pz_intro": '<p class="pv-pz-intro">{text}</p>',
    "pz_setup": '<div class="pv-pz-setup">{fields}</div>',
    "pz_select": '<label class="pv-pz-field"><span>{label}</span><select data-field="{name}" data-key="field:{name}" '
                 'aria-label="{label}">{options}</select></label>',  # named by its label only, not its value too
    "pz_option": '<option value="{value}"{selected}>{text}</option>',
    "pz_goal": '<p class="pv-pz-goal">{text}</p>',
    "pz_tools": '<div class="pv-pz-tools">{buttons}</div>',
    "pz_tool": '<button type="button" class="pv-pz-tool" data-act="{act}" data-key="act:{act}">{text}</button>',
    "pz_board": '<div class="pv-pz-board" role="group" aria-label="{label}" aria-describedby="pv-pz-keys">{ranks}</div>'
                '<p id="pv-pz-keys" class="pv-pz-keys">{keys}</p>',
    "pz_live": '<p class="pv-pz-live" role="status" aria-live="polite" aria-atomic="true"></p>',
    "pz_rank": '<div class="pv-pz-rank" role="group" data-rank="{rank}" data-key="rank:{rank}" tabindex="-1" '
               'aria-label="{label}">'
               '<span class="pv-pz-head"><b>{name}</b> {state}</span>{ops}</div>',
    "pz_op": '<button type="button" class="pv-pz-op pv-pz-{status}" data-act="place" data-move="{move}" '
             'data-rank="{rank}" data-kind="{kind}" data-key="op:{rank}:{slot}" tabindex="-1" aria-label="{label}" '
             'style="{style}">{token}{mark}</button>',
    "pz_mark": '<span class="pv-pz-mark">{text}</span>',
    "pz_type": '<form class="pv-pz-type"><label><span>{label}</span><input type="text" data-field="typed" '
               'aria-label="{label}" data-key="field:typed" autocomplete="off" autocapitalize="characters" '
               'spellcheck="false" '
               'maxlength="20" placeholder="1F0"></label><button type="submit" data-key="act:type">{place}</button></form>',
    "pz_score": '<div class="pv-pz-score"><p class="pv-pz-line">{score}</p><p class="pv-pz-line">{par}</p>'
                '<p class="pv-pz-verdict pv-pz-{cls}">{verdict}</p>{more}</div>',
    "pz_line": '<p class="pv-pz-line">{text}</p>',
    "pz_text": '<details class="pv-pz-text"><summary>{summary}</summary><pre>{text}</pre></details>',
}


def compose(layout: str, **parts: str) -> str:
    return markup.compose(LAYOUTS, layout, **parts)


# -- the state ------------------------------------------------------------------------------


def shown(state: dict) -> bool:
    return state.get("puzzle", OFF) != OFF


def setup(state: dict) -> Setup:
    """The puzzle the state shows (shown(state) must hold)."""
    costs = Costs(state["tf"], state["tb"], state["tw"], state["comm"], state.get("tfb") or None)
    enc = Encoder(state["ef"], state["eb"], PAR_PLACE, bool(state["frozen"]))
    return setup_of(state["puzzle"], state["P"], state["m"], state["V"], state["cap"], costs, enc)


def board(state: dict) -> Board:
    return replay_cached(setup(state), state["moves"])


def run(state: dict) -> Result:
    """What the explorer draws for the puzzle (pipeviz.puzzle.result)."""
    return result(board(state))


def refused_by_par(state: dict) -> Msg | None:
    """Why par's schedule refuses the puzzle's size (Megatron's interleaved order: m >= P), or None."""
    s = setup(state)
    try:
        check(config_of(s, s.goal.known))
    except ConfigError as e:
        return e.msg
    return None


def rule(state: dict, changed: set, notes: list[Msg]) -> bool:
    """Apply the rule (the module's docstring) to `state`, in place."""
    name = state.get("puzzle", OFF)
    if name == OFF:
        return False
    if "puzzle" not in changed and ("schedule" in changed or (state.get("custom") and "custom" in changed)):
        state["puzzle"] = OFF
        notes.append(msg("rule.puzzle_off"))
        return False
    goal = GOALS[name]
    state["custom"] = False
    if "puzzle" in changed:  # a puzzle chosen: empty, at its cap (a URL may give both)
        for key, fresh in (("cap", goal.cap), ("moves", ""), ("redo", "")):
            if key not in changed:
                state[key] = fresh
    for key, high in (("P", P_MAX), ("m", M_MAX)):
        if state[key] > high:
            state[key] = high
            notes.append(msg("rule.puzzle_max", key=key, high=high))
    low, high = goal.V
    if not low <= state["V"] <= high:  # a puzzle chosen brings its V along; a V moved is told
        state["V"] = min(max(state["V"], low), high)
        if "puzzle" not in changed or "V" in changed:
            notes.append(msg("rule.puzzle_v", low=low, high=high, V=state["V"]))
    state["schedule"] = goal.known  # par
    try:
        setup(state)
    except ConfigError:  # costs the engine refuses: the explorer says so, as for any schedule
        return False
    why = refused_by_par(state)
    if why is not None:  # m as par's rule would move it, before the moves are replayed at it
        m = next((c for d in range(1, M_MAX) for c in (state["m"] + d, state["m"] - d)
                  if 1 <= c <= M_MAX and refused_by_par({**state, "m": c}) is None), None)
        if m is not None:
            state["m"] = m
            notes.append(msg("rule.m_snap", why=why, m=m))
    b = board(state)
    if b.refused is not None:
        n, text, why = b.refused
        state["moves"], state["redo"] = moves_text(b.moves), ""
        notes.append(msg("rule.puzzle_moves", n=n + 1, text=text, why=why, kept=len(b.moves)))
    return False


def act(state: dict, action) -> tuple[dict, Msg | None]:
    """What an action from the block does: the fields to update and what to say.
    The action is a browser's: anything not an action is nothing."""
    if not isinstance(action, dict) or action.get("what") not in ACTIONS:
        return {}, None
    what = action["what"]
    if what == "set":
        field, value = action.get("field"), action.get("value")
        if field in SETTABLE and isinstance(value, str) and value in (NAMES if field == "puzzle" else CAPS):
            return {field: value}, None
        return {}, None
    if not shown(state):
        return {}, None
    s = setup(state)
    moves, redo = state["moves"], state["redo"]
    if what == "hint":
        return {}, hint(replay_cached(s, moves))
    if what == "own":
        b = replay_cached(s, moves)
        said = msg("puzzle.own_encoder" if s.encoder is not None else "puzzle.opened")
        return {"order": b.order.to_text(), "placement": "loop", "custom": True, "puzzle": OFF}, said
    if what == "place":
        text, rank = action.get("move"), action.get("rank")
        text = text[:40] if isinstance(text, str) else ""
        rank = rank if isinstance(rank, int) and not isinstance(rank, bool) and 0 <= rank < s.P else None
        out = place(s, moves, redo, text, rank)
    else:
        out = {"undo": undo, "redo": redo_move, "clear": clear}[what](s, moves, redo)
    updates = {} if out.moves is None else {"moves": out.moves, "redo": out.redo}
    return updates, out.said


# -- the block --------------------------------------------------------------------------------


def cap_label(cap: str) -> Msg:
    if cap in ("none", "P-r", "P"):
        return Msg(f"choice.cap.{cap}")
    return msg("puzzle.cap_n", n=int(cap))


def op_style(kind: str, stage: int, P: int, V: int) -> str:
    """A ready op's button in its timeline colour (its kind, shaded by chunk), with
    black or white text."""
    chunk = 0 if stage < 0 else stage // P
    color = chunk_palette(V)[int(DISPLAY_KIND[KIND_CODES[kind]]) * MAX_CHUNKS + chunk]
    return f"background:{color};color:{label_color(color)};border-color:{color}"


def block_values(state: dict, said: Msg | None = None) -> dict:
    """Everything the block shows, as values (static/puzzle_view.js's twin compares them)."""
    name = state.get("puzzle", OFF)
    out = {"puzzle": name, "cap": state.get("cap", "none"), "said": said, "ranks": None, "score": None,
           "text": None, "goal": None}
    if name == OFF:
        return out
    b = board(state)
    s = b.setup
    ranks = []
    for r in range(s.P):
        cands = []
        for mv, why in b.candidates(r):
            kind, _, stage, _ = mv
            status = "ok" if why is None else "cap" if why.key == "puzzle.cap" else "wait"
            cands.append({
                "move": move_text(mv), "token": move_text(mv).split("@")[0], "kind": kind,
                "slot": kind if kind in ENCODER_KINDS else f"{stage}{kind}", "op": op_msg(mv), "why": why,
                "status": status, "style": op_style(kind, stage, s.P, s.V) if why is None else "",
            })
        cap = s.cap_of(r)
        ranks.append({"rank": r, "placed": len(b.ranks[r]), "held": int(b.held[r]), "cap": cap,
                      "free": f"{b.free(r):.6g}", "cands": cands})
    out.update(goal=s.goal.name, ranks=ranks, score=score(b), text=b.order.to_text())
    return out


def options(name: str, values, selected: str, lang: str) -> str:
    opts = []
    for v in values:
        text = template(f"choice.puzzle.{v}", lang) if name == "puzzle" else cap_label(v).text(lang)
        opts.append(compose("pz_option", value=escape(v), selected=" selected" if v == selected else "",
                            text=escape(text)))
    return "".join(opts)


def select(name: str, values, selected: str, lang: str) -> str:
    return compose("pz_select", label=escape(template(f"field.{name}", lang)), name=name,
                   options=options(name, values, selected, lang))


def rank_html(rv: dict, lang: str) -> str:
    if rv["cap"] is None:
        state = fill("puzzle.rank_state", lang, placed=rv["placed"], held=rv["held"], free=rv["free"])
    else:
        state = fill("puzzle.rank_state_cap", lang, placed=rv["placed"], held=rv["held"], cap=rv["cap"], free=rv["free"])
    name = fill("puzzle.rank_name", lang, rank=rv["rank"])
    ops = []
    for c in rv["cands"]:
        if c["why"] is None:
            label, mark = fill("puzzle.cand_ready", lang, token=c["token"], op=c["op"]), ""
        else:
            label = fill("puzzle.cand_not", lang, token=c["token"], op=c["op"], why=c["why"])
            mark = compose("pz_mark", text=escape(template(f"puzzle.mark_{c['status']}", lang)))
        ops.append(compose("pz_op", status=c["status"], move=escape(c["move"]), rank=str(rv["rank"]), kind=c["kind"],
                           slot=escape(c["slot"]), label=escape(label), style=c["style"], token=escape(c["token"]),
                           mark=mark))
    if not ops:
        ops.append(escape(template("puzzle.rank_done", lang)))
    return compose("pz_rank", rank=str(rv["rank"]), label=escape(f"{name}: {state}"), name=escape(name),
                   state=escape(state), ops="".join(ops))


def peaks(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def score_html(sc: dict, lang: str) -> str:
    line = fill("puzzle.score", lang, html=True, placed=sc["placed"], total=sc["total"], makespan=sc["makespan"],
                bubble=sc["bubble"], peak=peaks(sc["peak"]))
    par = sc["par"]
    if par is not None:
        par_line = fill("puzzle.par", lang, html=True, name=par["name"], makespan=par["makespan"], bubble=par["bubble"],
                        peak=peaks(par["peak"]))
    else:
        par_line = fill("puzzle.no_par", lang, html=True, why=sc["no_par"])
    more = []
    if sc["equals"] is not None:
        more.append(fill("puzzle.equals", lang, html=True, name=sc["equals"]))
    if sc["differs"] is not None:
        d = sc["differs"]
        more.append(fill("puzzle.differs", lang, html=True, name=d["name"], n=d["n"], total=d["total"],
                         first=join([m.text(lang) for m in d["first"]], lang)))
        more.append(fill("puzzle.compare", lang, html=True, name=d["name"], P=len(sc["peak"])))
    cls = "solved" if sc["solved"] else "open"
    return compose("pz_score", score=line, par=par_line, cls=cls, verdict=sc["verdict"].html(lang),
                   more="".join(compose("pz_line", text=t) for t in more))


def block_html(v: dict, lang: str = "en") -> str:
    fields = [select("puzzle", NAMES, v["puzzle"], lang)]
    if v["ranks"] is None:
        body = compose("pz_intro", text=escape(template("puzzle.intro", lang))) + compose("pz_setup", fields=fields[0])
        return compose("pz_closed", title=escape(template("puzzle.title", lang)), body=body)
    fields.append(select("cap", CAPS, v["cap"], lang))
    goal = template(f"puzzle.goal.{v['goal']}", lang)
    if v["score"]["solved"]:
        goal += " " + template(f"puzzle.lesson.{v['goal']}", lang)
    tools = "".join(compose("pz_tool", act=a, text=escape(template(f"puzzle.{a}", lang)))
                    for a in ("undo", "redo", "clear", "hint", "own"))
    body = "".join([
        compose("pz_setup", fields="".join(fields)),
        compose("pz_goal", text=escape(goal)),
        compose("pz_tools", buttons=tools),
        LAYOUTS["pz_live"],
        compose("pz_board", label=escape(template("puzzle.board", lang)), keys=escape(template("puzzle.keys", lang)),
                ranks="".join(rank_html(rv, lang) for rv in v["ranks"])),
        compose("pz_type", label=escape(template("puzzle.type", lang)), place=escape(template("puzzle.place", lang))),
        score_html(v["score"], lang),
        compose("pz_text", summary=escape(template("puzzle.text", lang)), text=escape(v["text"])),
    ])
    return compose("pz", title=escape(template("puzzle.title", lang)), body=body)


def live_text(v: dict, lang: str = "en") -> str:
    """What the block's live region says: what the last action did, then the score."""
    sc, said = v["score"], v["said"]
    if sc is None:
        return "" if said is None else said.text(lang)
    line = msg("puzzle.score", placed=sc["placed"], total=sc["total"], makespan=sc["makespan"], bubble=sc["bubble"],
               peak=peaks(sc["peak"]))
    if said is None:
        return fill("puzzle.live_score", lang, score=line, verdict=sc["verdict"])
    return fill("puzzle.live", lang, said=said, score=line, verdict=sc["verdict"])


# -- the figures -----------------------------------------------------------------------------


# The rows of each hover (view/columns.py's texts) that hold while par is drawn below
# the order: not the rank, stage or why (they would name rows of the picture, not ranks).
COMPARE_HOVERS = {"ops_hover": (0, 3, 4), "bubbles_hover": (1, 2), "bars_hover": (1, 2, 3, 4, 5)}


def figure_view(res: Result, lang: str = "en") -> dict:
    """What the figures show beside the figure view: the rank axis names the rows
    while par is drawn below the order (`pipeviz.puzzle.compared`), and the hovers
    leave out the ranks and stages of that picture's rows and the idle gaps' causes
    (they would name rows, not ranks)."""
    yours = getattr(res, "yours", None)
    if yours is None:
        return {"sources": {}, "props": {"rank_axis": {"major_label_overrides": {}}}}
    P = yours.config.P
    rows = {r: fill("puzzle.row_yours", lang, rank=r) for r in range(P)}  # by tick: numbers, as Bokeh looks them up
    rows.update({P + r: fill("puzzle.row_par", lang, rank=r) for r in range(P)})
    waits = {k: v[:0] for k, v in teach.waits(res).items()}
    texts = columns.texts(lang)
    hovers = {name: {"tooltips": [texts[name]["tooltips"][i] for i in keep]} for name, keep in COMPARE_HOVERS.items()}
    return {"sources": {"waits": waits}, "props": {"rank_axis": {"major_label_overrides": rows}, **hovers}}


def as_data() -> dict:
    """What static/puzzle.js and static/puzzle_view.js read instead of repeating it."""
    return {
        "off": OFF, "names": list(NAMES), "caps": list(CAPS), "capMax": CAP_MAX, "pMax": P_MAX, "mMax": M_MAX,
        "sep": SEP, "diffShown": DIFF_SHOWN, "parPlace": PAR_PLACE, "movesMax": MOVES_MAX,
        "encoderKinds": list(ENCODER_KINDS), "actions": list(ACTIONS), "settable": list(SETTABLE),
        "goals": [{"name": g.name, "known": g.known, "split": g.split, "encoder": g.encoder, "V": list(g.V),
                   "cap": g.cap, "holdsAll": g.holds_all} for g in GOALS.values()],
        "langs": list(LANGS), "compareHovers": {k: list(v) for k, v in COMPARE_HOVERS.items()},
    }


# Its fields come last (in the URL too: a permalink reads schedule=... first); its rule
# comes first (view/features.py).
FEATURE = Feature(name="puzzle", fields=FIELDS, engine_fields=("puzzle", "cap", "moves"), layouts=LAYOUTS,
                  data=as_data)
RULE = Feature(name="puzzle_rule", rule=rule)

__all__ = ["FEATURE", "FIELDS", "RULE", "act", "block_html", "block_values", "figure_view", "live_text", "rule", "run",
           "setup", "shown", "SEP"]
