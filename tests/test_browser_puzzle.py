"""The puzzles in both explorers, in the Debian chromium, as a student works them: each
guided puzzle solved by placing its ops, every other op by click and the rest by
keyboard (rank with the arrows, the op with its kind's key, Enter); each kind of
refusal read from the live region; undo and redo by button and by key; the hint;
the score; solving 1F1B gives the timeline and readout choosing 1F1B gives; a
course page's link opens a puzzle; opening the order as one's own; both languages;
and screenshots at 390 and 1400 px of a puzzle in progress and solved, in both
languages (test-artifacts/puzzle-{app,page}-{390,1400}-{en,zh}-{progress,solved}.png)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from browser import screenshot, served_app
from playwright.sync_api import expect
from test_language import english_words
from test_puzzle import solution

from pipeviz import Config, Costs, run
from pipeviz.config import Encoder
from pipeviz.puzzle import GOALS, move_text, par, replay, setup_of
from pipeviz.view import readouts

pytestmark = pytest.mark.browser

# The guided puzzles small enough to place quickly, with every rule of each (tests/test_puzzle.py
# solves each at the article's P=4, m=8): 1F1B at P=3, m=4, where it is compared with choosing 1F1B.
SIZES = {goal: (3, 4) if goal == "1f1b" else (2, 2) for goal in GOALS}
KEY = {"F": "f", "B": "b", "I": "i", "W": "w", "EF": "e", "EB": "e"}

DEEP_ACTIVE = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a ? {move: a.getAttribute('data-move'), rank: a.getAttribute('data-rank'), key: a.getAttribute('data-key')}
           : null;
}"""


