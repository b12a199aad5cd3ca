#!/usr/bin/env python3
"""The width of a line of text in DejaVu Sans, computed from the font file's
own tables with fontTools (pip install fonttools), independently of
ChakraText and of FreeType: sum of the hmtx advance widths plus the `kern`
table's pairs (format 0, the pairs FreeType's FT_Get_Kerning reads),
scaled by size / unitsPerEm. Also prints Pillow's ImageFont.getlength for
comparison (FreeType with hinting, so its advances are rounded to pixels).

usage: expected-width.py [TEXT] [SIZE] [FONT]
"""
import sys
from fontTools.ttLib import TTFont

text = sys.argv[1] if len(sys.argv) > 1 else "Breathe in slowly"
size = float(sys.argv[2]) if len(sys.argv) > 2 else 24.0
path = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

font = TTFont(path)
upem = font["head"].unitsPerEm
cmap = font.getBestCmap()
hmtx = font["hmtx"].metrics
pairs = {}
for sub in font["kern"].kernTables:
    if getattr(sub, "format", 0) == 0:
        pairs.update(sub.kernTable)
names = [cmap.get(ord(c), ".notdef") for c in text]
advance = sum(hmtx[n][0] for n in names)
kerning = sum(pairs.get((a, b), 0) for a, b in zip(names, names[1:]))
print(f"text={text!r} size={size} upem={upem} advance_units={advance} kerning_units={kerning}")
print(f"width_px={(advance + kerning) * size / upem!r}")
try:
    from PIL import ImageFont
    pil = ImageFont.truetype(path, int(size), layout_engine=ImageFont.Layout.BASIC)
    print(f"pillow_getlength={pil.getlength(text)!r} (hinted)")
except Exception as error:  # Pillow is only a cross-check
    print(f"pillow: {error}")
