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
