"""The Bokeh figures both explorers draw into (no browser)."""

import math

from bokeh.core.validation import check_integrity
from bokeh.core.validation.check import ValidationIssues
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeviz import Config, run
from pipeviz.registry import get
from pipeviz.render.figures import Figures
from pipeviz.view import sweep
from pipeviz.view.columns import figure_view


def test_figures_pass_bokehs_own_checks():
    """A glyph's string property names a column unless wrapped in value(): the
    labels' font once did, which Bokeh reported as E-1001 and the browser warned
    about on every paint."""
    figs = Figures()
    figs.apply(figure_view(run(Config("interleaved", 4, 8, 2))))
    models = set()
    for fig in (figs.timeline, figs.inflight, figs.over_time):
        models |= fig.references()
    issues: ValidationIssues = check_integrity(models)
    assert issues.error == [] and issues.warning == []


def _sent(figs, view) -> set:
    """The sources whose data an apply() of `view` assigns (each is sent and repainted)."""
    sent = set()
    for name, source in figs.sources.items():
        source.on_change("data", lambda attr, old, new, name=name: sent.add(name))
    figs.apply(view)
    return sent


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["gpipe", "1f1b", "interleaved", "zb-h1", "zb-v"]), st.integers(2, 8), st.integers(1, 3))
def test_the_same_view_again_sends_nothing(schedule, P, k):
    """Applying a view whose columns equal what is shown assigns no source, NaN
    included: the sweep's closed-form lines hold NaN where a schedule has none at some
    m, and NaN != NaN once had them sent and the sweep repainted at every keypress."""
    V = get(schedule).fixed_V or (2 if schedule == "interleaved" else 1)
    cfg = Config(schedule, P, k * P, V)  # m a multiple of P: valid for all
    figs = Figures()
    views = (lambda: figure_view(run(cfg)), lambda: sweep.figure_view(sweep.cached_values(cfg), cfg))
    for view in views:  # each made again, as each update makes it
        figs.apply(view())
        assert _sent(figs, view()) == set()
    assert any(math.isnan(y) for i in range(len(sweep.NAMES)) for y in figs.sources[f"sweep_line_{i}"].data["y"])
