"""The rendering layer: engine results to Bokeh figures. The only place (with
`pipeviz.app`) that imports bokeh."""
