#!/usr/bin/env python3
"""Throughput and context switches (wait4 rusage) of capacitor:tts vs tts."""
import json, os, subprocess, sys
lib = os.path.abspath('liblockswap.so')
cfgs = [('tts', 16), ('capacitor:tts', 16), ('capacitor:tts', 15), ('capacitor:tts', 12),
        ('tts', 15), ('capacitor:futex', 16)]
for rep in range(int(sys.argv[1])):
    for be, th in cfgs:
        env = dict(os.environ, LD_PRELOAD=lib, LOCKSWAP_BACKEND=be)
        p = subprocess.Popen(['build/bench/mutexbench', '--threads', str(th), '--seconds', '0.5',
                              '--json'], env=env, stdout=subprocess.PIPE)
        out = p.stdout.read()
        _, st, ru = os.wait4(p.pid, 0)
        j = json.loads(out)
        secs = j['run_seconds']
        print('%d %-16s %2d %10.0f vcsw/s %9.0f ivcsw/s %8.0f min %.3f' % (
            rep, be, th, j['throughput'], ru.ru_nvcsw / secs, ru.ru_nivcsw / secs, j['min_share']),
            flush=True)
