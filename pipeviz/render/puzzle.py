"""The puzzle's block (pipeviz/view/puzzle.py), styled once for both explorers: the
page puts this in its stylesheet, the served app in its component's shadow root.
Every control is at least 44 px high, a phone's tap target."""

PUZZLE_CSS = """
.pv-pz { border: 1px solid #d0d0d0; border-radius: 6px; padding: 2px 10px 8px; margin: 6px 0; font-size: 14px;
  line-height: 1.45; }
.pv-pz-title { margin: 6px 0 2px; font-size: 16px; }
.pv-pz-closed { padding-bottom: 0; }
.pv-pz summary.pv-pz-title { margin: 0; min-height: 44px; line-height: 44px; font-weight: 700; cursor: pointer; }
.pv-pz-intro, .pv-pz-goal { margin: 4px 0; }
.pv-pz-setup, .pv-pz-tools { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: flex-end; margin: 6px 0; }
.pv-pz-field { display: flex; flex-direction: column; gap: 2px; font-size: 13px; max-width: 100%; }
.pv-pz select, .pv-pz input, .pv-pz button { font: inherit; min-height: 44px; box-sizing: border-box; }
.pv-pz select { max-width: 100%; padding: 0 6px; }
.pv-pz-tool, .pv-pz-type button { min-width: 44px; padding: 0 12px; border: 1px solid #777; border-radius: 4px;
  background: #f4f4f4; color: #000; cursor: pointer; }
.pv-pz-live { min-height: 1.45em; margin: 6px 0; padding: 4px 8px; border-left: 3px solid #0072B2;
  background: #eef6fb; }
.pv-pz-live:empty { background: none; border-color: transparent; }
.pv-pz-board { display: flex; flex-direction: column; margin: 6px 0 2px; }
.pv-pz-rank { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 6px; padding: 4px 0;
  border-top: 1px solid #e4e4e4; }
.pv-pz-rank:focus { outline: 2px solid #0072B2; outline-offset: 1px; }
.pv-pz-head { flex: 1 1 100%; font-size: 12px; color: #333; }
@media (min-width: 720px) { .pv-pz-head { flex: 0 0 17em; } }
.pv-pz-op { min-width: 56px; padding: 0 8px; border: 2px solid #777; border-radius: 4px; font-weight: 700;
  font-variant-numeric: tabular-nums; cursor: pointer; line-height: 1.1; }
.pv-pz-wait, .pv-pz-cap { background: #fff; color: #333; border-style: dashed; font-weight: 400; }
.pv-pz-op:focus-visible, .pv-pz-tool:focus-visible { outline: 3px solid #000; outline-offset: 2px; }
.pv-pz-mark { display: block; font-size: 10px; }
.pv-pz-keys { font-size: 12px; color: #444; margin: 2px 0; }
.pv-pz-type { display: flex; flex-wrap: wrap; gap: 6px; align-items: flex-end; margin: 6px 0; }
.pv-pz-type label { display: flex; flex-direction: column; font-size: 13px; }
.pv-pz-type input { width: 8em; padding: 0 8px; font-family: monospace; }
.pv-pz-score p { margin: 3px 0; }
.pv-pz-verdict { font-weight: 600; }
.pv-pz-solved { color: #1b7340; }
.pv-pz-text summary { cursor: pointer; min-height: 44px; line-height: 44px; }
.pv-pz-text pre { white-space: pre-wrap; font-size: 12px; max-height: 14em; overflow: auto; margin: 2px 0; }
"""
