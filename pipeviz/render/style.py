"""The explorers' CSS: the readouts, the notice and the comparison table (both
explorers), and the standalone page's layout."""

# Common CJK families first in the fallback, so Chinese labels render in a real font
# wherever the reader has one.
FONT = '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", system-ui, sans-serif'

FONT_STACK = ('system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans CJK SC", "Source Han Sans SC", '
              '"PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif')

READOUT_CSS = """
.pv-readout { font-size: 14px; line-height: 1.5; }
.pv-run .pv-run-key, .pv-run-costs, .pv-run-gaps, .pv-run-imbalance { font-size: 12px; }
.pv-run-gaps ol { margin: 2px 0; padding-left: 22px; }
.pv-run-box { font-size: 13px; margin: 8px 5px; }
.pv-run-box h3 { margin: 4px 0; font-size: 15px; }
.pv-run-box button, .pv-run-box input { min-height: 32px; margin: 3px 0; max-width: 100%; }
.pv-run-box button { width: 100%; }
.pv-bubble { font-size: 17px; }
.pv-agree { color: #1b7340; }
.pv-differ { color: #a04000; }
.pv-key { font-size: 11px; }
.pv-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.pv-table-box { overflow-x: auto; max-width: 100%; }
.pv-table { border-collapse: collapse; font-size: 13px; }
.pv-table th, .pv-table td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; }
.pv-table tr.pv-current { background: #fff3c4; font-weight: 600; }
.pv-notice { border-radius: 4px; padding: 1px 10px; margin: 2px 0; font-size: 13px; }
.pv-notice.pv-info { background: #e8f4fb; border: 1px solid #b6dcf0; }
.pv-notice.pv-warning { background: #fff4e0; border: 1px solid #f0c987; }
.pv-notice p { margin: 3px 0; white-space: pre-wrap; }
.pv-closing { font-size: 14px; line-height: 1.5; margin-top: 2px; }
.pv-places-title { margin: 6px 0 2px; font-size: 14px; }
.pv-places-note { font-size: 12px; margin: 4px 0; max-width: 60em; }
.pv-projector .pv-readout, .pv-projector.pv-readout { font-size: 22px; }
.pv-projector .pv-bubble { font-size: 28px; }
.pv-projector .pv-key, .pv-projector .pv-table { font-size: 19px; }
.pv-parts { font-size: 13px; }
.pv-memory-readout { font-size: 14px; line-height: 1.5; padding: 0 5px; }
.pv-over { display: inline-block; margin-top: 2px; padding: 1px 8px; border: 2px solid #D55E00; border-radius: 4px;
  color: #8f3a00; font-weight: 600;
  background: repeating-linear-gradient(45deg, #fff, #fff 6px, #fbe3d4 6px, #fbe3d4 8px); }
.pv-hatch { border: 2px solid #D55E00; box-sizing: border-box;
  background: repeating-linear-gradient(45deg, #fff, #fff 2px, #000 2px, #000 3px); }
.pv-dash { display: inline-block; width: 14px; height: 0; border-top: 2px dashed #000; margin: 0 4px 3px 0; }
.pv-table tr.pv-nofit { color: #6b6b6b; background: repeating-linear-gradient(45deg, #fff, #fff 6px, #f1f1f1 6px, #f1f1f1 8px); }
.pv-table tr.pv-nofit td { font-style: italic; }
.pv-table tr.pv-best td:last-child { font-weight: 700; }
"""

# The timeline's key, the in-flight lines' key and the ops table (view/glance.py), both explorers.
GLANCE_CSS = """
.pv-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 14px; font-size: 12px; line-height: 1.6;
  margin: 2px 0 2px; }
.pv-legend-item { display: inline-flex; align-items: center; gap: 3px; white-space: nowrap; }
.pv-chip { display: inline-block; min-width: 18px; padding: 0 3px; border-radius: 2px; font-size: 10px;
  font-weight: 600; line-height: 16px; text-align: center; box-sizing: border-box; }
.pv-chip + .pv-chip { margin-left: -1px; }
.pv-chip-pair { display: inline-flex; flex-direction: column; padding: 0; line-height: 8px; font-size: 7px; }
.pv-chip-pair span { display: block; padding: 0 4px; }
.pv-chip-idle { width: 22px; height: 16px; border: 1px solid #bbb; }
.pv-legend-note { color: #333; white-space: normal; }
.pv-lines-key { padding-left: 5px; }
.pv-ops-box { max-height: 320px; overflow: auto; max-width: 100%; }
.pv-ops-box:focus { outline: 2px solid #0072B2; outline-offset: 1px; }
.pv-ops caption { text-align: left; font-weight: 600; padding: 4px 0; }
.pv-ops td { font-variant-numeric: tabular-nums; padding: 1px 8px; }
"""
READOUT_CSS += GLANCE_CSS

