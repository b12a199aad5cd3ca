#!/usr/bin/env python3
"""Independent checks of the drift reference (tools/reference/drift.html and its PNGs).

Everything here is computed from drift-params.json (Tests/ChakraScenesTests/Resources)
alone; none of it comes from the Swift sources.

  1. geometry  The page is loaded frozen at each T inside an iframe of exactly W x H, and its
               probe (getBoundingClientRect, computed transform and opacity) is read with
               --dump-dom. It is compared with the keyframes evaluated here (CSS per-segment
               ease-in-out, solved by bisection). The worked example is float 1 at t = 1.3.
  2. repeat    T = 2.6 is rendered again with render-reference.sh and byte-compared with the
               committed PNG.
  3. grid      Dot centroids are found in the PNGs and fitted: pitch 50u, offset 0.75u.
  4. pixels    A numpy model of the JSON (exact Gaussian, float arithmetic) is compared with
               each PNG, and again with Skia's three-box approximation of the Gaussian.

Usage: tools/reference/check-drift.py [--landscape]
  --landscape also renders 1920x1080 at t = 2.6 into a temp folder and checks it (slow, ~3 min).
Needs: chromium, python3 with numpy, scipy, pillow.
"""
import json, math, os, re, subprocess, sys, tempfile
import numpy as np
import scipy.ndimage as nd
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RES = os.path.join(ROOT, 'Tests', 'ChakraScenesTests', 'Resources')
TIMES = ['0.0', '1.3', '2.6', '5.0', '7.75', '16.2']
P = json.load(open(os.path.join(RES, 'drift-params.json')))


# ---------------------------------------------------------------- timing (conventions.*)
def cubic_bezier(x1, y1, x2, y2):
    def ease(x):
        lo, hi = 0.0, 1.0
        for _ in range(80):                      # solve Bx(s) = x (monotone in s)
            s = (lo + hi) / 2
            bx = 3 * (1 - s) ** 2 * s * x1 + 3 * (1 - s) * s * s * x2 + s ** 3
            lo, hi = (s, hi) if bx < x else (lo, s)
        s = (lo + hi) / 2
        return 3 * (1 - s) ** 2 * s * y1 + 3 * (1 - s) * s * s * y2 + s ** 3
    return ease


EASE = cubic_bezier(*P['conventions']['easing_curves']['ease-in-out'])


def keyframes(keys, p):
    """keys: [(time, (values...))]; the easing applies per segment (keyframe_easing)."""
    for (t0, v0), (t1, v1) in zip(keys, keys[1:]):
        if t0 <= p <= t1:
            e = EASE((p - t0) / (t1 - t0))
            return tuple(a + (b - a) * e for a, b in zip(v0, v1))
    raise ValueError(p)


def progress(t, dur, delay=0.0, reverse=False):
    if t < delay:
        return 0.0                               # rest state (fill none) = keyframe 0%
    p = ((t - delay) % dur) / dur
    return 1 - p if reverse else p               # direction_reverse


def box(anchor, s, W, H, u):
    left = anchor['left'] * u if 'left' in anchor else W - anchor['right'] * u - s
    top = anchor['top'] * u if 'top' in anchor else H - anchor['bottom'] * u - s
    return left, top


