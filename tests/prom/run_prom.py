#!/usr/bin/python3
"""Test group "prom": the export through a real node_exporter.

A preload program exports with LOCKSWAP_STATS_PROM=DIR/x.prom and
LOCKSWAP_STATS_INTERVAL=1; Debian's prometheus-node-exporter serves DIR
with its textfile collector only, on a free loopback port.  Two scrapes
of /metrics, a second or more apart, while the program runs:
- every `lockswap_` sample of the file, as it was when scraped, arrives
  with the same name, labels and value (compared generically, sample by
  sample, so new series need no change here), and nothing else named
  `lockswap_` does;
- the collector reports no error reading the file;
- the counters move between the two scrapes, and none goes back;
- a series of each kind the program uses (mutex, rwlock reads and writes,
  condvar signals) arrives and grows.
Without the package: one `skip -` line.  Every wait is bounded; the
exporter and the program are killed at the end.

Prints `ok - ...` / `FAIL - ...` lines and ends with
`prom: N passed, M failed`.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "stats"))
from checks import report, summary  # noqa: E402

B = os.environ.get("B", "build")
LIB = os.path.join(REPO, "liblockswap.so")
PROG = os.path.join(REPO, B, "stats", "stats_prom")
EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
RUN_SECONDS = 8      # the program's load; the scrapes need about 4
START_TIMEOUT = 15   # the exporter answering, the file appearing
HTTP_TIMEOUT = 5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def samples(text):
    """{(name, labels): value} of the lockswap_ samples; an `le` bound is
    compared as a number, since the exporter may print it differently."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if not s.name.startswith("lockswap_"):
                continue
            labels = {k: (repr(float(v)) if k == "le" else v) for k, v in s.labels.items()}
            out[(s.name, tuple(sorted(labels.items())))] = s.value
    return out


def scrape(port):
    url = f"http://127.0.0.1:{port}/metrics"
    with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT) as r:
        return r.read().decode()


def textfile_error(text):
    for fam in text_string_to_metric_families(text):
        if fam.name == "node_textfile_scrape_error":
            return fam.samples[0].value if fam.samples else None
    return None


def scrape_matching(port, path):
    """One scrape and the file as the exporter read it: the file read
    before and after the scrape must be the same text (the program
    rewrites it every second), else try again."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        before = open(path).read()
        body = scrape(port)
        after = open(path).read()
        if before == after:
            return body, before
        time.sleep(0.05)
    return None, None


def compare(body, text):
    got, want = samples(body), samples(text)
    missing = [k for k in want if k not in got]
    wrong = [(k, want[k], got[k]) for k in want if k in got and got[k] != want[k]]
    extra = [k for k in got if k not in want]
    return missing, wrong, extra


def counters(body):
    return {k: v for k, v in samples(body).items() if k[0].endswith("_total")}


def wait_for(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return False


def test(tmp):
    path = os.path.join(tmp, "x.prom")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    env.update(LD_PRELOAD=LIB, LOCKSWAP_STATS_PROM=path, LOCKSWAP_STATS_INTERVAL="1",
               LOCKSWAP_STATS_TOP="0")
    prog = subprocess.Popen([PROG, str(RUN_SECONDS)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    port = free_port()
    exporter = subprocess.Popen(
        [EXPORTER, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
         "--collector.textfile", f"--collector.textfile.directory={tmp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def up():
            try:
                scrape(port)
                return True
            except OSError:
                return False
        if not report(wait_for(up, START_TIMEOUT) and wait_for(lambda: os.path.exists(path),
                                                                START_TIMEOUT),
                      f"node_exporter serves 127.0.0.1:{port} and the program writes its file",
                      f"exporter rc {exporter.poll()}"):
            return
        first, file1 = scrape_matching(port, path)
        time.sleep(1.5)  # at least one more write of the file
        second, file2 = scrape_matching(port, path)
        if not report(first is not None and second is not None,
                      "two scrapes, each of one version of the file", "the file kept changing"):
            return
        for n, (body, text) in enumerate([(first, file1), (second, file2)], 1):
            missing, wrong, extra = compare(body, text)
            report(samples(text) and not missing and not wrong and not extra,
                   f"scrape {n}: all {len(samples(text))} lockswap_ samples of the file arrive "
                   "with the same names, labels and values, and no other",
                   f"missing {missing[:3]} wrong {wrong[:3]} extra {extra[:3]}")
            report(textfile_error(body) == 0, f"scrape {n}: node_textfile_scrape_error is 0",
                   textfile_error(body))
        c1, c2 = counters(first), counters(second)
        moved = [k for k in c1 if c2.get(k, -1) > c1[k]]
        back = [k for k in c1 if c2.get(k, -1) < c1[k]]
        acq = [k for k in moved if k[0] == "lockswap_lock_acquisitions_total"]
        report(acq and not back,
               f"counters move between the scrapes ({len(moved)} of {len(c1)} grew, "
               "acquisitions among them) and none goes back", f"moved {moved[:3]} back {back[:3]}")
        # Each kind the program uses, through the collector: the mutex, the
        # rwlock's reads and its writes (a `mode` label each), the condvar's
        # signals; each one's counter grew between the scrapes.
        kinds = {"mutex acquisitions": lambda k: k[0] == "lockswap_lock_acquisitions_total",
                 "rwlock read acquisitions": lambda k: k[0] == "lockswap_rwlock_acquisitions_total"
                 and ("mode", "read") in k[1],
                 "rwlock write acquisitions": lambda k: k[0] == "lockswap_rwlock_acquisitions_total"
                 and ("mode", "write") in k[1],
                 "condvar signals": lambda k: k[0] == "lockswap_cond_signals_total"}
        for kind, match in kinds.items():
            report(any(match(k) for k in moved),
                   f"{kind}: a series arrives and grows between the scrapes",
                   f"series {sorted({k[0] for k in c2})}")
    finally:
        for p in (exporter, prog):
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait(timeout=HTTP_TIMEOUT)


def main():
    if not EXPORTER:
        print("skip - prometheus-node-exporter is not installed (scripts/install-deps.sh "
              "installs it): the export was not read through a real collector")
        return summary("prom")
    with tempfile.TemporaryDirectory(prefix="lockswap-prom.") as tmp:
        test(tmp)
    return summary("prom")


if __name__ == "__main__":
    sys.exit(main())
