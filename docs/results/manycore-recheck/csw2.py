#!/usr/bin/env python3
"""csw2.py REPS SECONDS BACKEND:THREADS[:LIB] ...: throughput and context switches per run."""
import json, os, subprocess, sys
reps, secs = int(sys.argv[1]), sys.argv[2]
for rep in range(reps):
    for cfg in sys.argv[3:]:
        parts = cfg.split(':')
        lib = os.path.abspath(parts[3] if len(parts) > 3 and parts[3] else 'liblockswap.so')
        be = parts[0] if parts[1].isdigit() else parts[0] + ':' + parts[1]
        th = parts[1] if parts[1].isdigit() else parts[2]
        env = dict(os.environ, LD_PRELOAD=lib, LOCKSWAP_BACKEND=be)
        p = subprocess.Popen(['build/bench/mutexbench', '--threads', th, '--seconds', secs, '--json'],
                             env=env, stdout=subprocess.PIPE)
        out = p.stdout.read()
        _, st, ru = os.wait4(p.pid, 0)
        j = json.loads(out)
        s = j['run_seconds']
        print('%d %-28s %3s %10.0f vcsw/s %8.0f ivcsw/s %7.0f min %.3f' % (
            rep, be + (' ' + os.path.basename(os.path.dirname(lib)) if len(parts) > 3 else ''), th,
            j['throughput'], ru.ru_nvcsw / s, ru.ru_nivcsw / s, j['min_share']), flush=True)
