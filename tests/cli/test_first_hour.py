"""Issue 19, what a new user trips over in the first hour: signals end the
measured program, programs that cannot be preloaded are refused before
anything runs, messages point at the fix, the inner lock is named, and the
small output details (CSV columns, units, plot names, a metric the program
never prints, --folded/--plot, legends, near-zero shares)."""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import FAKE, SCRIPT, CliAssertions, clean_env, lockswap

# Writes its pid and its child's (a sleep) to argv[1], then waits.
SLEEPER = [sys.executable, "-c",
           "import os, subprocess, sys, time\n"
           "child = subprocess.Popen(['sleep', '300'])\n"
           "with open(sys.argv[1] + '.tmp', 'w') as f: f.write(f'{os.getpid()} {child.pid}')\n"
           "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
           "time.sleep(300)\n"]


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(path, seconds=60):
    end = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > end:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.05)


def stop(proc):
    """Kills proc if it still runs (a test that failed before it ended)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def default_signals():
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def hangup_ignored():
    """As nohup starts a program."""
    default_signals()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


class Signals(unittest.TestCase):
    """SIGTERM / SIGHUP to lockswap: the program and its children end
    too, and lockswap exits 128 + the signal."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def start(self, args, extra=(), preexec=default_signals):
        """lockswap ARGS -- SLEEPER, once the program has written its pids:
        (the process, its stderr file, the program's pid, its child's)."""
        pids = os.path.join(self.tmp.name, "pids")
        errors = os.path.join(self.tmp.name, "stderr")
        with open(errors, "w") as err_file:
            # lockswap keeps a signal ignored when it started (nohup):
            # the tests start it with the signals' default action, so that
            # they pass however they are run (`nohup bash .ci/run`).
            proc = subprocess.Popen([SCRIPT, *args, "--", *SLEEPER, pids, *extra],
                                    env=clean_env(), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err_file,
                                    preexec_fn=preexec)
        self.addCleanup(stop, proc)
        wait_for(pids)
        with open(pids) as f:
            program, child = map(int, f.read().split())
        return proc, errors, program, child

    def ended(self, proc, errors, program, child):
        """Waits for lockswap, then (10 s at most) for the program and its
        child to be gone: lockswap's exit status and its stderr."""
        proc.wait(timeout=60)
        with open(errors) as f:
            err = f.read()
        end = time.monotonic() + 10
        while (alive(program) or alive(child)) and time.monotonic() < end:
            time.sleep(0.05)
        return proc.returncode, err

    def send(self, args, sig, extra=()):
        proc, errors, program, child = self.start(args, extra)
        proc.send_signal(sig)
        rc, err = self.ended(proc, errors, program, child)
        return rc, err, program, child, proc.pid

    def check_ab_like(self, args, sig, extra=()):
        rc, err, program, child, _ = self.send(args, sig, extra)
        self.assertEqual(rc, 128 + sig, err)
        self.assertFalse(alive(program), "the measured program survived lockswap")
        self.assertFalse(alive(child), "the measured program's child survived lockswap")
        self.assertIn(f"terminated by {signal.Signals(sig).name}", err)
        self.assertNotIn("Traceback", err)

    def test_sigterm_ends_ab_and_its_program(self):
        self.check_ab_like(["ab", "-b", "glibc", "-b", "futex", "-q", "--runs", "2"],
                           signal.SIGTERM)

    def test_sighup_ends_ab_and_its_program(self):
        self.check_ab_like(["ab", "-b", "glibc", "-b", "futex", "-q", "--runs", "2"],
                           signal.SIGHUP)

    def test_sighup_ignored_at_start_stays_ignored(self):
        # Under nohup (SIGHUP ignored when lockswap starts) a hang-up does
        # not end the measurement; SIGTERM still does.
        proc, errors, program, child = self.start(
            ["ab", "-b", "glibc", "-b", "futex", "-q", "--runs", "2"], preexec=hangup_ignored)
        proc.send_signal(signal.SIGHUP)
        time.sleep(1)
        self.assertIsNone(proc.poll(), "SIGHUP, ignored at start, ended lockswap")
        self.assertTrue(alive(program), "SIGHUP, ignored at start, ended the program")
        proc.send_signal(signal.SIGTERM)
        rc, err = self.ended(proc, errors, program, child)
        self.assertEqual(rc, 128 + signal.SIGTERM, err)
        self.assertFalse(alive(program) or alive(child), "the program outlived SIGTERM")

    def test_sigterm_ends_sweep_and_its_program(self):
        self.check_ab_like(["sweep", "-b", "glibc", "--threads", "1", "-q", "--runs", "2"],
                           signal.SIGTERM, extra=["{threads}"])

    def test_run_becomes_the_program(self):
        # `run` execs the program: the signal reaches the program itself.
        rc, err, program, child, pid = self.send(["run", "-b", "futex"], signal.SIGTERM)
        self.assertEqual(program, pid, "run did not replace itself with the program")
        # The program's own child outlives it, as it would without lockswap.
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.assertEqual(rc, -signal.SIGTERM, err)
        self.assertFalse(alive(program))


