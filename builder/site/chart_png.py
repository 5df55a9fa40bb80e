"""A chart as a PNG image: the "PNG" download beside each chart's SVG and CSV (issue 32 item 6),
for readers who paste a figure into slides or a chat that takes no SVG.

Drawn from the chart's own SVG file by vl-convert's resvg (no browser, no network), on a white
ground (the SVG's text is `currentColor`, drawn black) at twice the drawn size. The same SVG and
vl-convert version give the same bytes; each image is kept in the build's cache (sealed, like the
chart bundle), since drawing one costs about 0.2 s.
"""

from __future__ import annotations

import re
from pathlib import Path
from builder.core.cache import CacheFolder, key

SCALE = 2  # device pixels per SVG pixel: sharp on a high-density screen or a slide
_ROOT_END = re.compile(rb"<svg\b[^>]*>")
_GROUND = b'<rect width="100%" height="100%" fill="#ffffff"/>'


def chart_png(svg_file: bytes, cache_dir: Path | None) -> bytes:
    """The PNG of a standalone SVG (svg_file.standalone_svg's output), from the cache when it
    holds this SVG's image under this vl-convert version."""
    # deferred: a heavy library, loaded only when this runs
    from importlib.metadata import version

    import vl_convert

    shelf = CacheFolder(cache_dir).shelf("chart-png")
    name = f"{key(version('vl-convert-python'), str(SCALE), svg_file)}.png.sealed"
    cached = shelf.read(name)
    if cached is not None:
        return cached
    root = _ROOT_END.search(svg_file)
    if root is None:
        raise ValueError("not an SVG file")
    grounded = svg_file[:root.end()] + _GROUND + svg_file[root.end():]
    data = bytes(vl_convert.svg_to_png(grounded.decode("utf-8"), scale=SCALE))
    shelf.write(name, data)
    return data