def state(t, W, H):
    """Centres, radii, blur sigmas, opacities and deco angles at scene time t on W x H."""
    u = min(W, H) / 390
    A = P['animations']
    op = keyframes([(k[0], (k[1],)) for k in A['pulse-glow']['keyframes_opacity']],
                   progress(t, A['pulse-glow']['duration_s'], A['pulse-glow']['delay_s']))[0]
    floats = []
    for f in P['floats']:
        s = f['size_px'] * u
        left, top = box(f['anchor'], s, W, H, u)
        if f['animation'] == 'float':
            keys = [(k[0], (k[1][0], k[1][1], 1.0)) for k in A['float']['keyframes_translate_px']]
        else:
            keys = [(k[0], (k[1][0], k[1][1], k[2])) for k in A['float-slow']['keyframes_translate_px_scale']]
        dx, dy, sc = keyframes(keys, progress(t, f['duration_s'], f['delay_s']))
        floats.append(dict(key='f%d' % f['id'], color=f['color'], cx=left + s / 2 + dx * u,
                           cy=top + s / 2 + dy * u, r=s / 2 * sc, sigma=f['blur_px'] * u * sc,
                           opacity=op, scale=sc))
    decos = []
    for d in P['decos']:
        s = d['size_px'] * u
        left, top = box(d['anchor'], s, W, H, u)
        keys = [(k[0], (k[1], k[2][0], k[2][1])) for k in A['rotate-move']['keyframes']]
        ang, tx, ty = keyframes(keys, progress(t, d['duration_s'], d['delay_s'], d['direction'] == 'reverse'))
        th = math.radians(ang)                   # centre moves by R(a) (tx s, ty s)
        ox = math.cos(th) * tx * s - math.sin(th) * ty * s
        oy = math.sin(th) * tx * s + math.cos(th) * ty * s
        decos.append(dict(key='d%d' % d['id'], color=d['gradient'][0], s=s, cx=left + s / 2 + ox,
                          cy=top + s / 2 + oy, angle=ang, sigma=d['blur_px'] * u, opacity=d['opacity']))
    return u, floats, decos


# ---------------------------------------------------------------- numpy model of the frame
def rgb(h):
    h = h.lstrip('#')
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], float)


def skia_box3(img, sigma):
    """Skia's CPU approximation of a Gaussian (the SVG 1.1 three-box recipe)."""
    d = int(math.floor(sigma * 3 * math.sqrt(2 * math.pi) / 4 + 0.5))
    for ax in (0, 1):
        if d % 2:
            for _ in range(3):
                img = nd.uniform_filter1d(img, d, axis=ax, mode='constant')
        else:
            img = nd.uniform_filter1d(img, d, axis=ax, mode='constant', origin=0)
            img = nd.uniform_filter1d(img, d, axis=ax, mode='constant', origin=-1)
            img = nd.uniform_filter1d(img, d + 1, axis=ax, mode='constant')
    return img


def gauss(img, sigma):
    return nd.gaussian_filter(img, sigma, mode='constant', truncate=5)


