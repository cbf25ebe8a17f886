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
  none    every host starts at once (today)
  budget  a per-switch budget B answers/s: hosts probe in slots of k
          hosts, k = floor(0.8 B S / RATE) (S spines per plane, so k hosts
          all on one plane keep the plane's spines under 0.8 B on average;
          0.8 leaves room for the hash's skew), host i in slot i mod
          ceil(H / k) (index in the topology), each slot as long as the
          longest round; a host starts its walk at rail (i div slots) mod
          RAILS, its rank in the slot (not i mod RAILS, which the slot
          number fixes when slots is a multiple of RAILS), so that
          concurrent hosts spread over the planes.
  budget /R  the same with k R times larger, counting on that spread: k
          hosts over R planes (the row shows whether the peak stays
          under B).
Per schedule: hosts per slot, slots, slot length, the time until every
host has its answers, and the peak and mean answers per second on one
spine (1 s bins), computed from every probe's send time and spine.
"""
import argparse
import zlib


def walk(src, dst, want):
    """Spines answering the ports of one pair's walk, in order."""
    need, out, sport = set(want), bytearray(), 49152
    while need:
        key = src + dst + bytes([17]) + sport.to_bytes(2, 'big') + \
            (4791).to_bytes(2, 'big')
        sp = zlib.crc32(key) % SPINES
        out.append(sp)
        need.discard(sp)
        sport += 1
    return out


def main():
    global SPINES
    ap = argparse.ArgumentParser()
    ap.add_argument('--hosts', type=int, default=16384)
    ap.add_argument('--rails', type=int, default=8)
    ap.add_argument('--spines', type=int, default=16)
    ap.add_argument('--qps', type=int, default=4)
    ap.add_argument('--rate', type=int, default=50)
    ap.add_argument('--budgets', default='5000,1000,500')
    a = ap.parse_args()
    SPINES = a.spines
    H, R = a.hosts, a.rails

    def ip(host, rail):
        return bytes([10, rail, host >> 8, host & 255])

    # per host, per rail: the spines its walk's probes reach
    rounds = []
    for h in range(H):
        dst = (h + 1) % H
        per_rail = []
        for r in range(R):
            want = [(h + r + q * (SPINES // a.qps)) % SPINES
                    for q in range(a.qps)]
            per_rail.append(walk(ip(h, r), ip(dst, r), want))
        rounds.append(per_rail)
    probes = [sum(len(x) for x in pr) for pr in rounds]
    longest = max(probes) / a.rate

    def simulate(k, rotate):
        nslots = -(-H // k)
        slot_s = longest
        bins = {}
        for h in range(H):
            t0 = (h % nslots) * slot_s
            j = 0
            # the rank within the slot, not h: h % nslots is the slot
            first = (h // nslots) % R if rotate else 0
            for i in range(R):
                r = (first + i) % R
                for sp in rounds[h][r]:
                    b = (int(t0 + j / a.rate), r * SPINES + sp)
                    bins[b] = bins.get(b, 0) + 1
                    j += 1
        peak = max(bins.values())
        total = nslots * slot_s
        mean = sum(probes) / (R * SPINES) / max(total, 1)
        return nslots, slot_s, total, peak, mean

    print('%d hosts x %d rails, %d spines per rail plane, %d QPs per connection, '
          '%d probes/s per host; %.0f probes per host round (max %d)'
          % (H, R, a.spines, a.qps, a.rate, sum(probes) / H, max(probes)))
    fmt = '%-14s %7s %6s %7s %9s %13s %13s'
    print(fmt % ('schedule', 'k', 'slots', 'slot_s', 'all_s',
                 'peak/spine/s', 'mean/spine/s'))
    n, s, t, p, m = simulate(H, False)
    print(fmt % ('none', H, n, '%.1f' % s, '%.1f' % t, p, '%.0f' % m))
    for b in (int(x) for x in a.budgets.split(',')):
        for planes in (1, R):
            k = min(H, max(1, int(0.8 * b * a.spines * planes / a.rate)))
            n, s, t, p, m = simulate(k, True)
            print(fmt % ('budget %d%s' % (b, ' /%d' % planes if planes > 1 else ''),
                         k, n, '%.1f' % s, '%.1f' % t, p, '%.0f' % m))


main()
