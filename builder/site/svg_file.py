"""A chart's inline SVG as a file of its own: the "SVG" download beside each chart's CSV.

Kept apart from charts.py (which needs Altair and vl-convert) so the renderer can write the
download without importing either."""

from __future__ import annotations

import re

SVG_ROOT = re.compile(r"^<svg\b([^>]*)>")
SVG_XMLNS = re.compile(r'\s+xmlns(?::xlink)?="[^"]*"')


def standalone_svg(svg: str) -> bytes:
    """Add what inline SVG in HTML does without (the namespaces) and an XML declaration, so the
    file opens in any viewer or editor. Text keeps ``currentColor``, which a viewer draws black."""
    root = SVG_ROOT.match(svg)
    if root is None:
        raise ValueError("not an <svg> element")
    names = ' xmlns="http://www.w3.org/2000/svg"'
    if "xlink:" in svg:
        names += ' xmlns:xlink="http://www.w3.org/1999/xlink"'
    head = "<svg" + names + SVG_XMLNS.sub("", root.group(1)) + ">"
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + head + svg[root.end():] + "\n").encode("utf-8")
