"""One reader's explorer, as state: the fields of every feature (view/features.py)
declared once as `param` parameters, and what the engine makes of them.

The fields are declared in the class body, each from its entry in the field table
(`view/fields.FIELDS`: its default, range and choices), grouped by the feature that
owns it; a field a feature adds and the class does not declare fails at import.

Every change takes one path (`_derive`): the shared rules (`view/state.normalize`)
make the state valid, correcting fields where they must; the engine runs if a field
it reads changed; then the derived values are set together, and `revision` counts
the change, which is what a view follows:

  result    the Result the figures show: the last valid one
  shown     the Result to draw for this change, None when this change was refused
            (the figures keep the last valid one, the notice says why)
  problem   why the state cannot be shown (a Msg), or None
  notes     what the rules adjusted (Msgs), shown until the next change
  memory    bytes per rank of the shown result (memory.Memory), the reason there
            are none (a Msg), or None without a model

What follows the chart later (the comparison table, the encoder's placements) is
derived on request, `table_rows` and `places_rows`, each computed once per result.
Nothing here knows about widgets or Panel: a view (served/view.py) is built on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache

import param

from ..config import Config
from ..engine import Result, run
from ..errors import ConfigError, OrderError, TraceError
from ..text import Msg, msg
from ..trace import what_if
from ..view import closing, memory_view, own_order, puzzle, readouts, run_view, tradeoff
from ..view.field import Field
from ..view.fields import FIELDS, PRESETS, with_base
from ..view.fields import parse as parse_url
from ..view.state import ENGINE_FIELDS, config, normalize, row_config


@lru_cache(maxsize=int(os.environ.get("PIPEVIZ_CACHE", "64")))
def run_cached(cfg: Config) -> Result:
    """Engine results shared by every session: a result depends only on its Config.
    PIPEVIZ_CACHE=0 turns the cache off (benchmarks/app.py measures cold updates)."""
    return run(cfg)


def parameter(name: str) -> param.Parameter:
    """The parameter of field `name`, from the field table. No `doc`: Panel shows a
    parameter's doc as its widget's tooltip, and a field's name ("lang", "tf") is no
    word for a reader in any language."""
    f: Field = FIELDS[name]
    if f.kind == "int":
        return param.Integer(default=f.default, bounds=(f.low, f.high))
    if f.kind == "float":
        return param.Number(default=f.default, bounds=(f.low, f.high))
    if f.kind == "bool":
        return param.Boolean(default=f.default)
    if f.kind == "text":
        return param.String(default=f.default)
    return param.Selector(default=f.default, objects=list(f.choices))


class Session(param.Parameterized):
    # -- a puzzle: the student places the ops (view/puzzle.py) ------------------------------
    puzzle = parameter("puzzle")
    cap = parameter("cap")
    moves = parameter("moves")
    redo = parameter("redo")
    # -- an order of one's own (view/own_order.py) --------------------------------------
    order = parameter("order")
    placement = parameter("placement")
    custom = parameter("custom")
    # -- the schedule, P, m, V, the costs, the unit and the language (view/schedule_view.py)
    schedule = parameter("schedule")
    P = parameter("P")
    m = parameter("m")
    V = parameter("V")
    tf = parameter("tf")
    tb = parameter("tb")
    tw = parameter("tw")
    comm = parameter("comm")
    tfb = parameter("tfb")
    unit = parameter("unit")
    lang = parameter("lang")
    # -- the article's closing section: an encoder in the bubbles, balancing (view/closing.py)
    encoder = parameter("encoder")
    ef = parameter("ef")
    eb = parameter("eb")
    frozen = parameter("frozen")
    balance = parameter("balance")
    # -- a model: bytes per rank, unequal stages (view/memory_view.py)
    model = parameter("model")
    L = parameter("L")
    h = parameter("h")
    a = parameter("a")
    vocab = parameter("vocab")
    untied = parameter("untied")
    s = parameter("s")
    b = parameter("b")
    t = parameter("t")
    act = parameter("act")
    bpp = parameter("bpp")
    embed = parameter("embed")
    head = parameter("head")
    hbm = parameter("hbm")
    stages = parameter("stages")
    weights = parameter("weights")
    over_time_unit = parameter("over_time_unit")
    # -- the teaching toggles (view/teach.py)
    critical = parameter("critical")
    projector = parameter("projector")

    # -- derived: set only by the session, at each change ---------------------------------
    result = param.ClassSelector(class_=Result, default=None, allow_None=True, doc="the last valid result")
    shown = param.ClassSelector(class_=Result, default=None, allow_None=True,
                                doc="the result to draw for this change (None: refused)")
    problem = param.ClassSelector(class_=Msg, default=None, allow_None=True, doc="why the state cannot be shown")
    notes = param.List(default=[], item_type=Msg, doc="what the rules adjusted at this change")
    memory = param.Parameter(default=None, doc="bytes per rank of the shown result, why there are none, or None")
    revision = param.Integer(default=0, doc="changes so far: a view redraws at each")
    # A real run (view/run_view.py): shown instead of the schedules until one of LEAVE
    # moves or "Back to the schedules"; files are not fields (no URL holds them).
    real = param.ClassSelector(class_=run_view.Shown, default=None, allow_None=True, doc="the real run shown")
    real_problem = param.ClassSelector(class_=Msg, default=None, allow_None=True,
                                       doc="why the files chosen last are not a run, until the next change")

    def __init__(self, **params):
        super().__init__(**params)
        self.result_state: dict = {}  # the state the last valid result came from
        self._memory_for: tuple | None = None  # what self.memory was computed for
        self._table: tuple = (None, [])  # (what the rows depend on, the rows)
        self._places: tuple = (None, [])
        self._tradeoff: tuple = (None, None)
        self._deriving = False  # the rules' own corrections come back through the watcher
        self.param.watch(self._changed, list(FIELDS))
        # The fields given here are shown as they are: the rules adjust changes (a
        # changed shape makes the model "custom"), and a URL's values come as one.
        self._derive(set(FIELDS), [], rules=False)

    def state(self) -> dict:
        return {k: getattr(self, k) for k in FIELDS}

    def config(self) -> Config:
        return config(self.state())

    # -- changes ----------------------------------------------------------------------------

    def update(self, updates: dict, notes: list[Msg] = (), named: set | None = None) -> None:
        """Apply several values at once (a preset, a URL), as one change. `named` (default:
        all of them) are the ones asked for; the others (a URL's unnamed fields, back at
        their defaults) take their values without the rules reading them as changed."""
        moved = {k for k, v in updates.items() if getattr(self, k) != v}
        self._deriving = True
        try:
            self.param.update(**updates)
        finally:
            self._deriving = False
        self._derive(set(updates) if named is None else set(named), list(notes), moved=moved)

    def apply_preset(self, name: str) -> None:
        self.update(dict(PRESETS[name].values))

    def apply_query(self, search: str, fragment: str = "") -> None:
        """Open the view a URL's query and fragment ask for, noting what was not valid."""
        updates, notes = parse_url(search, fragment)
        self.update(with_base(updates), notes, named=set(updates))

    def edit_schedule(self) -> None:
        """Put the shown schedule's order in the order box, as text, and show it from
        there, so that a change to it shows at once."""
        res = self.result
        if res is None or res.theory is None:  # an order of one's own is in the box already
            return
        self.update({"order": res.order.to_text(), "placement": res.schedule.placement, "custom": True})

    def show_own(self, text: str) -> None:
        """Show the order of one's own that `text` holds ("Show my order": pressed again
        after an edit, it shows the edit)."""
        self.update({"order": text, "custom": True})

    # -- a real run ------------------------------------------------------------------------------

    def show_run(self, files: list[tuple[str, bytes, str]]) -> None:
        """Read uploaded traces (name, bytes, type) and show the run, or say what is wrong
        with them and keep the view as it was."""
        try:
            rep = run_view.read_uploads(files)
        except TraceError as e:
            self.param.update(real_problem=e.msg, notes=[], revision=self.revision + 1)
            return
        self.param.update(real=run_view.Shown(rep, run_view.result_of(rep)), real_problem=None, notes=[],
                          revision=self.revision + 1)

    def run_what_if(self) -> None:
        """Every schedule at the run's costs, in the comparison table."""
        r = self.real
        if r is not None and r.what is None:
            self.param.update(real=run_view.Shown(r.report, r.result, what_if(r.report)), revision=self.revision + 1)

    def leave_run(self) -> None:
        if self.real is not None:
            self.param.update(real=None, real_problem=None, notes=[], revision=self.revision + 1)

    def _changed(self, *events) -> None:
        if not self._deriving:
            self._derive({e.name for e in events}, [])

    def _derive(self, changed: set, notes: list[Msg], rules: bool = True, moved: set = frozenset()) -> None:
        """The one path of every change: make the state valid (the rules read `changed`),
        run the engine if a field it reads changed or `moved`, then set every derived
        value at once."""
        state, more = normalize(self.state(), changed) if rules else (self.state(), [])
        fixes = {k: v for k, v in state.items() if getattr(self, k) != v}
        if fixes:
            self._deriving = True
            try:
                self.param.update(**fixes)  # widgets follow; this watcher does not run again
            finally:
                self._deriving = False
            changed = changed | set(fixes)
        derived: dict = {"notes": list(notes) + more, "revision": self.revision + 1, "real_problem": None}
        if self.real is not None and changed & set(run_view.LEAVE):
            derived["real"] = None  # back to the schedules
            derived["notes"].append(msg("run.off"))
        res, problem = self.result, self.problem
        if (changed | moved) & set(ENGINE_FIELDS) or res is None:
            # else the state is as valid or invalid as before: a unit or language change keeps the warning
            try:
                res, problem = self._run(state), None
            except (ConfigError, OrderError) as e:
                res, problem = None, e.msg
        if res is not None and problem is None:  # a valid state: its bytes
            self.result_state = state
            # (an order of one's own has the config of any other with its P, m and V)
            key = (res.config, memory_view.memory_key(state), res if res.theory is None else None)
            if key != self._memory_for:  # a unit or language change keeps the bytes
                self._memory_for = key
                derived["memory"] = memory_view.memory_of(res, state)
        if res is not None:
            derived["result"] = res
        self.param.update(shown=res, problem=problem, **derived)

    def _run(self, state: dict) -> Result:
        """The schedule's result, the puzzle's or the order's of one's own when that is shown."""
        if puzzle.shown(state):
            return puzzle.run(state)
        if own_order.shown(state):
            return own_order.run(state, config(state).costs)
        return run_cached(config(state))

    # -- derived on request: what follows the chart ---------------------------------------------

    def table_rows(self, run: Callable[[Config], Result] = run_cached) -> list[dict]:
        """The comparison table's rows for the shown result (readouts.table_values),
        computed once per result and model: a unit or language change keeps them."""
        res, shown = self.result, self.result_state
        key = (res.config, memory_view.memory_key(shown), shown.get("stages"), shown.get("weights"),
               res if res.theory is None else None)
        if self._table[0] != key:
            own = res if res.theory is None else None
            memory = (lambda r: memory_view.memory_of(r, shown)) if shown.get("model", "none") != "none" else None
            self._table = (key, readouts.table_values(res.config, run, lambda name: row_config(shown, name), memory,
                                                      own))
        return self._table[1]

    def tradeoff_values(self, run: Callable[[Config], Result] = run_cached) -> dict:
        """The trade-off view's points for the shown result (view/tradeoff.py), computed
        once per P, m, costs, model and stage weights; points still to come (`run`
        refusing them as pending) are not kept."""
        res, shown = self.result, self.result_state
        key = tradeoff.key(shown, res.config)
        if self._tradeoff[0] != key:
            got = tradeoff.values(shown, res.config, run)
            if got["pending"]:
                return got
            self._tradeoff = (key, got)
        return self._tradeoff[1]

    def places_rows(self, run: Callable[[Config], Result] = run_cached) -> list[dict]:
        """The encoder's three placements compared (view/closing.py), once per result;
        an order of one's own has none."""
        res = self.result
        if self._places[0] is not res:
            self._places = (res, [] if res.theory is None else closing.placements_values(res.config, run))
        return self._places[1]


_undeclared = set(FIELDS) - set(Session.param)
if _undeclared:  # a feature added a field: declare it above, in its feature's group
    raise TypeError(f"Session does not declare the fields {sorted(_undeclared)}")
