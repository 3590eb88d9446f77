"""Charts for the case file, drawn as SVG text: casualty figures over time, bar distributions
and incident timelines (the :class:`~casebuilder.reporting.casefile.figures.ChartDrawer`
shapes).

Every chart is a string that depends on its input only: coordinates are written with one
decimal, nothing is random, no id is generated, and the text names no font file, stylesheet or
address (the generic families ``serif`` and ``sans-serif`` only), so a report embedding it is
the same bytes for the same case state and reads offline. Labels come from the case (source
names, places) and are escaped. An empty input draws a frame saying there is no data instead of
failing, so that a report with nothing to chart still builds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from casebuilder.reporting.casefile.figures import Count, Dated, FigurePoint

SVG_NAMESPACE = "http://www.w3.org/2000/svg"

#: Colours that stay apart for readers with the common colour-vision deficiencies
#: (Okabe and Ito's palette, without its yellow, which is too light on white paper).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: Marker shapes, cycled with a different period from the colours so that two sources never
#: share both.
SHAPES = ("circle", "square", "triangle", "diamond", "down", "cross")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Steps between time ticks, in seconds: the first giving at most the wanted count is used.
TIME_STEPS = (3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400)
AXIS_COLOUR = "#444444"
GRID_COLOUR = "#DDDDDD"
BAR_COLOUR = "#4C72B0"
MARK_COLOUR = "#B03A2E"

WIDTH = 640.0
HEIGHT = 300.0


def num(value: float) -> str:
    """One decimal, never ``-0.0``: coordinates written the same on every machine."""
    text = f"{round(value, 1):.1f}"
    return "0.0" if text == "-0.0" else text


def escape(text: str) -> str:
    """Text safe inside an SVG element or attribute: markup characters as entities, and the
    control characters XML forbids left out."""
    cleaned = "".join(ch for ch in text if ch in "\t\n" or ord(ch) >= 0x20)
    return (cleaned.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def nice_step(span: float, most: int) -> float:
    """The smallest of 1, 2, 5 x 10^k dividing ``span`` into at most ``most`` steps."""
    if span <= 0:
        return 1.0
    raw = span / most
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 5.0, 10.0):
        if factor * power >= raw:
            return max(1.0, factor * power)
    return max(1.0, 10.0 * power)


def value_ticks(top: float, most: int = 5) -> tuple[float, list[int]]:
    """Axis top (rounded up to a tick) and the integer ticks from 0 to it."""
    step = nice_step(max(top, 1.0), most)
    upper = step * math.ceil(max(top, 1.0) / step)
    count = round(upper / step)
    return upper, [round(i * step) for i in range(count + 1)]


class Canvas:
    """An SVG being written: elements appended as text, closed by :meth:`text`."""

    def __init__(self, width: float, height: float, title: str = "") -> None:
        self.width = width
        self.height = height
        self.parts: list[str] = [
            f'<svg xmlns="{SVG_NAMESPACE}" viewBox="0 0 {num(width)} {num(height)}" '
            f'width="{num(width)}" height="{num(height)}" font-family="sans-serif" '
            f'font-size="11" fill="#222222">',
            f'<rect x="0" y="0" width="{num(width)}" height="{num(height)}" fill="#FFFFFF"/>',
        ]
        if title:
            self.parts.insert(1, f"<title>{escape(title)}</title>")
            self.label(width / 2, 18, title, size=13, anchor="middle", weight="bold",
                       family="serif")

    def add(self, element: str) -> None:
        self.parts.append(element)

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = AXIS_COLOUR,
             width: float = 1.0, extra: str = "") -> None:
        self.add(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
                 f'stroke="{colour}" stroke-width="{num(width)}"{extra}/>')

    def rect(self, x: float, y: float, w: float, h: float, colour: str, extra: str = "") -> None:
        self.add(f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0.0))}" '
                 f'height="{num(max(h, 0.0))}" fill="{colour}"{extra}/>')

    def label(self, x: float, y: float, text: str, *, size: float = 11, anchor: str = "start",
              weight: str = "normal", family: str = "", colour: str = "",
              rotate: float | None = None) -> None:
        attributes = f'x="{num(x)}" y="{num(y)}" font-size="{num(size)}"'
        if anchor != "start":
            attributes += f' text-anchor="{anchor}"'
        if weight != "normal":
            attributes += f' font-weight="{weight}"'
        if family:
            attributes += f' font-family="{family}"'
        if colour:
            attributes += f' fill="{colour}"'
        if rotate is not None:
            attributes += f' transform="rotate({num(rotate)} {num(x)} {num(y)})"'
        self.add(f"<text {attributes}>{escape(text)}</text>")

    def text(self) -> str:
        return "\n".join([*self.parts, "</svg>"]) + "\n"


def no_data(title: str, what: str) -> str:
    """The drawing for an empty input: the frame, the title and a sentence saying so."""
    canvas = Canvas(WIDTH, 120.0, title)
    canvas.add(f'<rect x="20.5" y="30.5" width="{num(WIDTH - 41)}" height="70" fill="none" '
               f'stroke="{GRID_COLOUR}"/>')
    canvas.label(WIDTH / 2, 70, f"No data: {what}", size=12, anchor="middle",
                 colour="#666666")
    return canvas.text()


def marker(shape: str, x: float, y: float, colour: str, size: float = 4.0) -> str:
    """A source's marker centred on (x, y): filled shapes with a white rim."""
    rim = 'stroke="#FFFFFF" stroke-width="0.8"'
    if shape == "circle":
        return f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(size)}" fill="{colour}" {rim}/>'
    if shape == "square":
        s = size * 0.9
        return (f'<rect x="{num(x - s)}" y="{num(y - s)}" width="{num(2 * s)}" '
                f'height="{num(2 * s)}" fill="{colour}" {rim}/>')
    if shape == "cross":
        s = size * 1.1
        return (f'<path d="M{num(x - s)} {num(y)}H{num(x + s)}M{num(x)} {num(y - s)}'
                f'V{num(y + s)}" stroke="{colour}" stroke-width="2.4" fill="none"/>')
    s = size * 1.25
    if shape == "triangle":
        points = [(x, y - s), (x + s, y + s * 0.8), (x - s, y + s * 0.8)]
    elif shape == "down":
        points = [(x, y + s), (x + s, y - s * 0.8), (x - s, y - s * 0.8)]
    else:  # diamond
        points = [(x, y - s), (x + s, y), (x, y + s), (x - s, y)]
    text = " ".join(f"{num(px)},{num(py)}" for px, py in points)
    return f'<polygon points="{text}" fill="{colour}" {rim}/>'