def render(t, W, H, blur=gauss, ss=4):
    """The frame as the JSON describes it, in float sRGB 0..255 (pixel centres at +0.5)."""
    u, floats, decos = state(t, W, H)
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    stops = P['background']['stops']            # t = (x/W + y/H)/2
    tt = ((xs + 0.5) / W + (ys + 0.5) / H) / 2
    img = np.stack([np.interp(tt, [s[0] for s in stops], [rgb(s[1])[c] for s in stops]) for c in range(3)], -1)
    g = P['grid']                                # exact coverage, 32x32 samples per pixel
    tile, rad, off = g['tile_px'] * u, g['dot_diameter_px'] * u / 2, g['dot_center_in_tile_px'][0] * u
    cov = np.zeros((H, W))
    sub = (np.arange(32) + 0.5) / 32
    for j in range(int(H // tile) + 2):
        for i in range(int(W // tile) + 2):
            cx, cy = i * tile + off, j * tile + off
            for py in range(max(0, int(cy - rad) - 1), min(H, int(cy + rad) + 2)):
                for px in range(max(0, int(cx - rad) - 1), min(W, int(cx + rad) + 2)):
                    X, Y = np.meshgrid(px + sub, py + sub)
                    cov[py, px] += np.mean((X - cx) ** 2 + (Y - cy) ** 2 <= rad * rad)
    a = cov[..., None] * g['layer_opacity']
    img = rgb(g['dot_color']) * a + img * (1 - a)
    pad = int(math.ceil(4 * 64 * u * 1.1)) + 2  # blurred layers on a canvas padded by > 4 sigma
    CH, CW = H + 2 * pad, W + 2 * pad
    YY, XX = np.mgrid[0:CH, 0:CW].astype(np.float64)
    subs = (np.arange(ss) + 0.5) / ss

    def supersample(fn):
        return sum(fn(XX - pad + sx, YY - pad + sy) for sy in subs for sx in subs) / (ss * ss)

    def composite(color, alpha, sigma, opacity):
        nonlocal img
        al = blur(alpha, sigma)[pad:pad + H, pad:pad + W] * opacity
        img = rgb(color) * al[..., None] + img * (1 - al[..., None])   # premultiplied "over"

    for f in floats:                             # filled circle, blur, pulse-glow opacity
        composite(f['color'], supersample(lambda x, y: ((x - f['cx']) ** 2 + (y - f['cy']) ** 2
                                                         <= f['r'] ** 2).astype(float)),
                  f['sigma'], f['opacity'])
    for d in decos:                              # premultiplied COLOR -> transparent, circle clip
        c, s_, s = math.cos(math.radians(d['angle'])), math.sin(math.radians(d['angle'])), d['s']

        def alpha(x, y):
            rx, ry = x - d['cx'], y - d['cy']
            lx, ly = c * rx + s_ * ry + s / 2, -s_ * rx + c * ry + s / 2   # box coordinates
            return (rx * rx + ry * ry <= s * s / 4) * (1 - np.clip((lx + ly) / (2 * s), 0, 1))
        composite(d['color'], supersample(alpha), d['sigma'], d['opacity'])
    return img


# ---------------------------------------------------------------- browser helpers
def render_png(out_dir, size, t):
    subprocess.run([os.path.join(HERE, 'render-reference.sh'), '--scene', 'drift', '--size', size,
                    out_dir, t], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out_dir, 'drift-ref-%s-t%s.png' % (size, t))


def probe(t, W, H, tmp):
    """drift.html?t=T&probe=1 in an iframe of exactly W x H; returns its probe JSON."""
    wrap = os.path.join(tmp, 'probe-%dx%d.html' % (W, H))
    with open(wrap, 'w') as fh:
        fh.write('<!DOCTYPE html><body style="margin:0"><iframe id="f" style="border:0;width:%dpx;'
                 'height:%dpx" src="file://%s/drift.html?t=%s&probe=1"></iframe><pre id="out"></pre>'
                 '<script>var f=document.getElementById("f");f.onload=function(){setTimeout(function(){'
                 'document.getElementById("out").textContent="@@"+f.contentDocument.getElementById('
                 '"probe").textContent+"@@";},200);};</script>' % (W, H, HERE, t))
    prof = tempfile.mkdtemp(dir=tmp)
    dom = subprocess.run(['chromium', '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                          '--user-data-dir=' + prof, '--allow-file-access-from-files',
                          '--force-device-scale-factor=1', '--window-size=%d,%d' % (W + 100, H + 200),
                          '--virtual-time-budget=5000', '--dump-dom', 'file://' + wrap],
                         capture_output=True, text=True).stdout
    return json.loads(re.search(r'<pre id="out">@@(.*?)@@', dom, re.S).group(1))


# ---------------------------------------------------------------- checks
def check_geometry(t, W, H, tmp):
    d = probe(t, W, H, tmp)
    assert (d['W'], d['H']) == (W, H), (d['W'], d['H'])
    _, floats, decos = state(float(t), W, H)
    worst_c = worst_o = worst_a = 0.0
    for m in floats + decos:
        e = d['elements'][m['key']]
        worst_c = max(worst_c, abs(e['cx'] - m['cx']), abs(e['cy'] - m['cy']))
        worst_o = max(worst_o, abs(float(e['opacity']) - m['opacity']))
        if m['key'][0] == 'd':
            a, b = [float(v) for v in e['transform'][7:-1].split(',')[:2]]
            ang = math.degrees(math.atan2(b, a))
            worst_a = max(worst_a, abs((ang - m['angle'] + 180) % 360 - 180))
    print('  t=%-5s %dx%d: %d animations; centres |page - hand| <= %.5f px, opacity <= %.6f, deco angle <= %.5f deg'
          % (t, W, H, d['animations'], worst_c, worst_o, worst_a))
    return d


def check_grid(png):
    a = np.asarray(Image.open(png).convert('RGB')).astype(float)
    H, W, _ = a.shape
    u = min(W, H) / 390
    hp = nd.median_filter(a[..., 0], size=9, mode='nearest') - a[..., 0]   # dots are darker in R
    mask = hp > 2.5
    lab, n = nd.label(mask)
    idx = range(1, n + 1)
    cen = np.array(nd.center_of_mass(hp * mask, lab, idx))
    keep = np.array(nd.sum(hp, lab, idx)) > 6
    cy, cx = cen[keep, 0] + 0.5, cen[keep, 1] + 0.5   # pixel i covers [i, i+1]
    tile, off = 50 * u, 0.75 * u
    ix, iy = np.round((cx - off) / tile), np.round((cy - off) / tile)
    ok = (abs(cx - ix * tile - off) < 2) & (abs(cy - iy * tile - off) < 2)
    px, py = np.polyfit(ix[ok], cx[ok], 1), np.polyfit(iy[ok], cy[ok], 1)
    print('  %s: %d dots (%d stray blobs dropped): x = %.4f i + %.4f, y = %.4f j + %.4f '
          '(50u = %.4f, 0.75u = %.4f)' % (os.path.basename(png), ok.sum(), (~ok).sum(),
                                          px[0], px[1], py[0], py[1], tile, off))


def check_pixels(png, t):
    a = np.asarray(Image.open(png).convert('RGB')).astype(float)
    H, W, _ = a.shape
    for name, blur in (('Gaussian', gauss), ('Skia 3-box', skia_box3)):
        d = a - np.round(np.clip(render(float(t), W, H, blur), 0, 255))
        ad = np.abs(d)
        print('  %s vs model (%s): mean|d| %.3f, max %d, p99 %d, mean d (R,G,B) = (%s)'
              % (os.path.basename(png), name, ad.mean(), ad.max(), np.percentile(ad, 99),
                 ', '.join('%+.2f' % v for v in d.reshape(-1, 3).mean(0))))


def main():
    landscape = '--landscape' in sys.argv[1:]
    tmp = tempfile.mkdtemp()
    # worked example: float 1 at t = 1.3
    f1 = P['floats'][0]
    p = 1.3 / f1['duration_s']
    e = EASE((p - 0.0) / 0.25)
    print('float 1 at t=1.3: progress %.4f, segment 0..25%%, local %.4f, ease-in-out %.6f -> '
          'translate (%.4f, %.4f), centre (%.4f, %.4f) on 390x844'
          % (p, p / 0.25, e, 10 * e, -20 * e, 40 + 64 + 10 * e, 80 + 64 - 20 * e))
    print('1. geometry (page probe vs keyframes evaluated here)')
    for t in TIMES:
        check_geometry(t, 390, 844, tmp)
    if landscape:
        check_geometry('2.6', 1920, 1080, tmp)
    print('2. repeat')
    again = render_png(tmp, '390x844', '2.6')
    same = open(again, 'rb').read() == open(os.path.join(RES, 'drift-ref-390x844-t2.6.png'), 'rb').read()
    print('  t=2.6 rendered again: %s' % ('byte-identical to the committed PNG' if same else 'DIFFERENT'))
    pngs = [(os.path.join(RES, 'drift-ref-390x844-t%s.png' % t), t) for t in TIMES]
    if landscape:
        pngs.append((render_png(tmp, '1920x1080', '2.6'), '2.6'))
    print('3. grid')
    for png, _ in pngs:
        check_grid(png)
    print('4. pixels')
    for png, t in pngs:
        check_pixels(png, t)


if __name__ == '__main__':
    main()
