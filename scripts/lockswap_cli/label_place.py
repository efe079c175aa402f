"""Point labels that do not cover each other.

A frontier plot's backends often sit close together (several near 1.0x
and an equal share), where labels at a fixed offset print on top of each
other.  Each label here takes the first of a list of spots around its
point, nearest first, whose box overlaps no point and no label placed
before it and stays inside the axes; a label pushed away from its point
gets a thin leader line.  Greedy, in display pixels, after the axes have
their final size and scales (call it after tight_layout).

A label's box is its text's own extent as the renderer draws it (an
estimate from the character count let "bcs" and "tts" print into each
other), with the padding of the white box behind it.  Error bars and
other lines can be passed as obstacles: a label avoids them where it can,
but covering a bar costs less than covering a point or another label.
"""
import math

# (dx, dy) directions in units of the distance, tried in this order, and
# the distances in points: right of the point first, as a reader expects.
DIRECTIONS = ((1, 0.3), (1, -0.9), (-1, 0.3), (-1, -0.9), (0, 1), (0, -1.6),
              (1, 1), (-1, 1), (1, -1.6), (-1, -1.6))
DISTANCES = (5, 12, 22, 34, 48)
POINT_PX = 5          # half the side of the square kept clear around a point (a 6-pt marker)
PAD_PX = 2            # around the text: the white box behind it
BAR_PX = 2            # half the thickness of an obstacle line
BAR_WEIGHT = 0.3      # covering a bar costs this much of covering a label


def _overlap(a, b):
    """Area shared by two boxes (x0, y0, x1, y1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _box(px, py, dx, dy, w, h):
    """The label's box for an offset (dx, dy) px from the point: to the
    right of it for dx > 0, left for dx < 0, centred for dx == 0."""
    x0 = px + dx if dx > 0 else px + dx - w if dx < 0 else px - w / 2
    return (x0, py + dy, x0 + w, py + dy + h)


def text_size(ax, text, fontsize):
    """(width, height) in pixels of text as the renderer draws it."""
    renderer = ax.figure.canvas.get_renderer()
    t = ax.text(0, 0, text, fontsize=fontsize, transform=None)
    try:
        bb = t.get_window_extent(renderer)
        return bb.width + 2 * PAD_PX, bb.height + 2 * PAD_PX
    finally:
        t.remove()


def obstacle_boxes(ax, segments):
    """Pixel boxes of line segments [((x0, y0), (x1, y1))] in data
    coordinates, BAR_PX either side of the line."""
    out = []
    for a, b in segments:
        (x0, y0), (x1, y1) = ax.transData.transform(a), ax.transData.transform(b)
        if all(map(math.isfinite, (x0, y0, x1, y1))):
            out.append((min(x0, x1) - BAR_PX, min(y0, y1) - BAR_PX,
                        max(x0, x1) + BAR_PX, max(y0, y1) + BAR_PX))
    return out


def place(ax, labels, fontsize=7, obstacles=()):
    """labels: [(text, x, y, colour)] in data coordinates; obstacles: line
    segments [((x0, y0), (x1, y1))] in data coordinates to keep clear of
    where possible (error bars); annotates ax."""
    fig = ax.figure
    scale = fig.dpi / 72.0                       # pixels per point
    frame = ax.bbox.extents
    where = [tuple(ax.transData.transform((x, y))) for _, x, y, _ in labels]
    # a position that is not a number (a NaN from the data) has nowhere to put a label
    shown = [(label, w) for label, w in zip(labels, where) if all(map(math.isfinite, w))]
    taken = [(px - POINT_PX, py - POINT_PX, px + POINT_PX, py + POINT_PX) for _, (px, py) in shown]
    bars = obstacle_boxes(ax, obstacles)
    for (text, x, y, colour), (px, py) in shown:
        w, h = text_size(ax, text, fontsize)
        best = None
        for dist in DISTANCES:
            for ux, uy in DIRECTIONS:
                dx, dy = ux * dist * scale, uy * dist * scale
                box = _box(px, py, dx, dy, w, h)
                cost = sum(_overlap(box, t) for t in taken)
                cost += BAR_WEIGHT * sum(_overlap(box, b) for b in bars)
                # outside the axes costs as much as covering a label
                outside = (max(0, frame[0] - box[0]) + max(0, box[2] - frame[2])
                           + max(0, frame[1] - box[1]) + max(0, box[3] - frame[3]))
                cost += outside * h
                if best is None or cost < best[0]:
                    best = (cost, dx, dy, box, dist)
            if best[0] == 0:
                break
        _, dx, dy, box, dist = best
        taken.append(box)
        # the text inside its padded box
        ax.annotate(text, (x, y), textcoords="offset pixels",
                    xytext=(box[0] + PAD_PX - px, box[1] + PAD_PX - py),
                    ha="left", va="bottom", fontsize=fontsize, color=colour, zorder=5,
                    # error bars behind a label stay visible but do not cross it
                    bbox=dict(boxstyle="square,pad=0.05", facecolor="white", edgecolor="none",
                              alpha=0.75),
                    arrowprops=dict(arrowstyle="-", color=colour, linewidth=0.5,
                                    shrinkA=0, shrinkB=3) if dist > DISTANCES[0] else None)
