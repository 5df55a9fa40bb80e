"""JSON inside an HTML <script> element: the one place that makes data safe to embed there.

A chart's Vega-Lite spec and a run page's items travel to the browser as JSON in a
<script> element, where the HTML parser, not JSON, decides where the element ends.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup


def script_json(value: Any, *, strict: bool = True) -> Markup:
    """Canonical JSON (sorted keys, no spaces, UTF-8 text kept) escaped for a <script> element.

    ``<`` always becomes ``\\u003c``, so no text can close the element (``</script>``) or
    open a comment, and U+2028/2029 are escaped for old JavaScript parsers. `strict` (charts)
    also escapes ``>`` and ``&`` and refuses NaN. The run pages and the item assets use
    ``strict=False``, the narrower form they have always published (as safe: only ``<`` can
    end the element); it is kept so their bytes do not change (``Q&A`` would become
    ``Q\\u0026A``). JSON.parse reads every escape back to the original character.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=not strict)
    text = text.replace("<", "\\u003c")
    if strict:
        text = text.replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