STATIC_SOURCE = "#include <stdio.h>\nint main(void) { puts(\"ran\"); return 0; }\n"


class NotPreloadable(CliAssertions, unittest.TestCase):
    """Static and set-user-ID programs: one line, exit 2, nothing runs."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        src = os.path.join(cls.tmp.name, "prog.c")
        with open(src, "w") as f:
            f.write(STATIC_SOURCE)
        cls.static = os.path.join(cls.tmp.name, "static_prog")
        cc = shutil.which("gcc") or shutil.which("cc")
        built = cc and subprocess.run([cc, "-static", "-o", cls.static, src],
                                      capture_output=True).returncode == 0
        if not built:
            cls.static = None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_static_program_is_refused_by_run_and_ab(self):
        if not self.static:
            self.skipTest("no static C toolchain (gcc -static, libc6-dev's libc.a)")
        p = lockswap("run", "-b", "mcs", "--stats", "summary", "--", self.static)
        self.assertUsageError(p, self.static, "statically linked", "nothing ran")
        self.assertEqual(p.stdout, "", "the program ran")
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--", self.static)
        self.assertUsageError(p, "statically linked")
        self.assertEqual(p.stdout, "")

    def test_dynamic_program_is_accepted(self):
        p = lockswap("run", "-b", "futex", "--", "echo", "ran")
        self.assertEqual((p.returncode, p.stdout), (0, "ran\n"), p.stderr)

    def test_setuid_program_of_another_user_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("making a set-user-ID file of another user needs root")
        prog = os.path.join(self.tmp.name, "setuid_echo")
        shutil.copy(shutil.which("echo"), prog)
        os.chown(prog, 65534, -1)
        os.chmod(prog, 0o4755)
        os.chmod(self.tmp.name, 0o755)
        p = lockswap("run", "--", prog, "ran")
        self.assertUsageError(p, "set-user-ID", "LD_PRELOAD")
        self.assertEqual(p.stdout, "")


class Messages(CliAssertions, unittest.TestCase):
    """Every value is checked before anything runs, and the line says
    what to do."""

    def test_stats_signal_is_checked_before_running(self):
        self.assertUsageError(lockswap("run", "--set", "STATS_SIGNAL=FOO", "--", "echo", "x"),
                              "--set STATS_SIGNAL=FOO (LOCKSWAP_STATS_SIGNAL): not a signal "
                              "name or number")
        self.assertUsageError(lockswap("run", "--set", "STATS_SIGNAL=KILL", "--", "echo", "x"),
                              "--set STATS_SIGNAL=KILL (LOCKSWAP_STATS_SIGNAL)", "cannot be caught")
        p = lockswap("run", "--set", "STATS_SIGNAL=USR2", "--", "echo", "x")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_typo_gets_a_suggestion(self):
        line = self.assertUsageError(lockswap("run", "--set", "BYPAS=8", "--", "echo", "x"),
                                     "LOCKSWAP_BYPAS", "did you mean LOCKSWAP_BYPASS?")
        self.assertNotIn("LOCKSWAP_STATS_PROM_SITES", line, "the whole list after a suggestion")
        self.assertUsageError(lockswap("run", "--", "echo", "x",
                                       env=clean_env(LOCKSWAP_BAKCEND="futex")),
                              "did you mean LOCKSWAP_BACKEND?")

    def test_backend_typo_gets_a_suggestion(self):
        self.assertUsageError(lockswap("run", "-b", "futx", "--", "echo", "x"),
                              "-b futx (LOCKSWAP_BACKEND): unknown backend; did you mean futex?")
        line = self.assertUsageError(lockswap("run", "-b", "slice:futx", "--", "echo", "x"),
                                     "unknown inner lock 'futx'; did you mean slice:futex?")
        self.assertNotIn("native, non-wrapper", line)

    def test_stats_file_directory_is_checked_at_start_up(self):
        """As LOCKSWAP_STATS_PROM's: one line before the program runs, not
        a complaint at exit after the summary pointed at the file."""
        self.assertUsageError(lockswap("run", "--stats", "summary", "--set",
                                       "STATS_FILE=/nonexistent/dir/p.json", "--", "echo", "x"),
                              "--set STATS_FILE=/nonexistent/dir/p.json (LOCKSWAP_STATS_FILE): ",
                              "cannot write into directory /nonexistent/dir")
        lib = os.path.realpath(os.path.join(os.path.dirname(SCRIPT), "..", "liblockswap.so"))
        p = subprocess.run(["echo", "out"], env=clean_env(
            LD_PRELOAD=lib, LOCKSWAP_STATS="summary",
            LOCKSWAP_STATS_FILE="/nonexistent/dir/p.json"), capture_output=True, text=True)
        self.assertEqual(p.stdout, "out\n")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("LOCKSWAP_STATS_FILE='/nonexistent/dir/p.json': cannot write into "
                      "directory /nonexistent/dir", lines[0])

    def test_zero_names_the_range(self):
        self.assertUsageError(lockswap("run", "--bypass", "0", "--", "echo", "x"),
                              "--bypass 0 (LOCKSWAP_BYPASS): must be a whole number between 1 "
                              "and 16384")

    def test_library_says_nothing_was_applied(self):
        lib = os.path.join(os.path.dirname(SCRIPT), "..", "liblockswap.so")
        p = subprocess.run(["echo", "out"], env=clean_env(LD_PRELOAD=os.path.realpath(lib),
                                                          LOCKSWAP_BYPAS="8",
                                                          LOCKSWAP_STATS="summary"),
                           capture_output=True, text=True)
        self.assertEqual(p.stdout, "out\n")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("did you mean LOCKSWAP_BYPASS?", lines[0])
        self.assertIn("no LOCKSWAP_* setting applied, running on glibc's own locks", lines[0])


class InnerLockNamed(unittest.TestCase):
    """-b capacitor / -b restrict: every output names the inner lock."""

    def test_verbose_names_the_inner_lock(self):
        for wrapper in ("capacitor", "restrict"):
            p = lockswap("run", "-b", wrapper, "--verbose", "--", "echo", "x")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stderr, rf"backend={wrapper}:[a-z]+ ")
            self.assertNotIn("INNER", p.stderr)

    def test_ab_labels_name_the_inner_lock(self):
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "ab")
            p = lockswap("ab", "-b", "futex", "-b", "capacitor", "-b", "restrict,RESTRICT_ACTIVE=3",
                         "--runs", "2", "--warmup", "0", "-q", "--out", prefix, "--", "true")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(prefix + ".json") as f:
                labels = [b["label"] for b in json.load(f)["backends"]]
        self.assertEqual(labels[0], "futex")
        self.assertRegex(labels[1], r"^capacitor:[a-z]+$")
        self.assertRegex(labels[2], r"^restrict:[a-z]+,RESTRICT_ACTIVE=3$")
        self.assertNotIn("capacitor ", p.stdout)

    def test_wrapper_and_its_default_inner_are_one_backend(self):
        p = lockswap("ab", "-b", "capacitor", "-b", "capacitor:tts", "--", "true")
        if "capacitor:tts" in lockswap("run", "-b", "capacitor", "--verbose", "--",
                                       "true").stderr:
            self.assertEqual(p.returncode, 2)
            self.assertIn("given twice", p.stderr)


class OutputDetails(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_csv_never_has_a_column_twice(self):
        prefix = os.path.join(self.tmp.name, "ab")
        script = os.path.join(self.tmp.name, "prints_seconds")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho '{\"seconds\": 1.5}'\n")
        os.chmod(script, 0o755)
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0", "-q",
                     "--extra-key", "seconds", "--out", prefix, "--", script)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".csv") as f:
            header = next(csv.reader(f))
        self.assertEqual(len(header), len(set(header)), header)
        self.assertIn("json:seconds", header)

    def test_runs_have_a_documented_default_timeout(self):
        for flags, want in (((), 600), (("--timeout", "0"), None), (("--timeout", "2.5"), 2.5)):
            prefix = os.path.join(self.tmp.name, "t")
            p = lockswap("ab", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0", "-q",
                         *flags, "--out", prefix, "--", "true")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(prefix + ".json") as f:
                self.assertEqual(json.load(f)["timeout"], want, flags)

    def test_wall_time_shows_its_unit(self):
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0", "-q",
                     "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        row = next(l for l in p.stdout.splitlines() if l.startswith("glibc "))
        self.assertRegex(row, r"\d s ")

    def test_sweep_plot_is_named_after_wall_time(self):
        prefix = os.path.join(self.tmp.name, "sw")
        p = lockswap("sweep", "-b", "glibc", "--threads", "1,2", "--runs", "2", "-q",
                     "--out", prefix, "--", "echo", "{threads}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(prefix + "-seconds.png"))
        self.assertFalse(os.path.exists(prefix + "-throughput.png"))

    def test_missing_json_key_stops_after_the_first_round(self):
        log = os.path.join(self.tmp.name, "log")
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--json-key", "thruput", "--runs", "5",
                     "--warmup", "1", "-q", "--", FAKE, env=clean_env(FAKE_LOG=log))
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("--json-key thruput", lines[0])
        self.assertIn("throughput", lines[0], "the keys it printed are listed")
        with open(log) as f:
            self.assertEqual(len(f.readlines()), 2, "ran past the first round")

    def test_slow_backend_is_announced(self):
        script = os.path.join(self.tmp.name, "slow_for_mcs")
        with open(script, "w") as f:
            f.write('#!/bin/sh\n[ "$LOCKSWAP_BACKEND" = mcs ] && sleep 2.2\nexit 0\n')
        os.chmod(script, 0o755)
        p = lockswap("ab", "-b", "glibc", "-b", "mcs", "--runs", "1", "--warmup", "1",
                     "--", script)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("lockswap: time per run: ", p.stderr)
        self.assertRegex(p.stderr, r"warning: mcs is \d+x slower than glibc")
        self.assertRegex(p.stderr, r"round 1 mcs: running, ~\d")
        # The estimate and the warning come after the warm-up's last run, which they use.
        lines = p.stderr.splitlines()
        last_warmup = max(i for i, l in enumerate(lines) if "] warm-up 1 " in l)
        warning = next(i for i, l in enumerate(lines) if "warning: mcs" in l)
        estimate = next(i for i, l in enumerate(lines) if "time per run" in l)
        self.assertLess(last_warmup, estimate, p.stderr)
        self.assertLess(estimate, warning, p.stderr)

    def test_folded_and_plot_only_say_what_they_wrote(self):
        stats = os.path.join(self.tmp.name, "s.json")
        p = lockswap("run", "-b", "futex", "--stats", "summary", "--set", f"STATS_FILE={stats}",
                     "--set", "STATS_TOP=0", "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        for flag, out in (("--folded", "f.folded"), ("--plot", "p.png")):
            path = os.path.join(self.tmp.name, out)
            p = lockswap("report", stats, flag, path)
            self.assertEqual((p.returncode, p.stdout), (0, f"wrote {path}\n"), p.stderr)

    def test_help_examples_are_one_command_a_line(self):
        for sub in ("run", "ab", "sweep", "list", "report"):
            p = lockswap(sub, "--help")
            self.assertEqual(p.returncode, 0, p.stderr)
            for line in p.stdout.splitlines():
                self.assertLessEqual(line.count("lockswap "), 1, f"{sub} --help: {line}")
        self.assertIn("--json-key throughput -- \\\n      build/bench/mutexbench --mode rwlock",
                      lockswap("ab", "--help").stdout)

    def test_legend_keeps_mangled_names(self):
        from lockswap_cli.plot import legend_label
        self.assertFalse(legend_label("_ZN3foo3barEv").startswith("_"))
        self.assertEqual(legend_label("_ZN3foo3barEv").strip(), "_ZN3foo3barEv")
        self.assertEqual(legend_label("futex"), "futex")

    def test_near_zero_min_share_is_compared_by_difference(self):
        from test_fleet import share_fleet
        fair = {"glibc": [0.0002, 0.0003, 0.0001, 0.0002, 0.0003, 0.0002],
                "fair": [0.49, 0.5, 0.48, 0.5, 0.49, 0.5]}
        files = share_fleet(self.tmp.name, {a: [0.3] * 6 for a in fair}, fairness=fair)
        prefix = os.path.join(self.tmp.name, "r")
        p = lockswap("report", "--by-arm", *files, "--out", prefix)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json") as f:
            rows = next(m["rows"] for m in json.load(f)["measures"] if m["key"] == "min_share")
        fair_row = next(r for r in rows if r["arm"] == "fair")
        self.assertIsNone(fair_row["ratio"])
        self.assertGreater(fair_row["difference"], 0.9)
        self.assertLess(fair_row["ci_high"], 1.01)
        self.assertEqual(fair_row["verdict"], "better")
        self.assertIn("(diff)", p.stdout)


if __name__ == "__main__":
    unittest.main()
