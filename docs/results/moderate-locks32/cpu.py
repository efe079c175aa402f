#!/usr/bin/env python3
"""Per-thread CPU time and context switches of a mutexbench run, read from /proc just before it ends."""
import json, os, subprocess, sys, time
be, spin, locks = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, LD_PRELOAD='/work/main/liblockswap.so', LOCKSWAP_BACKEND=be)
if spin != 'x': env['LOCKSWAP_SPIN'] = spin
p = subprocess.Popen(['/work/main/build/bench/mutexbench', '--threads', '32', '--locks', locks, '--seconds', '1.5',
                      '--cs-work', '50', '--ncs-work', '400', '--json'], env=env, stdout=subprocess.PIPE)
time.sleep(1.55)
rows = []
for tid in os.listdir(f'/proc/{p.pid}/task'):
    try:
        st = open(f'/proc/{p.pid}/task/{tid}/stat').read().rsplit(')', 1)[1].split()
        sv = dict(l.split(':\t') for l in open(f'/proc/{p.pid}/task/{tid}/status').read().splitlines() if ':\t' in l)
        rows.append((int(st[11]) + int(st[12]), int(sv['voluntary_ctxt_switches']), int(sv['nonvoluntary_ctxt_switches'].strip())))
    except Exception:
        pass
j = json.loads(p.stdout.read())
rows.sort()
rows = [r for r in rows if r[0] > 5]  # worker threads only
cpu = [r[0] for r in rows]; m = sum(cpu) / len(cpu)
print(be, spin, 'min_share', j['min_share'], 'cpu ticks min/mean %.2f' % (min(cpu) / m),
      'cpu range', min(cpu), max(cpu), 'vol', sum(r[1] for r in rows), 'invol', sum(r[2] for r in rows))
print('  vol per thread (sorted by cpu):', ' '.join(str(r[1]) for r in rows))
