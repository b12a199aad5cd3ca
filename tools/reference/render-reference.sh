#!/usr/bin/env bash
# Render the independent CSS reference of the heart scene (tools/reference/heart.html)
# with headless Chromium at 390x844, device scale factor 1, one PNG per scene time.
#
# Usage: tools/reference/render-reference.sh [OUT_DIR] [T ...]
#   OUT_DIR defaults to Tests/ChakraScenesTests/Resources
#   T defaults to: 0.3 1.0 2.0 7.25 12.5 30.0
# Output: OUT_DIR/heart-ref-390x844-t<T>.png (T exactly as given on the command line)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/Tests/ChakraScenesTests/Resources}"
shift || true
if [ "$#" -gt 0 ]; then TIMES=("$@"); else TIMES=(0.3 1.0 2.0 7.25 12.5 30.0); fi
W=390
H=844
PAGE="$HERE/heart.html"

# 1. Chromium (Debian package "chromium") if missing.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
fi
echo "Using: $(chromium --version 2>/dev/null)"

mkdir -p "$OUT"
PROFILE="$(mktemp -d)"
trap 'rm -rf "$PROFILE"' EXIT

# 2. Check a PNG's size from its IHDR chunk (no Pillow needed).
png_size() {
  python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    head = f.read(24)
assert head[:8] == b'\x89PNG\r\n\x1a\n' and head[12:16] == b'IHDR', 'not a PNG'
w, h = struct.unpack('>II', head[16:24])
print(f'{w}x{h}')
PY
}

# 3. Render each time. The page pauses every animation at currentTime = t*1000 ms
#    (see the script at the end of heart.html); --virtual-time-budget lets the load
#    event and the freeze run before the screenshot is taken.
for T in "${TIMES[@]}"; do
  PNG="$OUT/heart-ref-${W}x${H}-t${T}.png"
  chromium \
    --headless \
    --no-sandbox \
    --disable-gpu \
    --no-first-run \
    --user-data-dir="$PROFILE" \
    --hide-scrollbars \
    --force-device-scale-factor=1 \
    --window-size=${W},${H} \
    --virtual-time-budget=5000 \
    --screenshot="$PNG" \
    "file://$PAGE?t=$T" >/dev/null 2>&1
  SIZE="$(png_size "$PNG")"
  if [ "$SIZE" != "${W}x${H}" ]; then
    echo "ERROR: $PNG is $SIZE, expected ${W}x${H}" >&2
    exit 1
  fi
  echo "wrote $PNG ($SIZE)"
done
