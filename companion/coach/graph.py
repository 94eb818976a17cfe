"""The evaluation graph: a game's review as a picture, for people who would rather look.

White's value after each ply, as chess sites draw it: above the middle line White stands
better, below it Black; a proven win touches the edge. Blunders, losing uncovers and missed
wins are marked with a dot that carries its ply (``data-ply``), so the web page can jump its
replay there. Plain SVG text (no drawing library): the web page inlines it and ``games
review --svg`` writes it to a file.
"""

from __future__ import annotations

from html import escape

from companion.coach.review import SCORE_CAP, GameReview, PlyReview, Verdict

WIDTH, HEIGHT = 640, 200  # the drawing's own units; the page scales it to the screen
MARGIN = 8
MARK_RADIUS = 5
MARK_COLOURS: dict[Verdict, str] = {
    Verdict.BLUNDER: "#c62828",
    Verdict.LOSING_UNCOVER: "#c62828",
    Verdict.MISSED_WIN: "#ef6c00",
}
WHITE_AREA, BLACK_AREA, LINE = "#f5f5f5", "#424242", "#1e88e5"


def evaluation_graph(review: GameReview, width: int = WIDTH, height: int = HEIGHT) -> str:
    """The SVG document of ``review``'s evaluation graph."""
    count = len(review.plies)
    inner_w, inner_h = width - 2 * MARGIN, height - 2 * MARGIN

    def x(index: int) -> float:  # index 0: the start, before any move
        return MARGIN + inner_w * index / max(count, 1)

    def y(score: int) -> float:
        capped = max(-SCORE_CAP, min(SCORE_CAP, score))
        return MARGIN + inner_h * (SCORE_CAP - capped) / (2 * SCORE_CAP)

    points = [(x(0), y(0))] + [(x(p.ply), y(p.white_value().score)) for p in review.plies]
    path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    middle = y(0)
    white_area = f"{x(0):.1f},{middle:.1f} {path} {x(count):.1f},{middle:.1f}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="evaluation" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(_label(review))}">',
        f"<title>{escape(_label(review))}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="{BLACK_AREA}"/>',
        f'<polygon points="{white_area}" fill="{WHITE_AREA}"/>',
        f'<line x1="{MARGIN}" y1="{middle:.1f}" x2="{width - MARGIN}" y2="{middle:.1f}" '
        'stroke="#9e9e9e" stroke-dasharray="4 3"/>',
        f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>',
    ]
    parts += [_mark(p, x(p.ply), y(p.white_value().score)) for p in review.marked()]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _mark(ply: PlyReview, cx: float, cy: float) -> str:
    """One marked move: a dot a page can click (``data-ply``), with its words as a tooltip."""
    assert ply.verdict is not None  # only marked plies are drawn
    words = f"{ply.ply}. {ply.move}{ply.symbol} {ply.describe()}"
    return (
        f'<circle class="mark" data-ply="{ply.ply}" data-verdict="{escape(ply.verdict.value)}" '
        f'cx="{cx:.1f}" cy="{cy:.1f}" r="{MARK_RADIUS}" fill="{MARK_COLOURS[ply.verdict]}" '
        f'stroke="#ffffff" stroke-width="1.5"><title>{escape(words)}</title></circle>'
    )


def _label(review: GameReview) -> str:
    marks = len(review.marked())
    return f"evaluation over {len(review.plies)} plies, {marks} marked move{'s' if marks != 1 else ''}"
