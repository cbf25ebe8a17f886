#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fleet simulation of rocepathd (scripts/bench/fleet.sh runs it).

N `rocepathd -n` (dry-run backend) instances, one per host of an N-host
zone (examples/ai-zone/gen.py), plan from one topology and one placement
file, as every host of a cluster does. The placement is rewritten as a
Slurm prolog/epilog would (temporary file renamed over it) through a
stream of job starts and ends. Per change: the time from the write until
every daemon has logged a plan with the same plan digest (convergence),
the CPU each daemon spent on it (utime + stime from /proc), and each
daemon's resident size once it settled.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

PLAN_RE = re.compile(r'^(\S+)Z rocepathd info: plan (fnv1a64:[0-9a-f]{16}) '
                     r'from input (fnv1a64:[0-9a-f]{16})')
TICK = os.sysconf('SC_CLK_TCK')


def utc_ms(stamp):
    """2026-12-04T05:11:24.123 -> ms since the epoch."""
    t = time.strptime(stamp[:19], '%Y-%m-%dT%H:%M:%S')
    return (int(time.mktime(t)) - time.timezone) * 1000 + int(stamp[20:23])


def cpu_ticks(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def plans(log, offset):
    """New plan lines of a daemon's log since offset: [(ms, digest)], offset."""
    out = []
    with open(log) as f:
        f.seek(offset)
        while True:
            line = f.readline()
            if not line or not line.endswith('\n'):
                break
            offset = f.tell()
            m = PLAN_RE.match(line)
            if m:
                out.append((utc_ms(m.group(1)), m.group(2)))
    return out, offset


def write_placement(path, jobs):
    tmp = os.path.join(os.path.dirname(path), '.placement.json.tmp')
    with open(tmp, 'w') as f:
        json.dump({'jobs': jobs}, f)
    os.rename(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--daemon', required=True)
    ap.add_argument('--dir', required=True, help='gen.py output, work dir')
    ap.add_argument('--timeout', type=float, default=300)
    a = ap.parse_args()

    topo = json.load(open(os.path.join(a.dir, 'topology.json')))
    jobs = json.load(open(os.path.join(a.dir, 'placement.json')))['jobs']
    hosts = [h['name'] for h in topo['hosts']]
    place = os.path.join(a.dir, 'placement.json')
    # job starts then ends, as a scheduler's stream
    states = [jobs[:i] for i in range(len(jobs) + 1)] + \
             [jobs[i:] for i in range(1, len(jobs) + 1)]
    write_placement(place, states[0])

    procs, logs, offs = [], [], []
    for i, h in enumerate(hosts):
        d = os.path.join(a.dir, f'd{i}')
        os.makedirs(d, exist_ok=True)
        conf = os.path.join(d, 'rocepathd.conf')
        with open(conf, 'w') as f:
            json.dump({'topology': '../topology.json',
                       'placement': '../placement.json', 'host': h,
                       'state_dir': 'state', 'resync_interval_s': 0,
                       'metrics': {'path': None}}, f)
        log = os.path.join(d, 'log')
        procs.append(subprocess.Popen([a.daemon, '-n', '-c', conf],
                                      stdout=subprocess.DEVNULL,
                                      stderr=open(log, 'w')))
        logs.append(log)
        offs.append(0)

    def wait_all(since_ms):
        """Until every daemon logged a plan after since_ms: (ms, digests)."""
        last = [None] * len(procs)
        deadline = time.time() + a.timeout
        while time.time() < deadline:
            for i, p in enumerate(procs):
                if p.poll() is not None:
                    sys.exit('fleet: daemon %d exited (%d): %s' % (
                        i, p.returncode, open(logs[i]).read()[-500:]))
            for i, log in enumerate(logs):
                got, offs[i] = plans(log, offs[i])
                for ms, dig in got:
                    if ms >= since_ms:
                        last[i] = (ms, dig)
            if all(last):
                return last
            time.sleep(0.05)
        sys.exit('fleet: timed out waiting for %d daemons'
                 % sum(x is None for x in last))

    rows = []
    try:
        t0 = int(time.time() * 1000) - 60000
        wait_all(t0)
        time.sleep(1)
        for n, jobset in enumerate(states[1:], 1):
            c0 = [cpu_ticks(p.pid) for p in procs]
            w = int(time.time() * 1000)
            write_placement(place, jobset)
            last = wait_all(w)
            time.sleep(0.5)
            c1 = [cpu_ticks(p.pid) for p in procs]
            digests = {d for _, d in last}
            conv = max(ms for ms, _ in last) - w
            first = min(ms for ms, _ in last) - w
            cpu = sorted((b - c) / TICK for b, c in zip(c1, c0))
            rss = sorted(rss_kib(p.pid) for p in procs)
            gpus = sum(len(j['hosts']) * len(j['rails']) for j in jobset)
            rows.append((n, len(jobset), gpus, len(digests), first, conv,
                         sum(cpu) / len(cpu) * 1000, cpu[len(cpu) // 2] * 1000,
                         cpu[-1] * 1000, sum(rss) / len(rss) / 1024,
                         rss[-1] / 1024))
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait()

    print(f'{len(procs)} rocepathd -n daemons, {len(hosts)} hosts x '
          f'{len(topo["hosts"][0]["nics"])} rails, {os.cpu_count()} cores shared')
    fmt = '%6s %5s %6s %8s %9s %9s %9s %9s %9s %8s %8s'
    print(fmt % ('change', 'jobs', 'GPUs', 'digests', 'first_ms', 'conv_ms',
                 'cpu_ms', 'cpu_p50', 'cpu_max', 'rss_MiB', 'rss_max'))
    for r in rows:
        print(fmt % (r[0], r[1], r[2], r[3], r[4], r[5], '%.1f' % r[6],
                     '%.1f' % r[7], '%.1f' % r[8], '%.1f' % r[9], '%.1f' % r[10]))
    bad = [r[0] for r in rows if r[3] != 1]
    if bad:
        sys.exit('fleet: daemons disagreed after change(s) %s' % bad)


main()
