"""Chart layers.

``native`` draws the chart kinds of the template format into the Scene, with the
engine's text (``style``, ``data``, ``axes``, ``legend``, ``marks``, ``cartesian`` and
``pie`` are its parts; number formats are ``templatekit.numbers``, which the model
checks formats with). ``figure`` and ``render`` are for charts drawn
by Plotly in Chrome (a layer's whole ``figure``, or its ``plotly`` layout settings):
they load only when such a chart is drawn, so that Plotly, Kaleido and Chrome stay
optional.
"""
