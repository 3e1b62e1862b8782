"""The explorers' CSS: the readouts, the notice and the comparison table (both
explorers), and the standalone page's layout."""

# Common CJK families first in the fallback, so Chinese labels render in a real font
# wherever the reader has one.
FONT_STACK = ('system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans CJK SC", "Source Han Sans SC", '
              '"PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif')

READOUT_CSS = """
.pv-readout { font-size: 14px; line-height: 1.5; }
.pv-bubble { font-size: 17px; }
.pv-agree { color: #1b7340; }
.pv-differ { color: #a04000; }
.pv-key { font-size: 11px; }
.pv-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.pv-table-box { overflow-x: auto; max-width: 100%; }
.pv-table { border-collapse: collapse; font-size: 13px; }
.pv-table th, .pv-table td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; }
.pv-table tr.pv-current { background: #fff3c4; font-weight: 600; }
.pv-notice { border-radius: 4px; padding: 2px 10px; margin: 4px 0; font-size: 13px; }
.pv-notice.pv-info { background: #e8f4fb; border: 1px solid #b6dcf0; }
.pv-notice.pv-warning { background: #fff4e0; border: 1px solid #f0c987; }
.pv-notice p { margin: 4px 0; white-space: pre-wrap; }
.pv-closing { font-size: 14px; line-height: 1.5; margin-top: 2px; }
.pv-places-title { margin: 6px 0 2px; font-size: 14px; }
.pv-places-note { font-size: 12px; margin: 4px 0; max-width: 60em; }
"""

PAGE_CSS = """
body { font-family: FONT_STACK; margin: 0; }
.pv-page { display: flex; flex-wrap: wrap; gap: 8px 16px; padding: 8px; box-sizing: border-box; }
.pv-controls { flex: 0 1 320px; min-width: 240px; }
.pv-main { flex: 1 1 560px; min-width: 0; }
.pv-charts-row { display: flex; flex-wrap: wrap; gap: 0 8px; }
.pv-charts { flex: 1 1 420px; min-width: 0; }
.pv-bars { flex: 0 0 240px; }
.pv-table-root { max-width: 100%; overflow-x: auto; }
.pv-readout-box, .pv-bars-key { padding: 0 5px; }
""".replace("FONT_STACK", FONT_STACK)