# --- time ------------------------------------------------------------------------------------


def read_moment(moment: str) -> datetime | None:
    """A report moment (ISO date or date-time) as a UTC time without zone; None if unreadable.
    A date alone is its midday, so it sits in the middle of its day."""
    text = moment.strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time()) + \
                timedelta(hours=12)
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


EPOCH = datetime(1970, 1, 1)


def seconds(moment: datetime) -> float:
    return (moment - EPOCH).total_seconds()


def time_label(moment: datetime, step: float, with_year: bool) -> str:
    day = f"{moment.day} {MONTHS[moment.month - 1]}"
    if with_year:
        day += f" {moment.year}"
    if step < 86400:
        return f"{day} {moment.hour:02d}:{moment.minute:02d}"
    return day


def time_ticks(start: float, end: float, most: int = 6) -> tuple[float, list[float]]:
    """A step from :data:`TIME_STEPS` (or whole 30-day multiples beyond them) and the ticks
    on its multiples inside [start, end]."""
    span = end - start
    step = next((s for s in TIME_STEPS if span / s <= most), 0.0)
    if not step:
        step = 30 * 86400 * math.ceil(span / (30 * 86400 * most))
    first = math.ceil(start / step) * step
    ticks: list[float] = []
    value = first
    while value <= end + 1e-6:
        ticks.append(value)
        value += step
    return step, ticks


# --- figures over time ----------------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    point: FigurePoint
    at: float  # seconds since 1970