@pytest.fixture(scope="module")
def app_url():
    with served_app() as url:
        yield url


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "explorer.html"
    p = subprocess.run([sys.executable, "-m", "pipeviz", "page", "-o", str(path)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    return path


@pytest.fixture(params=["app", "page"])
def explorer(request, page, app_url, page_file):
    """Open a URL's query in one of the explorers: (open, which)."""
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_(query: str) -> None:
        if request.param == "app":
            page.goto(f"{app_url}?{query}")
        else:
            page.goto(f"{page_file.as_uri()}#{query}")
        expect(page.locator(".pv-pz-title")).to_be_visible(timeout=60_000)

    yield open_, request.param
    assert errors == []


def score_line(page):
    return page.locator(".pv-pz-score p").first


def live(page):
    return page.locator(".pv-pz-live")


def active(page) -> dict:
    return page.evaluate(DEEP_ACTIVE)


# The text of the first element matching a selector, in the document or any shadow root
# (the served app's block is in one); polled on every frame, not every 100 ms.
DEEP_TEXT = """([selector, text]) => {
  const find = (root) => {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const h = find(e.shadowRoot); if (h) return h; }
    return null;
  };
  const root = window.__pzRoot && window.__pzRoot.isConnected ? window.__pzRoot.getRootNode() : document;
  const el = find(root) || find(document);
  if (el) window.__pzRoot = el;
  return el !== null && el.textContent.includes(text);
}"""


def placed(page, n: int, total: int) -> None:
    page.wait_for_function(DEEP_TEXT, arg=[".pv-pz-score p", f"Placed {n} of {total} "], polling="raf", timeout=30_000)


def place_by_click(page, move: str) -> None:
    page.locator(f'.pv-pz-op[data-move="{move}"]').click()


def place_by_keys(page, move: str, rank: int, kind: str) -> None:
    """From wherever the focus is in the board: up or down to the rank, the kind's key
    until the op has the focus, Enter."""
    for _ in range(2 * 8):
        a = active(page)
        if a["rank"] is not None and int(a["rank"]) == rank:
            break
        page.keyboard.press("ArrowDown" if a["rank"] is None or int(a["rank"]) < rank else "ArrowUp")
    for _ in range(12):
        if active(page)["move"] == move:
            break
        page.keyboard.press(KEY[kind])
    assert active(page)["move"] == move, (move, active(page))
    page.keyboard.press("Enter")


def setup_for(goal: str):
    P, m = SIZES[goal]
    return setup_of(goal, P, m, GOALS[goal].V[0], GOALS[goal].cap, Costs(), Encoder())


def solve(page, goal: str, shot: str | None = None) -> list[str]:
    """Place the puzzle's ops, every other one by click, the others by keyboard; with
    `shot`, a screenshot halfway."""
    s = setup_for(goal)
    moves = solution(s)
    page.locator('.pv-pz-op[tabindex="0"]').focus()
    for n, move in enumerate(moves):
        mv = s.parse(move)
        if n % 2:
            place_by_click(page, move)
        else:
            place_by_keys(page, move, mv[3], mv[0])
        placed(page, n + 1, s.total)
        if shot and n == len(moves) // 2:
            screenshot(page, shot)
    return moves


def ops_columns(page) -> list:
    return page.evaluate("""() => {
      for (const doc of Bokeh.documents) {
        const m = doc.get_model_by_name('ops');
        if (m) return ['left', 'right', 'rank', 'mb', 'stage', 'kind'].map((k) => Array.from(m.data[k]));
      }
      return null;
    }""")


@pytest.mark.parametrize("goal", list(GOALS))
def test_each_guided_puzzle_is_solved_by_keyboard_and_click(explorer, page, goal):
    open_, which = explorer
    P, m = SIZES[goal]
    open_(f"puzzle={goal}&P={P}&m={m}")
    if goal == "1f1b":
        page.set_viewport_size({"width": 1400, "height": 1000})
    moves = solve(page, goal, f"puzzle-{which}-1400-en-progress" if goal == "1f1b" else None)
    expect(page.locator(".pv-pz-verdict")).to_contain_text("Solved")
    assert "Solved" in live(page).inner_text()
    expect(page.locator(".pv-pz-score")).to_contain_text(", op for op.")
    text = par(setup_for(goal)).order.to_text()
    assert page.locator(".pv-pz-text pre").text_content().strip() == text  # the order as action text: par's
    assert len(moves) == len(text.split())
    if goal != "1f1b":
        return
    # Solved 1F1B shows what choosing 1F1B shows: the readout and the timeline's boxes.
    screenshot(page, f"puzzle-{which}-1400-en-solved")
    page.set_viewport_size({"width": 390, "height": 900})
    screenshot(page, f"puzzle-{which}-390-en-solved")
    readout = page.locator(".pv-readout").first
    closed = readouts.closed_form_text(run(Config("1f1b", P, m, 1)))  # (P-1)/(m+P-1) = 1/3 = 33.33%
    expect(readout).to_contain_text(closed)
    solved = (readout.inner_text(), ops_columns(page))
    open_(f"schedule=1f1b&P={P}&m={m}")
    expect(readout).to_contain_text(closed)
    assert (readout.inner_text(), ops_columns(page)) == solved


def test_refusals_undo_redo_hint_and_the_score(explorer, page):
    open_, which = explorer
    open_("puzzle=1f1b&P=4&m=8&moves=0F0,0F1,0F2,0F3,1F0")
    placed(page, 5, 64)
    # A forward over the cap, and one whose input is not there: each is refused with its reason.
    place_by_click(page, "0F4")
    expect(live(page)).to_contain_text("Refused: rank 0 would hold 5 activations, the cap is 4")
    place_by_click(page, "3F0")
    expect(live(page)).to_contain_text("Refused: F(mb 0, stage 3) needs F(mb 0, stage 2) from rank 2, not run yet")
    placed(page, 5, 64)
    box = page.locator('input[data-field="typed"]')
    for typed, said in (("0F2", "F(mb 2, stage 0) is placed already, on rank 0"),
                        ("2b0", "B(mb 0, stage 2) needs B(mb 0, stage 3) from rank 3, not run yet"),
                        ("0F9", "0F9 is not in this puzzle: micro-batches 0..7, stages 0..3, ranks 0..3"),
                        ("0I0", "0I0: this puzzle does not split the backward"),
                        ("EF0@1", "EF0@1: this puzzle has no encoder"),
                        ("hello", "'HELLO' is not an op")):
        box.fill(typed)
        box.press("Enter")
        expect(live(page)).to_contain_text("Refused: " + said)
    box.fill("2F0")
    page.get_by_role("button", name="Place", exact=True).click()
    placed(page, 6, 64)
    expect(live(page)).to_contain_text("F(mb 0, stage 2) placed on rank 2: 2 to 3. Placed 6 of 64")
    # Undo and redo: by button, then by key.
    page.get_by_role("button", name="Undo", exact=True).click()
    placed(page, 5, 64)
    expect(live(page)).to_contain_text("took back F(mb 0, stage 2) from rank 2")
    page.get_by_role("button", name="Redo", exact=True).click()
    placed(page, 6, 64)
    page.locator('.pv-pz-op[tabindex="0"]').focus()
    page.keyboard.press("u")
    placed(page, 5, 64)
    page.keyboard.press("r")
    placed(page, 6, 64)
    page.keyboard.press("Control+z")
    placed(page, 5, 64)
    page.keyboard.press("h")
    expect(live(page)).to_contain_text("Hint: F(mb 1, stage 1) on rank 1: it is 1F1B's next op there, and it can "
                                       "start at 2")
    # The score beside par, live.
    expect(page.locator(".pv-pz-score")).to_contain_text("Par (1F1B): makespan 33 · bubble 27.27% · peak in flight 4, 3, 2, 1")
    expect(score_line(page)).to_contain_text("Placed 5 of 64 · makespan 4")
    assert page.locator(".pv-pz-live").get_attribute("role") == "status"
    assert page.locator(".pv-pz-live").get_attribute("aria-live") == "polite"
    page.set_viewport_size({"width": 390, "height": 900})
    page.locator(".pv-pz-title").scroll_into_view_if_needed()
    screenshot(page, f"puzzle-{which}-390-en-progress")
    # Every control of the block is a 44 px tap target at a phone's width.
    sizes = page.evaluate("""() => {
      const out = [];
      const walk = (root) => {
        root.querySelectorAll('.pv-pz button, .pv-pz select, .pv-pz input, .pv-pz summary').forEach((b) => {
          const r = b.getBoundingClientRect();
          if (r.width) out.push([r.width, r.height]);
        });
        root.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) walk(e.shadowRoot); });
      };
      walk(document);
      return out;
    }""")
    assert len(sizes) >= 15 and min(h for _, h in sizes) >= 44 and min(w for w, _ in sizes) >= 44


def test_other_refusals_a_course_pages_link_and_your_own_order(explorer, page):
    open_, _ = explorer
    # A link with a bad move: the moves before it, and one note.
    open_("puzzle=zb&P=4&m=4&moves=0F0,1F0,9Z9,0F1")
    placed(page, 2, 48)
    notice = page.locator(".pv-notice").first
    expect(notice).to_contain_text("moves: move 3, 9Z9, is refused ('9Z9' is not an op")
    expect(notice).to_contain_text("the 2 moves before it are kept")
    box = page.locator('input[data-field="typed"]')
    box.fill("0W0")
    box.press("Enter")
    expect(live(page)).to_contain_text("Refused: W(mb 0, stage 0) needs I(mb 0, stage 0) from rank 0, not run yet")
    box.fill("0B0")
    box.press("Enter")
    expect(live(page)).to_contain_text("this puzzle splits each backward into I (input gradient) and W")
    # Another puzzle from the block's own menu: empty, with its goal.
    page.locator('select[data-field="puzzle"]').select_option("encoder")
    expect(page.locator(".pv-pz-goal")).to_contain_text("encoder forward EF")
    place_by_click(page, "0F0")
    expect(live(page)).to_contain_text("Refused: F(mb 0, stage 0) needs EF(mb 0), which no rank has run yet")
    place_by_click(page, "EF0@1")
    expect(live(page)).to_contain_text("EF(mb 0) placed on rank 1: 0 to 0.5")
    box.fill("EB0")  # typed without its rank: on the rank the reader is on
    box.press("Enter")
    expect(live(page)).to_contain_text("Refused: EB(mb 0) needs B(mb 0, stage 0) from rank 0, not run yet")
    # A complete order, opened as one's own: the puzzle is put away.
    open_("puzzle=1f1b&P=2&m=2&moves=0F0,1F0,1B0,0F1,0B0,1F1,1B1,0B1")
    placed(page, 8, 8)
    page.get_by_role("button", name="Open as your own order", exact=True).click()
    expect(page.locator(".pv-readout").first).to_contain_text("Your order: P = 2 (its lines)")
    expect(page.locator(".pv-pz-closed")).to_be_visible()  # the puzzle is put away: one line that opens


def test_the_puzzle_in_chinese_at_both_widths(explorer, page):
    open_, which = explorer
    s = setup_of("interleaved", 4, 4, 2, "none", Costs(), Encoder())
    moves = solution(s)
    open_("puzzle=interleaved&P=4&m=4&lang=zh&moves=" + ",".join(moves[:20]))
    expect(page.locator(".pv-pz-title")).to_have_text("自己动手排")
    expect(score_line(page)).to_contain_text("已放 20 / 64")
    page.get_by_role("button", name="提示", exact=True).click()
    expect(live(page)).to_contain_text("提示：")
    # An op the board offers that waits: refused, in Chinese, as Python words it.
    board = replay(s, ",".join(moves[:20]))
    mv, why = next((mv, why) for r in range(s.P) for mv, why in board.candidates(r) if why and why.key == "puzzle.waits")
    place_by_click(page, move_text(mv))
    expect(live(page)).to_contain_text("不行：" + why.text("zh"))
    assert english_words(page.locator(".pv-pz").inner_text()) == set()
    for width in (390, 1400):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(".pv-pz-title").scroll_into_view_if_needed()
        screenshot(page, f"puzzle-{which}-{width}-zh-progress")
    open_("puzzle=interleaved&P=4&m=4&lang=zh&moves=" + ",".join(moves))
    expect(page.locator(".pv-pz-verdict")).to_contain_text("完成")
    expect(page.locator(".pv-pz-score")).to_contain_text("你的顺序就是 Interleaved 1F1B，一个操作都不差。")
    assert english_words(page.locator(".pv-pz").inner_text()) == set()
    for width in (390, 1400):
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(page, f"puzzle-{which}-{width}-zh-solved")
