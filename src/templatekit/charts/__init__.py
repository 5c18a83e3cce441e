"""Chart layers: Plotly figures built in Python and rasterised by one warm Chrome.

``figure`` turns a chart layer into a Plotly figure (plain data, no browser needed);
``render`` turns a figure into PNG pixels. Both are loaded only when a template has a
chart, so that Plotly, Kaleido and Chrome stay optional.
"""
