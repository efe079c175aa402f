"""What the plots say: readable axis names instead of JSON keys, frontier
labels that do not cover each other, a footer that fits the figure, and a
fleet footnote that says how each measure is compared."""
import unittest

import helpers  # noqa: F401  (puts scripts/ on sys.path)
from lockswap_cli import axis_labels, fleet_compare, fleet_plot, frontier, label_place, plot


class AxisLabels(unittest.TestCase):
    def test_known_keys_get_a_sentence(self):
        self.assertEqual(axis_labels.readable("min_share"),
                         "min share (least-served thread / mean; 1 = equal)")
        self.assertEqual(axis_labels.readable("ops_per_sec"), "operations/s")

    def test_other_keys_are_spelt_out_with_their_unit(self):
        self.assertEqual(axis_labels.readable("wait_p99_ns"), "wait p99 (ns)")
        self.assertEqual(axis_labels.readable("stats.hold_us"), "stats hold (µs)")
        self.assertEqual(axis_labels.readable("/ops: (\\d+)/"), "/ops: (\\d+)/")

    def test_direction(self):
        self.assertEqual(axis_labels.with_direction("seconds", True),
                         "wall-clock seconds, lower is better")


def boxes(ax):
    """The drawn labels' boxes in display pixels (the text alone, without
    an annotation's leader line)."""
    from matplotlib.text import Text
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    return [Text.get_window_extent(t, renderer) for t in ax.texts]


class LabelPlacement(unittest.TestCase):
    def setUp(self):
        self.plt = plot.pyplot()
        self.fig, self.ax = self.plt.subplots(figsize=(4.6, 4), dpi=110)
        self.addCleanup(self.plt.close, self.fig)

    def test_crowded_labels_do_not_overlap(self):
        """Six backends within 2% of 1.0x and of each other's share, as a
        frontier plot's fast and fair corner often looks."""
        names = ["glibc", "futex", "slice:futex", "tts", "bcs", "capacitor:futex"]
        pts = [(n, 1.0 + 0.004 * i, 0.80 + 0.003 * i, "C0") for i, n in enumerate(names)]
        self.ax.set_xlim(0.01, 2)
        self.ax.set_xscale("log")
        self.ax.set_ylim(0, 1.05)
        self.ax.plot([p[1] for p in pts], [p[2] for p in pts], "o")
        self.fig.canvas.draw()
        label_place.place(self.ax, pts)
        drawn = boxes(self.ax)
        self.assertEqual(len(drawn), len(names))
        for i, a in enumerate(drawn):
            for b in drawn[i + 1:]:
                self.assertFalse(a.overlaps(b), f"{a} and {b}")

    def test_a_lone_label_sits_next_to_its_point(self):
        self.ax.set_xlim(0, 2)
        self.ax.set_ylim(0, 1)
        self.fig.canvas.draw()
        label_place.place(self.ax, [("futex", 1.0, 0.5, "C0")])
        box = boxes(self.ax)[0]
        px, py = self.ax.transData.transform((1.0, 0.5))
        self.assertGreater(box.x0, px)
        self.assertLess(box.x0 - px, 12)


    def test_the_leveldb_corner(self):
        """The demo's LevelDB frontier, where the labels of bcs and tts
        printed into each other: four backends within 0.9-1.4x and 0.77-0.83
        min share on a log axis, with their error bars; no label covers
        another label or another backend's point."""
        pts = [("tts", 0.89, 0.831, "C5"), ("futex", 1.38, 0.829, "C1"),
               ("bcs", 1.30, 0.803, "C6"), ("slice:futex", 1.27, 0.766, "C2"),
               ("glibc", 1.0, 0.678, "C0")]
        self.ax.set_xscale("log")
        self.ax.set_xlim(0.035, 2)
        self.ax.set_ylim(0, 1.05)
        self.ax.plot([p[1] for p in pts], [p[2] for p in pts], "o")
        self.fig.canvas.draw()
        bars = [((x * 0.8, y), (x * 1.2, y)) for _, x, y, _ in pts]
        label_place.place(self.ax, pts, obstacles=bars)
        drawn = boxes(self.ax)
        for i, a in enumerate(drawn):
            for b in drawn[i + 1:]:
                self.assertFalse(a.overlaps(b), f"{a} and {b}")
            for j, (_, x, y, _) in enumerate(pts):
                px, py = self.ax.transData.transform((x, y))
                if j != i:
                    self.assertFalse(a.x0 < px < a.x1 and a.y0 < py < a.y1,
                                     f"label {pts[i][0]} covers the point of {pts[j][0]}")


    def test_wide_labels_are_measured_not_guessed(self):
        """Labels whose letters are wider than an average character (the
        placement once guessed 0.6 em a character, and such labels printed
        into each other): 20 crowded arrangements, no overlap."""
        names = ["capacitor:mcs", "restrict:queued", "WWW-bcs", "tts", "mcs", "MMM"]
        for k in range(20):
            fig, ax = self.plt.subplots(figsize=(4.6, 4), dpi=110)
            self.addCleanup(self.plt.close, fig)
            pts = [(n, 1.0 + 0.01 * ((i * 7 + k) % 5), 0.8 + 0.01 * ((i * 3 + k) % 4), "C0")
                   for i, n in enumerate(names)]
            ax.set_xscale("log")
            ax.set_xlim(0.035, 2)
            ax.set_ylim(0, 1.05)
            fig.canvas.draw()
            label_place.place(ax, pts)
            drawn = boxes(ax)
            for i, a in enumerate(drawn):
                for b in drawn[i + 1:]:
                    self.assertFalse(a.overlaps(b), f"arrangement {k}: {a} and {b}")


