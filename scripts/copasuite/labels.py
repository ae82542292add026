"""Placement of point labels on a chart without overlaps: each label takes the first of a ring of
candidate positions around its point (nearest first) whose box overlaps no label placed before and
no other point; a label that finds none takes the candidate with the least overlap. A thin leader
line from the label to its point is drawn when the label sits farther than its first ring, so a
label can never be read as belonging to a neighbouring point. Coordinates are display pixels."""
import math

CHAR_WIDTH = 0.6   # of the font size, for a sans-serif label
POINT_RADIUS = 5.0  # pixels kept free around every point


def text_box(x, y, text, fontsize, ha, va):
    """(x0, y0, x1, y1) of a one-line label anchored at (x, y)."""
    w = CHAR_WIDTH * fontsize * len(text)
    h = 1.2 * fontsize
    x0 = x if ha == "left" else x - w
    y0 = y if va == "bottom" else y - h
    return (x0, y0, x0 + w, y0 + h)


def overlap(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def candidates(px, py, rings=(8, 18, 32, 50)):
    """(x, y, ha, va, ring) around a point: right, left, above, below and the diagonals, ring by ring."""
    for ring, r in enumerate(rings):
        for angle in (0, 180, 45, -45, 135, -135, 90, -90):
            a = math.radians(angle)
            x, y = px + r * math.cos(a), py + r * math.sin(a)
            ha = "left" if math.cos(a) >= -1e-9 else "right"
            va = "bottom" if math.sin(a) >= -1e-9 else "top"
            yield x, y, ha, va, ring


def place(points, texts, fontsize=7, blocked=()):
    """points: [(x, y)] in pixels; texts: their labels. Returns [(x, y, ha, va, leader)] per point;
    blocked: boxes already taken (roof labels)."""
    taken = list(blocked)
    point_boxes = [(x - POINT_RADIUS, y - POINT_RADIUS, x + POINT_RADIUS, y + POINT_RADIUS) for x, y in points]
    out = []
    for i, ((px, py), text) in enumerate(zip(points, texts)):
        others = point_boxes[:i] + point_boxes[i + 1:]
        best, best_cost = None, None
        for x, y, ha, va, ring in candidates(px, py):
            box = text_box(x, y, text, fontsize, ha, va)
            cost = sum(overlap(box, b) for b in taken) + sum(overlap(box, b) for b in others)
            if best_cost is None or cost < best_cost:
                best, best_cost = (x, y, ha, va, ring, box), cost
            if cost == 0:
                break
        x, y, ha, va, ring, box = best
        taken.append(box)
        out.append((x, y, ha, va, ring > 0))
    return out
