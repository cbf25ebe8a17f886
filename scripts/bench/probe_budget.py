#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Probe budget simulation (scripts/bench/probe_budget.sh runs it).

After a spine change every host of a rail-optimised zone re-probes: per
rail, its ring neighbour's pair, ports from 49152 upward until each of the
QPS spines the plan assigns that pair's flows has answered once (the port
walk of daemon/planner/plan_probe_walk.c). Each probe (TTL 2) is answered
by a spine of the rail's plane with an ICMP time-exceeded, the answer the
switch's control plane polices. A CRC-32 of the 5-tuple stands in for the
measured leaf hash. Hosts send at RATE probes per second.

Schedules:
  none    every host starts at once (no probe_budget_pps)
  budget  rocepathd's schedule for probe_budget_pps B, taken from
          `rocepath -j probe schedule topology FILE flows N budget B`
          on the zone's topology file (gen.py), so the simulation runs
          the daemon's own arithmetic (daemon/planner/plan_probe_budget.c):
          slots of slot_ms on the wall clock, host i sending only in its
          slot of each cycle (rate x slot_ms probes per slot, the rest in
          the next cycle) and starting its walk at its first_rail.
Per schedule: hosts per slot, slots, the cycle, the time until every host
has its answers, the peak and mean answers per second on one spine (1 s
bins, from every probe's send time and spine) and the daemon's model
peak; a budget rocepathd refuses is shown with its reason.
"""
import argparse
import json
import subprocess
import zlib


def walk(src, dst, want, spines):
    """Spines answering the ports of one pair's walk, in order."""
    need, out, sport = set(want), bytearray(), 49152
    while need:
        key = src + dst + bytes([17]) + sport.to_bytes(2, 'big') + \
            (4791).to_bytes(2, 'big')
        sp = zlib.crc32(key) % spines
        out.append(sp)
        need.discard(sp)
        sport += 1
    return out


def schedule(a, budget, flows):
    """rocepathd's schedule for the topology, or (None, reason)."""
    r = subprocess.run([a.rocepath, '-j', 'probe', 'schedule', 'topology',
                        a.topology, 'flows', str(flows), 'budget', str(budget),
                        'rate', str(a.rate)], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return json.loads(r.stdout), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--hosts', type=int, default=16384)
    ap.add_argument('--rails', type=int, default=8)
    ap.add_argument('--spines', type=int, default=16)
    ap.add_argument('--qps', type=int, default=4)
    ap.add_argument('--rate', type=int, default=50)
    ap.add_argument('--budgets', default='5000,1000,500,200,100,20')
    ap.add_argument('--rocepath', required=True)
    ap.add_argument('--topology', required=True,
                    help='gen.py zone of --hosts x --rails, --spines per plane')
    a = ap.parse_args()
    H, R, S = a.hosts, a.rails, a.spines

    def ip(host, rail):
        return bytes([10, rail, host >> 8, host & 255])

    # per host, per rail: the spines its walk's probes reach
    rounds = []
    for h in range(H):
        dst = (h + 1) % H
        per_rail = []
        for r in range(R):
            want = [(h + r + q * (S // a.qps)) % S for q in range(a.qps)]
            per_rail.append(walk(ip(h, r), ip(dst, r), want, S))
        rounds.append(per_rail)
    probes = [sum(len(x) for x in pr) for pr in rounds]

    def simulate(slot_of, first_of, slot_s, cycle_s):
        per_slot = max(1, int(a.rate * slot_s))
        bins, end = {}, 0.0
        for h in range(H):
            j = 0
            for i in range(R):
                r = (first_of(h) + i) % R
                for sp in rounds[h][r]:
                    t = (j // per_slot) * cycle_s + slot_of(h) * slot_s + \
                        (j % per_slot) / a.rate
                    b = (int(t), r * S + sp)
                    bins[b] = bins.get(b, 0) + 1
                    j += 1
            end = max(end, t + 1.0 / a.rate)
        mean = sum(probes) / (R * S) / max(end, 1)
        return end, max(bins.values()), mean

    print('%d hosts x %d rails, %d spines per rail plane, %d QPs per connection, '
          '%d probes/s per host; %.0f probes per host round (max %d)'
          % (H, R, S, a.qps, a.rate, sum(probes) / H, max(probes)))
    fmt = '%-12s %6s %5s %7s %7s %13s %13s %11s'
    print(fmt % ('schedule', 'k', 'slots', 'cycle_s', 'all_s',
                 'peak/spine/s', 'mean/spine/s', 'model_peak'))
    end, peak, mean = simulate(lambda h: 0, lambda h: 0, 3600.0, 3600.0)
    print(fmt % ('none', H, 1, '-', '%.1f' % end, peak, '%.0f' % mean, '-'))
    for b in (int(x) for x in a.budgets.split(',')):
        sc, why = schedule(a, b, R * a.qps)
        if not sc:
            print('%-12s refused: %s' % ('budget %d' % b, why))
            continue
        slots = {e['index']: (e['slot'], e['first_rail']) for e in sc['schedule']}
        slot_s, cycle_s = sc['slot_ms'] / 1000, sc['cycle_ms'] / 1000
        end, peak, mean = simulate(lambda h: slots[h][0], lambda h: slots[h][1],
                                   slot_s, cycle_s)
        print(fmt % ('budget %d' % b, sc['hosts_per_slot'], sc['slots'],
                     '%.0f' % cycle_s, '%.1f' % end, peak, '%.0f' % mean,
                     '%.0f' % sc['peak_pps']))


main()