class Layout(unittest.TestCase):
    def test_no_empty_cells_where_a_layout_has_none(self):
        self.assertEqual(frontier.grid(1), (1, 1))
        self.assertEqual(frontier.grid(3), (1, 3))
        self.assertEqual(frontier.grid(4), (2, 2))   # the demo's sweep: 1, 2, 4, 8 threads
        self.assertEqual(frontier.grid(6), (2, 3))
        self.assertEqual(frontier.grid(8), (2, 4))
        for n in range(1, 13):
            rows, cols = frontier.grid(n)
            self.assertGreaterEqual(rows * cols, n)
            self.assertLess(rows * cols - n, cols, n)

    @staticmethod
    def pts(xs):
        return [{"label": f"b{i}", "x": x, "x_low": x, "x_high": x, "y": 1, "y_low": 1,
                 "y_high": 1, "frontier": True} for i, x in enumerate(xs)]

    def test_one_scale_for_every_panel(self):
        """The 1-thread panel (all near 1x) is logarithmic too when another
        panel spans more than LOG_SPAN."""
        narrow, wide = self.pts([0.7, 1.05]), self.pts([0.01, 2.5])
        self.assertTrue(frontier.log_x([("1", narrow), ("8", wide)]))
        self.assertFalse(frontier.log_x([("1", narrow), ("2", narrow)]))

    def test_the_frontier_line_is_drawn_over_the_points(self):
        plt = plot.pyplot()
        fig, ax = plt.subplots()
        self.addCleanup(plt.close, fig)
        frontier.panel(ax, "t", self.pts([0.5, 1.0, 2.0]), {f"b{i}": "C0" for i in range(3)},
                       "glibc", "min_share", logarithmic=True)
        front = [l for l in ax.lines if len(l.get_xdata()) == 3 and l.get_linestyle() != "None"]
        self.assertEqual(len(front), 1)
        under = [a.get_zorder() for c in ax.containers for a in c.get_children()]
        self.assertEqual(len(ax.containers), 3)  # the points with their error bars
        self.assertGreater(front[0].get_zorder(), max(under))


class Footer(unittest.TestCase):
    def test_long_command_is_wrapped_to_the_figure(self):
        note = ("build/bench/leveldb_bench --benchmarks readrandom --threads 8 --num 50000 "
                "--seconds 0.5 --json  (5 rounds, interleaved)")
        lines = frontier.wrap(note, 5.0)
        self.assertGreater(len(lines), 1)
        self.assertEqual(" ".join(lines).split(), note.split())
        self.assertTrue(all(len(l) <= 5.0 * 72 / (0.55 * 7) for l in lines))


class FleetFootnote(unittest.TestCase):
    def test_min_share_is_said_to_be_compared_by_difference(self):
        text = fleet_plot.footnote(fleet_compare.measures("ops_per_sec"))
        self.assertIn("ratio to the baseline", text)
        self.assertIn("for min share: the CI of the difference", text)
        self.assertNotIn("difference",
                         fleet_plot.footnote([fleet_compare.LOCK_MEASURES[0]]))


if __name__ == "__main__":
    unittest.main()