class SvgCharts:
    """The :class:`~casebuilder.reporting.casefile.figures.ChartDrawer` casebuilder ships."""

    def __init__(self, width: float = WIDTH, height: float = HEIGHT) -> None:
        self.width = width
        self.height = height

    def figures_over_time(self, points: Sequence[FigurePoint]) -> str:
        """Each source's figures at the moment it gave them: one panel per measure (killed,
        then injured), ranges as bars between their ends, the footnote number beside each
        mark, one marker shape and colour per source, named in the legend."""
        title = "Casualty figures by source and time of report"
        placed = [Placed(p, seconds(m)) for p in points if (m := read_moment(p.moment))]
        unread = len(points) - len(placed)
        if not placed:
            return no_data(title, "no casualty figure with a readable report time")
        placed.sort(key=lambda q: (q.at, q.point.measure, q.point.source, q.point.low,
                                   q.point.high or -1, q.point.footnote or 0))
        sources = sorted({q.point.source for q in placed})
        style = {s: (SHAPES[i % len(SHAPES)], COLOURS[i % len(COLOURS)])
                 for i, s in enumerate(sources)}
        order = {"killed": 0, "injured": 1}
        measures = sorted({q.point.measure for q in placed}, key=lambda m: (order.get(m, 2), m))

        left, right = 56.0, self.width - 20.0
        panel_h, gap, top = 150.0, 34.0, 38.0
        legend_rows = self._legend_rows(sources, left, right)
        height = top + len(measures) * panel_h + (len(measures) - 1) * gap + 36 + \
            16 * len(legend_rows) + (14 if unread else 0)
        canvas = Canvas(self.width, max(height, self.height * 0.6), title)

        start, end = placed[0].at, placed[-1].at
        if end - start < 3600:
            start, end = start - 6 * 3600, end + 6 * 3600
        pad = (end - start) * 0.05
        start, end = start - pad, end + pad
        step, ticks = time_ticks(start, end)
        years = {datetime.fromtimestamp(t, UTC).year for t in (start, end)}

        def x_of(at: float) -> float:
            return left + (at - start) / (end - start) * (right - left)

        # a source's marks at one moment are set a little apart so that equal figures from
        # several sources stay visible
        dodge = {s: (i - (len(sources) - 1) / 2) * min(5.0, 30.0 / max(len(sources), 1))
                 for i, s in enumerate(sources)}
        for index, measure in enumerate(measures):
            y0 = top + index * (panel_h + gap)
            y1 = y0 + panel_h
            mine = [q for q in placed if q.point.measure == measure]
            upper, yticks = value_ticks(max(max(q.point.low, q.point.high or 0) for q in mine))

            def y_of(value: float, y1: float = y1, y0: float = y0, upper: float = upper) -> float:
                return y1 - value / upper * (y1 - y0 - 8)

            canvas.label(left, y0 - 4, measure.capitalize() + " (as reported)", size=11,
                         weight="bold")
            for tick in yticks:
                y = y_of(tick)
                canvas.line(left, y, right, y, GRID_COLOUR, 0.6)
                canvas.label(left - 6, y + 3.5, str(tick), size=9, anchor="end")
            for moment_tick in ticks:
                x = x_of(moment_tick)
                canvas.line(x, y1, x, y1 + 4)
                moment = datetime.fromtimestamp(moment_tick, UTC).replace(tzinfo=None)
                canvas.label(x, y1 + 15, time_label(moment, step, len(years) > 1),
                             size=9, anchor="middle")
            canvas.line(left, y1, right, y1)
            canvas.line(left, y0, left, y1)

            for source in sources:
                shape, colour = style[source]
                theirs = [q for q in mine if q.point.source == source]
                if len(theirs) > 1:
                    path = " ".join(
                        f"{num(x_of(q.at) + dodge[source])},"
                        f"{num(y_of(self._middle(q.point)))}" for q in theirs)
                    canvas.add(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                               f'stroke-width="1" stroke-opacity="0.45"/>')
                for q in theirs:
                    x = x_of(q.at) + dodge[source]
                    p = q.point
                    if p.high is not None and p.high != p.low:
                        ya, yb = y_of(p.low), y_of(p.high)
                        canvas.line(x, ya, x, yb, colour, 1.6)
                        canvas.line(x - 3, ya, x + 3, ya, colour, 1.2)
                        canvas.line(x - 3, yb, x + 3, yb, colour, 1.2)
                    y = y_of(self._middle(p))
                    canvas.add(marker(shape, x, y, colour))
                    if p.footnote is not None:
                        canvas.label(x + 5.5, y - 4, str(p.footnote), size=7.5,
                                     colour="#555555")
        y = top + len(measures) * panel_h + (len(measures) - 1) * gap + 34
        for row in legend_rows:
            for x, source in row:
                shape, colour = style[source]
                canvas.add(marker(shape, x + 5, y - 4, colour))
                canvas.label(x + 14, y, shorten(source, 40), size=10)
            y += 16
        if unread:
            canvas.label(left, y, f"{unread} figure(s) without a readable report time not "
                         "shown", size=9, colour="#666666")
        return canvas.text()

    @staticmethod
    def _middle(point: FigurePoint) -> float:
        if point.high is None:
            return float(point.low)
        return (point.low + point.high) / 2

    @staticmethod
    def _legend_rows(sources: Sequence[str], left: float, right: float
                     ) -> list[list[tuple[float, str]]]:
        rows: list[list[tuple[float, str]]] = [[]]
        x = left
        for source in sources:
            width = 24 + 5.6 * len(shorten(source, 40))
            if rows[-1] and x + width > right:
                rows.append([])
                x = left
            rows[-1].append((x, source))
            x += width
        return rows

    # --- bars ----------------------------------------------------------------------------

    def bars(self, counts: Sequence[Count], title: str = "", unit: str = "incidents") -> str:
        """Vertical bars in the order given, each with its value above it (zeros too), the
        labels below and a value axis with ticks."""
        if not counts:
            return no_data(title, f"no {unit} to count")
        canvas = Canvas(self.width, self.height, title)
        left, right = 56.0, self.width - 16.0
        y0, y1 = 40.0, self.height - 40.0
        upper, ticks = value_ticks(max(c.value for c in counts))
        for tick in ticks:
            y = y1 - tick / upper * (y1 - y0)
            canvas.line(left, y, right, y, GRID_COLOUR, 0.6)
            canvas.line(left - 4, y, left, y)
            canvas.label(left - 7, y + 3.5, str(tick), size=9, anchor="end")
        canvas.label(16, (y0 + y1) / 2, unit, size=10, anchor="middle", rotate=-90.0)
        slot = (right - left) / len(counts)
        bar = slot * 0.72
        label_size = min(10.0, max(6.0, slot / 2.6))
        longest = max(len(c.label) for c in counts)
        slanted = longest * label_size * 0.55 > slot
        for i, count in enumerate(counts):
            x = left + i * slot + (slot - bar) / 2
            h = max(count.value, 0) / upper * (y1 - y0)
            canvas.rect(x, y1 - h, bar, h, BAR_COLOUR)
            canvas.label(x + bar / 2, y1 - h - 3, str(count.value), size=label_size,
                         anchor="middle")
            centre = left + (i + 0.5) * slot
            canvas.line(centre, y1, centre, y1 + 3)
            if slanted:
                canvas.label(centre, y1 + 12, shorten(count.label, 18), size=label_size,
                             anchor="end", rotate=-35.0)
            else:
                canvas.label(centre, y1 + 14, count.label, size=label_size, anchor="middle")
        canvas.line(left, y1, right, y1)
        canvas.line(left, y0, left, y1)
        total = sum(max(c.value, 0) for c in counts)
        canvas.label(right, y0 - 8, f"total {total} {unit}", size=9, anchor="end",
                     colour="#555555")
        return canvas.text()

    # --- timeline ------------------------------------------------------------------------

    def timeline(self, events: Sequence[Dated], title: str = "") -> str:
        """Incidents by day: one mark each, stacked where several fall on one day, its size
        growing with the value (e.g. killed); month ticks below; the few largest labelled."""
        days: list[tuple[date, Dated]] = []
        for event in events:
            try:
                days.append((date.fromisoformat(event.day[:10]), event))
            except ValueError:
                continue
        unread = len(events) - len(days)
        if not days:
            return no_data(title, "no incident with a readable date")
        days.sort(key=lambda d: (d[0], -d[1].value, d[1].label))
        canvas = Canvas(self.width, self.height, title)
        left, right = 30.0, self.width - 30.0
        base, ceiling = self.height - 50.0, 92.0
        first, last = days[0][0], days[-1][0]
        pad = max(1, (last - first).days // 40)
        start, end = first - timedelta(days=pad), last + timedelta(days=pad + 1)
        span = (end - start).days

        def x_of(day: date) -> float:
            return left + ((day - start).days + 0.5) / span * (right - left)

        # ticks on the first of months, thinned to at most about ten
        months: list[date] = []
        cursor = date(start.year, start.month, 1)
        while cursor <= end:
            if cursor >= start:
                months.append(cursor)
            cursor = date(cursor.year + (cursor.month == 12), cursor.month % 12 + 1, 1)
        every = max(1, math.ceil(len(months) / 10))
        months = [m for i, m in enumerate(months) if (m.year * 12 + m.month - 1) % every == 0]
        canvas.line(left, base, right, base)
        for month in months:
            x = left + (month - start).days / span * (right - left)
            canvas.line(x, base, x, base + 5)
            canvas.line(x, ceiling - 6, x, base, GRID_COLOUR, 0.5)
            text = MONTHS[month.month - 1]
            if month.month == 1 or month == months[0]:
                text += f" {month.year}"
            canvas.label(x + 2, base + 16, text, size=9)
        if span <= 62:  # a short timeline: ticks on days too (every 1, 2, 7 or 14 days)
            every_days = next(k for k in (1, 2, 7, 14) if span / k <= 12)
            day = start
            while day < end:
                if (day - date(1970, 1, 5)).days % every_days == 0 and day.day != 1:
                    x = x_of(day)
                    canvas.line(x, base, x, base + 3)
                    canvas.label(x, base + 28, f"{day.day} {MONTHS[day.month - 1]}", size=8,
                                 anchor="middle", colour="#555555")
                day += timedelta(days=1)

        top_value = max(max(e.value for _, e in days), 0)
        per_day: dict[date, int] = defaultdict(int)
        for day, _ in days:
            per_day[day] += 1
        tallest = max(per_day.values())
        rise = min(9.0, (base - ceiling - 10) / tallest)
        grow = 6.0 if len(days) <= 300 else 3.0  # a crowded timeline keeps its marks small
        stacked: dict[date, int] = defaultdict(int)
        marks: list[str] = []
        placed: list[tuple[float, float, float, Dated]] = []
        for day, event in days:
            level = stacked[day]
            stacked[day] += 1
            r = 2.6 if top_value <= 0 else 2.2 + grow * math.sqrt(max(event.value, 0) / top_value)
            x, y = x_of(day), base - 4 - level * rise
            marks.append(f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}"/>')
            placed.append((x, y, r, event))
        canvas.add(f'<g fill="{MARK_COLOUR}" fill-opacity="0.55" stroke="{MARK_COLOUR}" '
                   f'stroke-width="0.5">')
        canvas.parts.extend(marks)
        canvas.add("</g>")

        largest = sorted((p for p in placed if p[3].value > 0),
                         key=lambda p: (-p[3].value, p[0], p[3].label))[:5]
        for row, (x, y, r, event) in enumerate(sorted(largest, key=lambda p: (p[0], p[1]))):
            label_y = 40.0 + (row % 3) * 14.0
            anchor = "end" if x > self.width * 0.7 else "start"
            canvas.line(x, label_y + 3, x, y - r, "#888888", 0.5)
            canvas.label(x + (-3 if anchor == "end" else 3), label_y,
                         f"{shorten(event.label, 34)} ({event.value})", size=9, anchor=anchor)
        note = f"{len(days)} incident(s); mark size grows with the value"
        if top_value > 0:
            note += f" (largest {top_value})"
        if unread:
            note += f"; {unread} without a readable date not shown"
        canvas.label(left, self.height - 4, note, size=9, colour="#555555")
        return canvas.text()
