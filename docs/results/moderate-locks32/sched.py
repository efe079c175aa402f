#!/usr/bin/env python3
"""Per-thread CPU time, run-queue wait and sleep (the rest) from /proc/PID/task/*/schedstat, over [0.5 s, 1.5 s] of a 1.6 s run."""
import json, os, subprocess, sys, time
be, spin, locks = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, LD_PRELOAD='/work/main/liblockswap.so', LOCKSWAP_BACKEND=be)
if spin != 'x': env['LOCKSWAP_SPIN'] = spin
p = subprocess.Popen(['/work/main/build/bench/mutexbench', '--threads', '32', '--locks', locks, '--seconds', '1.4',
                      '--cs-work', '50', '--ncs-work', '400', '--json'], env=env, stdout=subprocess.PIPE)
def snap():
    d = {}
    for tid in os.listdir(f'/proc/{p.pid}/task'):
        try:
            run, wait, slices = map(int, open(f'/proc/{p.pid}/task/{tid}/schedstat').read().split())
            cpu = int(open(f'/proc/{p.pid}/task/{tid}/stat').read().rsplit(')', 1)[1].split()[36])  # processor
            d[tid] = (run, wait, slices, cpu)
        except Exception:
            pass
    return d, time.monotonic()
time.sleep(0.5); a, t0 = snap(); time.sleep(1.0); b, t1 = snap()
p.stdout.read(); p.wait()
rows = []
for tid in a:
    if tid in b:
        run = b[tid][0] - a[tid][0]; wait = b[tid][1] - a[tid][1]; sl = b[tid][2] - a[tid][2]
        if run > 1e6:
            rows.append((run / 1e6, wait / 1e6, (t1 - t0) * 1e3 - (run + wait) / 1e6, sl))
rows.sort()
print(be, spin, 'locks', locks, 'threads', len(rows))
for r in rows[:4] + [None] + rows[-4:]:
    print('  ' + ('...' if r is None else 'cpu %5.1f ms  runq %6.1f ms  asleep %6.1f ms  slices %d' % r))
