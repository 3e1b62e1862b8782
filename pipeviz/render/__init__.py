"""The rendering layer: figure views to Bokeh figures, and the explorers' style. Only
it and the layers above it (the explorers: `pipeviz.served`, `pipeviz.page`, and the
server's `compat`, `serving`, `hostcheck`) import bokeh or panel."""
