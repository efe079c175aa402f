"""Getting the number out of a run's stdout."""
import unittest

import helpers  # noqa: F401  (puts scripts/ on sys.path)
from lockswap_cli import metrics
from lockswap_cli.errors import UsageError
from lockswap_cli.metrics import Metric, MetricError


class Regex(unittest.TestCase):
    def test_first_group(self):
        self.assertEqual(metrics.from_regex(r"ops/s: (\S+)", "x\nops/s: 1.5e3\n"), 1500.0)

    def test_whole_match_without_group(self):
        self.assertEqual(metrics.from_regex(r"[0-9.]+(?= ops)", "did 42.5 ops\n"), 42.5)

    def test_first_match_wins(self):
        self.assertEqual(metrics.from_regex(r"v=(\d+)", "v=1\nv=2\n"), 1.0)

    def test_anchors_work_per_line(self):
        self.assertEqual(metrics.from_regex(r"^total (\d+)$", "a\ntotal 7\nb"), 7.0)

    def test_not_found(self):
        with self.assertRaises(MetricError):
            metrics.from_regex(r"ops/s: (\S+)", "nothing here\n")

    def test_not_a_number(self):
        with self.assertRaises(MetricError):
            metrics.from_regex(r"ops/s: (\S+)", "ops/s: fast\n")

    def test_group_that_did_not_take_part(self):
        with self.assertRaises(MetricError):
            metrics.from_regex(r"a(\d+)?", "a\n")


class JsonKey(unittest.TestCase):
    OUT = ('starting\n{"throughput": 1, "nested": {"a": {"b": 2.5}}}\n'
           'noise {not json}\n{"throughput": 3, "list": [{"x": 4}]}\n')

    def test_last_json_line(self):
        self.assertEqual(metrics.from_json_key("throughput", self.OUT), 3.0)

    def test_dotted_path_and_list_index(self):
        self.assertEqual(metrics.from_json_key("list.0.x", self.OUT), 4.0)

    def test_earlier_line_that_has_the_key(self):
        self.assertEqual(metrics.from_json_key("nested.a.b", self.OUT), 2.5)

    def test_not_found(self):
        with self.assertRaises(MetricError) as cm:
            metrics.from_json_key("nested.a.c", self.OUT)
        self.assertIn("nested.a.c", str(cm.exception))

    def test_no_json_at_all(self):
        with self.assertRaises(MetricError) as cm:
            metrics.from_json_key("throughput", "plain text\n")
        self.assertIn("no JSON", str(cm.exception))

    def test_not_a_number(self):
        for out in ('{"k": "fast"}', '{"k": true}', '{"k": {"a": 1}}', '{"k": null}'):
            with self.subTest(out=out), self.assertRaises(MetricError):
                metrics.from_json_key("k", out)

    def test_numeric_string_is_accepted(self):
        self.assertEqual(metrics.from_json_key("k", '{"k": "12.5"}'), 12.5)


class MetricObject(unittest.TestCase):
    def test_default_is_wall_time_lower_is_better(self):
        m = Metric()
        self.assertTrue(m.lower_is_better)
        self.assertEqual(m.extract("whatever", 1.25), 1.25)

    def test_regex_and_key(self):
        self.assertEqual(Metric(regex=r"v=(\d+)").extract("v=9", 0), 9.0)
        m = Metric(json_key="a.b", lower_is_better=True)
        self.assertEqual(m.extract('{"a": {"b": 5}}', 0), 5.0)
        self.assertTrue(m.lower_is_better)
        self.assertFalse(Metric(json_key="a").lower_is_better)

    def test_bad_arguments(self):
        for kw in ({"regex": "("}, {"json_key": "a..b"}, {"regex": "x", "json_key": "y"}):
            with self.subTest(kw=kw), self.assertRaises(UsageError):
                Metric(**kw)


if __name__ == "__main__":
    unittest.main()
