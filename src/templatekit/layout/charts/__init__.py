"""Chart layers drawn by the engine.

``native`` draws the chart kinds of the template format into the Scene, with the
engine's text (``style``, ``data``, ``axes``, ``legend``, ``marks``, ``cartesian`` and
``pie`` are its parts; number formats are ``templatekit.numbers``, which the model
checks formats with). Charts given as whole Plotly figures are drawn by Chrome
(``templatekit.browser``), which loads only when such a chart is drawn, so that Plotly,
Kaleido and Chrome stay optional.
"""
