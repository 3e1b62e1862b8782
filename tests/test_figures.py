"""The Bokeh figures both explorers draw into (no browser)."""

from bokeh.core.validation import check_integrity
from bokeh.core.validation.check import ValidationIssues

from pipeviz import Config, run
from pipeviz.render.figures import Figures
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
