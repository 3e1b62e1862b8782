"""The rendering layer: figure views to Bokeh figures, and the page's style. The
only place (with `pipeviz.app` and `pipeviz.page`) that imports bokeh."""
