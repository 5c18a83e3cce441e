"""Chrome as a drawing service: the one browser that draws the charts given as whole
Plotly figures (through Kaleido), beside the painters rather than in layout, since
layout only asks it for a picture.

``find_browser`` is the name servers use to tell whether figures can be drawn here;
``figures`` draws them (``rasterise``, ``vectorise``), ``chrome`` runs the browser and
``fonts`` gives it the template's fonts. Kaleido and Plotly load only when a figure is
drawn, so that they stay optional.
"""

from __future__ import annotations

from templatekit.browser.locate import find_browser

__all__ = ["find_browser"]