# Touch targets of at least 44 px (both explorers: the page gives its widgets this sheet,
# the app adds it to every component's). noUiSlider's touch area grows around the handle.
TOUCH_CSS = """
.noUi-handle .noUi-touch-area { position: absolute; width: 44px; height: 44px; left: 50%; top: 50%;
  transform: translate(-50%, -50%); }
.bk-input-group:has(> .noUi-target) { overflow-x: clip; overflow-clip-margin: 8px; }  /* not past a screen's edge */
@media (pointer: coarse) {
  .bk-btn, .bk-input, select { min-height: 44px; }
  .bk-input-group > label { min-height: 44px; display: flex; align-items: center; }
}
"""

# The page's layout (the app's is the same, in served/view.py): a head (title, language,
# preset), the article's bar (schedule, P, m, V), sticky so that it stays on screen with
# the chart, then the main column (the line under the bar, readout, charts, table,
# sweep) and the folded settings: beside the main column where there is room (on its
# left), below it where there is not.
PAGE_CSS = """
body { font-family: FONT_STACK; margin: 0; }
/* clip, not hidden: the bar stays sticky */
.pv-page { padding: 4px 8px 8px; box-sizing: border-box; max-width: 100%; overflow-x: clip; }
.pv-head { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 12px; }
.pv-title { flex: 1 1 200px; min-width: 0; }
.pv-lang { flex: 0 0 auto; }
.pv-preset { flex: 1 1 260px; min-width: 0; max-width: 420px; }
.pv-more-link { font-size: 13px; padding: 12px 4px; white-space: nowrap; }
.pv-bar { position: sticky; top: 0; z-index: 20; background: #fff; display: flex; flex-wrap: wrap;
  align-items: flex-end; gap: 0 16px; padding: 2px 0 2px; border-bottom: 1px solid #e2e2e2; }
.pv-bar-schedule { flex: 1 1 200px; min-width: 0; }
.pv-bar-slider { flex: 1 1 150px; min-width: 100px; }
.pv-body { display: flex; flex-wrap: wrap; gap: 8px 16px; }
.pv-main { flex: 1 1 100%; min-width: 0; }
.pv-more { flex: 1 1 100%; min-width: 0; }
@media (min-width: 900px) {
  .pv-main { flex: 1 1 460px; }
  .pv-more { flex: 0 0 270px; order: -1; }
  .pv-more-link { display: none; }
}
.pv-slot { min-height: 44px; padding: 0 5px; display: flow-root; }  /* a notice's margin stays inside */
.pv-summary { font-size: 13px; color: #333; padding: 4px 0; }
.pv-notice:not([hidden]) + .pv-summary { display: none; }
.pv-charts-row { display: flex; flex-wrap: wrap; gap: 0 8px; }
.pv-charts-grid { display: grid; grid-template-columns: minmax(0, 1fr) 240px; grid-template-areas: "tl bars" "ot bars";
  gap: 0 8px; align-items: start; }
.pv-tl { grid-area: tl; min-width: 0; } .pv-ot { grid-area: ot; min-width: 0; } .pv-charts-grid > .pv-bars { grid-area: bars; }
@media (max-width: 699px) {  /* one column: the bars right under the timeline, then play and the lines over time */
  .pv-charts-grid { grid-template-columns: minmax(0, 1fr); grid-template-areas: "tl" "bars" "ot"; }
}
.pv-charts { flex: 1 1 420px; min-width: 0; }
.pv-tradeoff-note { font-size: 12px; color: #333; margin: 0 5px 8px; }
.pv-tradeoff-note p { margin: 3px 0; }
.pv-sweep { display: flex; flex-wrap: wrap; gap: 0 8px; }
.pv-sweep-m { flex: 1 1 320px; min-width: 0; }
.pv-sweep-v { flex: 0 0 290px; max-width: 100%; }
.pv-bars { flex: 0 0 240px; max-width: 100%; }
.pv-table-root { max-width: 100%; overflow-x: auto; }
.pv-readout-box, .pv-bars-key { padding: 0 5px; }
.pv-legend-box { padding: 0 5px; }
.pv-ops-details { margin: 8px 5px; font-size: 13px; }
.pv-ops-details summary { cursor: pointer; font-weight: 600; }
.pv-ops-rank { display: inline-block; margin: 6px 0; }
.pv-ops-rank select { margin-left: 6px; font-size: 13px; }
@media (max-width: 480px) { .pv-page { padding: 2px 2px 4px; } .pv-bar { gap: 0 10px; } }
""".replace("FONT_STACK", FONT_STACK)
