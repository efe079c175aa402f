"""lockswap report's lock-order section (scripts/lockswap_cli/lock_order.py,
docs/deadlock.md) on a synthetic "lock_order" section, checked against
docs/stats-schema.json first: the cycles (reported before gated), the
held lock's site ("at" where its return address is the user's, "in" the
request's function where it lies in a lock wrapper or in lockswap), the
hangs and the threads that hold or wait now; and `lockswap run
--deadlock/--hang-ms` as library options.  tests/deadlock runs the whole
path on a real program."""
import json
import os
import sys
import unittest

from helpers import REPO, CliAssertions, clean_env, lockswap
from lockswap_cli import lock_order, lock_order_frames

sys.path.insert(0, os.path.join(REPO, "tests", "stats"))
import schema_lite  # noqa: E402

SCHEMA = json.load(open(os.path.join(REPO, "docs", "stats-schema.json")))


def frame(addr, symbol, obj="/bin/prog"):
    return {"addr": hex(addr), "symbol": symbol, "object": obj, "offset": hex(addr - 0x1000)}


def lock(addr, name, site=None, read=False, type_="mutex"):
    return {"addr": hex(addr), "type": type_, "name": name, "read": read, "site": site}


def edge(frm, to, held, request, stack, tid, timed=False):
    return {"timed": timed, "from": frm, "to": to, "held_site": held, "request_site": request,
            "request_stack": stack, "thread": {"tid": tid, "name": "prog"}}


A = lock(0x5000, "lock_a")
B = lock(0x5040, None, site=frame(0x1230, "first_user"))
G = lock(0x5080, "gate_g")
SECTION = {
    "mode": "report", "hang_ms": 2000, "locks": 3, "edges": 4, "locks_max": 65536,
    "edges_max": 131072, "full": False, "cycles_found": 1, "gated_cycles": 1,
    "cycles_dropped": 0, "searches_cut": 0, "deadlocks": 1, "long_waits": 0,
    "cycles": [
        {"length": 2, "gated": True, "gate": G, "edges": [
            edge(A, B, frame(0x1100, "gated_ab"), frame(0x1104, "gated_ab"),
                 [frame(0x1104, "gated_ab")], 11),
            edge(B, A, frame(0x1200, "gated_ba"), frame(0x1204, "gated_ba"),
                 [frame(0x1204, "gated_ba")], 12)]},
        {"length": 2, "gated": False, "edges": [
            # -O0 C++: the held lock's return address is in the wrapper
            edge(A, B, frame(0x7100, "__gthread_mutex_lock(pthread_mutex_t*)"),
                 frame(0x7100, "__gthread_mutex_lock(pthread_mutex_t*)"),
                 [frame(0x7100, "__gthread_mutex_lock(pthread_mutex_t*)"),
                  frame(0x7200, "std::mutex::lock()"),
                  frame(0x1300, "take_ab()"), frame(0x1400, "caller_of_ab()")], 13),
            edge(B, A, frame(0x1500, "take_ba()"), frame(0x1504, "take_ba()"),
                 [frame(0x1504, "take_ba()")], 14, timed=True)]},
    ],
    "hangs": [{"kind": "deadlock", "threads": [
        {"tid": 13, "name": "t1", "waits_for": lock(0x5040, None), "site": frame(0x1300, "take_ab()"),
         "waited_ns": 2100000000, "holder_tid": 14, "holder_site": frame(0x1500, "take_ba()")},
        {"tid": 14, "name": "t2", "waits_for": lock(0x5000, "lock_a"), "site": frame(0x1504, "take_ba()"),
         "waited_ns": 2000000000, "holder_tid": 13, "holder_site": frame(0x1300, "take_ab()")}]}],
    "now": [{"tid": 13, "state": "live",
             "holds": [{"lock": "0x5000", "type": "mutex", "read": False,
                        "site": frame(0x1300, "take_ab()")}],
             "waits_for": {"lock": "0x5040", "type": "mutex", "read": False,
                           "waited_ns": 2100000000, "site": frame(0x1300, "take_ab()")}}],
}


class LockOrderText(unittest.TestCase):
    def test_the_section_matches_the_schema(self):
        errs = schema_lite.errors(SECTION, SCHEMA["properties"]["lock_order"], SCHEMA)
        self.assertEqual(errs, [])

    def test_reported_cycles_come_before_gated_ones(self):
        text = lock_order.text({"lock_order": SECTION})
        self.assertIn("1 potential deadlocks, 1 cycles ruled out by a gate lock", text)
        self.assertLess(text.index("potential deadlock: a cycle of 2 locks"),
                        text.index("gated cycle of 2 locks"))
        self.assertIn("every edge was taken holding mutex gate_g", text)

    def test_held_site_in_a_wrapper_names_the_requests_function(self):
        text = lock_order.text({"lock_order": SECTION})
        self.assertIn("held mutex lock_a, taken in take_ab()", text)
        self.assertIn("requested mutex 0x5040 (first used at first_user) at take_ab()"
                      " [std::mutex::lock] < caller_of_ab()", text)
        self.assertNotIn("gthread", text)
        self.assertIn("taken at take_ba()", text)
        self.assertIn("(a timed lock)", text)

    def test_hangs_and_now(self):
        text = lock_order.text({"lock_order": SECTION})
        self.assertIn("deadlock: 2 threads wait for each other", text)
        self.assertIn('thread 13 "t1" waits for mutex 0x5040 at take_ab(), for 2.10 s; held by '
                      "thread 14, which took it at take_ba()", text)
        self.assertIn("thread 13: holds mutex 0x5000 (taken at take_ab()); waits for mutex 0x5040",
                      text)

    def test_every_frame_is_annotated(self):
        frames = list(lock_order_frames.frames({"lock_order": SECTION}))
        self.assertIn(B["site"], frames)
        self.assertIn(SECTION["cycles"][1]["edges"][0]["request_stack"][2], frames)
        self.assertIn(SECTION["hangs"][0]["threads"][0]["holder_site"], frames)

    def test_no_section_no_text(self):
        self.assertIsNone(lock_order.text({}))


class RunDeadlockFlags(CliAssertions, unittest.TestCase):
    def test_a_bad_mode_is_the_librarys_error(self):
        p = lockswap("run", "--deadlock", "sometimes", "--", "true", env=clean_env())
        self.assertEqual(p.returncode, 2, p.stderr)
        # The CLI names the flag and value the user typed, then the variable.
        self.assertIn("--deadlock sometimes (LOCKSWAP_DEADLOCK)", p.stderr)

    def test_the_flags_reach_the_program(self):
        p = lockswap("run", "--deadlock", "report", "--hang-ms", "250", "--", "env",
                     env=clean_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("LOCKSWAP_DEADLOCK=report", p.stdout)
        self.assertIn("LOCKSWAP_HANG_MS=250", p.stdout)


if __name__ == "__main__":
    unittest.main()
