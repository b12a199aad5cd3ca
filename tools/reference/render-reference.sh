#!/usr/bin/env bash
# Render an independent CSS reference scene (tools/reference/<scene>.html) with
# headless Chromium, device scale factor 1, one PNG per scene time.
#
# Usage: tools/reference/render-reference.sh [--scene heart|drift] [--size WxH] [OUT_DIR] [T ...]
#   --scene  defaults to heart (so the old usage keeps working)
#   --size   defaults to 390x844
#   OUT_DIR  defaults to Tests/ChakraScenesTests/Resources
#   T        defaults per scene: heart 0.0 0.3 1.0 2.0 7.25 12.5 30.0
#                                drift 0.0 1.3 2.6 5.0 7.75 16.2
# Output: OUT_DIR/<scene>-ref-<W>x<H>-t<T>.png (T exactly as given on the command line)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

SCENE=heart
SIZE=390x844
while [ "$#" -gt 0 ]; do
  case "$1" in
    --scene) SCENE="$2"; shift 2 ;;
    --size)  SIZE="$2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
case "$SCENE" in
  heart) DEFAULT_TIMES=(0.0 0.3 1.0 2.0 7.25 12.5 30.0) ;;
  drift) DEFAULT_TIMES=(0.0 1.3 2.6 5.0 7.75 16.2) ;;
  *) echo "unknown scene: $SCENE (heart|drift)" >&2; exit 2 ;;
esac
if ! [[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]]; then
  echo "bad --size: $SIZE (WxH)" >&2; exit 2
fi
W="${BASH_REMATCH[1]}"
H="${BASH_REMATCH[2]}"
OUT="${1:-$ROOT/Tests/ChakraScenesTests/Resources}"
shift || true
if [ "$#" -gt 0 ]; then TIMES=("$@"); else TIMES=("${DEFAULT_TIMES[@]}"); fi
PAGE="$HERE/$SCENE.html"

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
#    (see the script at the end of the page); --virtual-time-budget lets the load
#    event and the freeze run before the screenshot is taken.
for T in "${TIMES[@]}"; do
  PNG="$OUT/${SCENE}-ref-${W}x${H}-t${T}.png"
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
  GOT="$(png_size "$PNG")"
  if [ "$GOT" != "${W}x${H}" ]; then
    echo "ERROR: $PNG is $GOT, expected ${W}x${H}" >&2
    exit 1
  fi
  echo "wrote $PNG ($GOT)"
done
