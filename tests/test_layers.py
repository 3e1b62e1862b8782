"""Data flows one way: nothing below the rendering layer imports bokeh or panel."""

import os
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
    code = "import sys, pipeviz.page_document; print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_page_from_its_template_imports_no_bokeh(tmp_path):
    """`page` with its template in the cache opens it at the flags' view without Bokeh
    (importing it is most of a second: the page in about the time of a `show`)."""
    code = (
        "import sys; from pipeviz import Config, page;"
        "page.build(Config(schedule='zb-v', P=4, m=8, V=2), 'en');"  # builds the template, with Bokeh
        "[sys.modules.pop(m) for m in list(sys.modules) if m.split('.')[0] == 'bokeh' or m == 'pipeviz.page_document'];"
        "page.build(Config(schedule='interleaved', P=4, m=8, V=2), 'en');"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bokeh', 'panel') or m == 'pipeviz.page_document'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PIPEVIZ_CACHE_DIR": str(tmp_path)}).stdout
    assert out.strip() == "[]"


def test_figure_view_needs_no_other_import():
    """figure_view reads the unit's label from the strings table: importing
    pipeviz.view.columns alone must register it."""
    code = (
        "from pipeviz import Config, run; from pipeviz.view.columns import figure_view;"
        "print(figure_view(run(Config()), 'chunks')['props']['bars_xaxis'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "peak in flight (chunks)" in out


# The layers, bottom first; a module imports only modules of its own layer or below
# (imports inside functions counted), and no two modules import each other, directly
# or around a loop. A new module joins a layer here. README.md "Where things go" draws them.
LAYERS = (
    ("words", ("pipeviz.words", "pipeviz.text", "pipeviz.errors")),
    ("kernels", ("pipeviz.kernels", "pipeviz.compiled")),  # the engine's loops, compiled at install
    ("config", ("pipeviz.costs", "pipeviz.stages", "pipeviz.config")),
    ("orders", ("pipeviz.order", "pipeviz.closed_form", "pipeviz.schedule", "pipeviz.schedules", "pipeviz.registry")),
    ("engine", ("pipeviz.simulate", "pipeviz.metrics", "pipeviz.encoder", "pipeviz.balance", "pipeviz.decompose",
                "pipeviz.engine", "pipeviz.custom", "pipeviz.puzzle", "pipeviz.causes", "pipeviz.memory",
                "pipeviz.slicing", "pipeviz")),
    ("outputs", ("pipeviz.export",)),
    ("view", ("pipeviz.view", "pipeviz.textview", "pipeviz.trace")),  # trace: a run read, reported as text
    ("render", ("pipeviz.render", "pipeviz.figure")),
    ("explorers", ("pipeviz.page", "pipeviz.page_document", "pipeviz.served", "pipeviz.compat", "pipeviz.serving",
                   "pipeviz.hostcheck")),
    ("commands", ("pipeviz.cli", "pipeviz.__main__")),
)


def _imports() -> dict[str, set[str]]:
    """Each pipeviz module's imports of other pipeviz modules, from its source."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    files = {}
    for f in sorted((root / "pipeviz").rglob("*.py")):
        name = ".".join(f.relative_to(root).with_suffix("").parts)
        files[name.removesuffix(".__init__")] = f
    edges: dict[str, set[str]] = {}
    for mod, f in files.items():
        pkg = mod if f.name == "__init__.py" else mod.rsplit(".", 1)[0]
        out = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                while t not in files and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in files and t != mod and not mod.startswith(t + "."):  # a package's own __init__ aside
                    out.add(t)
        edges[mod] = out
    return edges


def layer_of(mod: str) -> int:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    assert best is not None, f"{mod} is in no layer: add it to LAYERS"
    return best[0]


def test_every_import_points_down_or_across():
    up = [(m, t) for m, ts in _imports().items() for t in ts if layer_of(t) > layer_of(m)]
    assert up == [], "imports of a higher layer: " + ", ".join(f"{m} -> {t}" for m, t in up)


def test_no_import_cycles():
    edges = _imports()
    seen: dict[str, int] = {}  # 1 on the stack, 2 done
    cycles = []

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for t in sorted(edges[m]):
            if seen.get(t) == 1:
                cycles.append(path[path.index(t):] + [t])
            elif t not in seen:
                visit(t, path + [t])
        seen[m] = 2

    for m in sorted(edges):
        if m not in seen:
            visit(m, [m])
    assert cycles == [], cycles
