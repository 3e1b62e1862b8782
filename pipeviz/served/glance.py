"""The served app's panes for reading at a glance (pipeviz/view/glance.py): the
timeline's key, the in-flight lines' key, the keyboard's table of one rank's ops,
the preset menu that names the view, and the controls' accessible names.

The page builds the same from the same view functions in static/glance.js; both
explorers name their controls with static/a11y.js (here through a small Panel
component that runs it in the browser).
"""

from __future__ import annotations

import panel as pn
import param

from .. import static
from ..engine import Result
from ..text import template
from ..view import glance

A11Y_JS = static.read("a11y.js")
PAINT_JS = static.read("paint.js")


# Panel's Location writes each new URL with history.pushState: every change of view
# (each slider step) became a Back step, and in a course page's iframe the course
# page's Back walked through them. The page replaces its URL (static/explorer.js); so
# does the app: the same write, with replaceState (and 3.2 ms less a change here).
REPLACE_URLS_JS = """
function replaceUrls(doc) {
  if (!doc.is_idle) doc.idle.connect(() => replaceUrls(doc));  // the Location's view may come after this one
  for (const root of doc.roots()) {
    if (root.type !== 'panel.models.location.Location') continue;
    const view = window.Bokeh.index.find_one(root);
    const proto = view ? Object.getPrototypeOf(view) : null;
    if (!proto || typeof proto._set_url_gated !== 'function' || proto._set_url_gated.pvReplace) continue;
    const gated = function (url) {
      this._ensure_idle_gate();
      if (!this._idle_ready) { this._pending_url = url; return; }  // Panel's own path, before the page is idle
      window.history.replaceState(window.history.state, '', url);
      this.model.href = window.location.href;
    };
    gated.pvReplace = true;
    proto._set_url_gated = gated;
  }
}
"""


class A11y(pn.custom.JSComponent):
    """Runs static/a11y.js in the browser: names every control marked with the CSS
    class pv-a11y-<key> (glance.NAMED; the readout becomes a polite live region), and
    names them again whenever the controls are rebuilt or the language changes. It
    also installs static/paint.js, as the page does when it starts, and makes the URL
    follow the view in place (REPLACE_URLS_JS)."""

    names = param.Dict(default={})

    _esm = PAINT_JS + A11Y_JS + REPLACE_URLS_JS + """
export function render({ model }) {
  window.PipevizExplorer.paint.install();  // Bokeh's repaint without the work that changes nothing
  replaceUrls(model.document);
  const again = window.PipevizExplorer.a11y.watch(() => model.names);
  model.on('names', again);
  return document.createElement('span');
}
"""


def marked(key: str) -> list[str]:
    """The CSS class that gives a widget its accessible name (static/a11y.js)."""
    return [f"pv-a11y-{key}"]


class GlancePanes:
    """What the app shows for reading at a glance, updated with each drawn result."""

    def __init__(self, lang: str):
        self.legend = pn.pane.HTML("", name="legend", sizing_mode="stretch_width", margin=(0, 5))
        self.lines_key = pn.pane.HTML("", name="lines_key", sizing_mode="stretch_width", margin=(0, 5))
        self.ops_rank = pn.widgets.Select(label=template("field.ops_rank", lang), options=[0], value=0, width=110,
                                          css_classes=marked("ops_rank"))
        self.ops_table = pn.pane.HTML("", name="ops_table", sizing_mode="stretch_width")
        self.ops_card = pn.Card(self.ops_rank, self.ops_table, title=template("ops.title", lang), collapsed=True,
                                sizing_mode="stretch_width", name="ops_card")
        self.a11y = A11y(names=glance.control_names(lang), width=0, height=0, margin=0)
        self.result: Result | None = None
        self.lang = lang
        self.ops_card.param.watch(lambda e: self._show_ops(), "collapsed")
        self.ops_rank.param.watch(lambda e: self._show_ops(), "value")

    def drawn(self, res: Result, lang: str) -> None:
        """A result was drawn (call inside pn.io.hold())."""
        self.result = res
        self.legend.object = glance.legend_html(glance.legend_values(res), lang)
        self.lines_key.object = glance.lines_key_html(res.config.P, lang)
        ranks = list(range(res.config.P))
        if self.ops_rank.options != ranks:
            self.ops_rank.param.update(options=ranks, value=min(self.ops_rank.value or 0, ranks[-1]))
        if lang != self.lang:
            self.lang = lang
            self.ops_rank.label = template("field.ops_rank", lang)
            self.ops_card.title = template("ops.title", lang)
            self.a11y.names = glance.control_names(lang)
        self._show_ops()

    def _show_ops(self) -> None:
        if self.result is None or self.ops_card.collapsed:
            return
        values = glance.ops_table_values(self.result, self.ops_rank.value or 0)
        self.ops_table.object = glance.ops_table_html(values, self.lang)
