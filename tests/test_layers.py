"""Data flows one way: nothing below the rendering layer imports bokeh or panel."""

import subprocess
import sys


def test_engine_and_cli_import_no_bokeh_or_panel():
    code = (
        "import sys, pipeviz, pipeviz.cli, pipeviz.export, pipeviz.textview;"
        "import pipeviz.view.fields, pipeviz.view.state, pipeviz.view.columns, pipeviz.view.readouts;"
        "import pipeviz.memory, pipeviz.stages, pipeviz.decompose, pipeviz.view.memory_view;"
        "from pipeviz import Config, run; run(Config());"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bokeh', 'panel')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_page_builder_does_not_import_panel():
    code = "import sys, pipeviz.page; print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_figure_view_needs_no_other_import():
    """figure_view reads the unit's label from the strings table: importing
    pipeviz.view.columns alone must register it."""
    code = (
        "from pipeviz import Config, run; from pipeviz.view.columns import figure_view;"
        "print(figure_view(run(Config()), 'chunks')['props']['bars_xaxis'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "peak in flight (chunks)" in out
