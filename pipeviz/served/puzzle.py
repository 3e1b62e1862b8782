"""The served app's puzzle (pipeviz/view/puzzle.py): its block, and what it adds to the
figures. One `PuzzleView` per session, placed in the layout as one item.

The block is the page's (the same HTML from view/puzzle.py, run in the browser by
static/puzzle_board.js inside a Panel component); each click, key and menu choice
comes back as an action, which changes the session like any widget does. The view
follows the session's `revision` after the explorer's own drawing (it watches
second), so its figure properties (the comparison's row names and hovers) are the
last word.
"""

from __future__ import annotations

import panel as pn
import param

from .. import static
from ..render.figures import Figures
from ..render.puzzle import PUZZLE_CSS
from ..text import Msg
from ..view import puzzle
from .session import Session

BOARD_JS = static.read("puzzle_board.js")


class Board(pn.custom.JSComponent):
    """The block's HTML and live region, shown by static/puzzle_board.js; its actions
    arrive as messages."""

    html = param.String(default="")
    live = param.String(default="")

    _esm = BOARD_JS + """
export function render({ model }) {
  const box = document.createElement('div');
  const board = window.PipevizExplorer.puzzleBoard.mount(box, (action) => model.send_msg(action));
  const show = () => board.show(model.html, model.live);
  show();
  model.on(['html', 'live'], show);
  return box;
}
"""
    _stylesheets = [PUZZLE_CSS]

    def __init__(self, on_action, **params):
        super().__init__(**params)
        self._on_action = on_action

    def _handle_msg(self, data) -> None:
        self._on_action(data)


class PuzzleView:
    """The puzzle's block of one session, and its part of the figures."""

    def __init__(self, session: Session, figures: Figures):
        self.session = session
        self.figures = figures
        self.said: Msg | None = None  # what the last action did, until the next change
        self._acting = False
        self.board = Board(self.act, sizing_mode="stretch_width", margin=(0, 5), name="puzzle")
        session.param.watch(self.draw, "revision")
        self.draw()

    def __panel__(self):
        return self.board

    def act(self, action) -> None:
        """An action from the block: change the session, or say why not."""
        s = self.session
        updates, said = puzzle.act(s.state(), action)
        self.said = said
        if updates:
            self._acting = True
            try:
                s.update(updates)
            finally:
                self._acting = False
        else:
            self.show()

    def draw(self, *_) -> None:
        if not self._acting:
            self.said = None  # a change the block did not make
        with pn.io.hold():
            self.show()
            res = self.session.shown
            if res is not None:
                self.figures.apply(puzzle.figure_view(res, self.session.lang))

    def show(self) -> None:
        s = self.session
        values = puzzle.block_values(s.state(), self.said)
        self.board.param.update(html=puzzle.block_html(values, s.lang), live=puzzle.live_text(values, s.lang))
