#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a Meta-like AI zone: a rail-optimised two-tier Clos.

Hosts have one NIC per rail. Every group of --hosts-per-leaf hosts has one
leaf per rail; the leaves of a rail form a plane with --spines spines, each
leaf having --uplinks links spread round-robin over its plane's spines (so
uplinks > spines gives parallel links). Jobs are placed in fragments: racks
are shared by several jobs and jobs span many racks, as a busy scheduler
leaves them. Deterministic for a given --seed.

  gen.py --hosts 4096 --rails 8 -o /tmp/zone       # 32,768 GPUs
"""
import argparse
import json
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--rails", type=int, default=8)
    ap.add_argument("--hosts-per-leaf", type=int, default=16)
    ap.add_argument("--spines", type=int, default=16, help="spines per rail plane")
    ap.add_argument("--uplinks", type=int, default=16, help="uplinks per leaf")
    ap.add_argument("--jobs", type=str, default="0.5,0.25,0.125,0.125",
                    help="job sizes as fractions of the hosts")
    ap.add_argument("--qps", type=int, default=4)
    ap.add_argument("--pattern", default="ring")
    ap.add_argument("--order", choices=["host", "random"], default="host",
                    help="ring order inside a job: by host index (scheduler "
                         "aware) or random")
    ap.add_argument("--fill", type=float, default=1.0,
                    help="fraction of hosts given to jobs")
    ap.add_argument("--down", type=float, default=0.0,
                    help="fraction of leaf-spine links marked down")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--out", default=".")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    nleafgroups = (a.hosts + a.hosts_per_leaf - 1) // a.hosts_per_leaf
    fields = ["src_ip", "dst_ip", "protocol", "src_port", "dst_port"]
    switches, links, hosts = [], [], []
    for r in range(a.rails):
        for s in range(a.spines):
            switches.append({"name": f"spine-r{r}-{s}", "tier": "spine",
                             "hash": {"algorithm": "crc32", "select": "lo16",
                                      "seed": 0x5151 + s, "fields": fields}})
        spine_port = [1] * a.spines
        for g in range(nleafgroups):
            leaf = f"leaf-r{r}-{g}"
            switches.append({"name": leaf, "tier": "leaf",
                             "hash": {"algorithm": "crc16-ccitt",
                                      "seed": 0x1EAF, "fields": fields}})
            for u in range(a.uplinks):
                s = u % a.spines
                links.append({"a": leaf, "a_port": 33 + u,
                              "b": f"spine-r{r}-{s}", "b_port": spine_port[s],
                              "up": rnd.random() >= a.down})
                spine_port[s] += 1
    for h in range(a.hosts):
        g = h // a.hosts_per_leaf
        nics = []
        for r in range(a.rails):
            # 10.<rail>.<host hi>.<host lo>
            nics.append({"rail": r, "netdev": f"eth{r}",
                         "ip": f"10.{r}.{h >> 8}.{h & 255}",
                         "leaf": f"leaf-r{r}-{g}"})
        hosts.append({"name": f"host{h:05d}", "nics": nics})

    # fragmented placement: jobs take hosts from a shuffled rack order, so
    # racks end up shared between jobs and partly filled
    free = list(range(a.hosts))
    rnd.shuffle(free)
    free = free[:int(a.hosts * a.fill)]
    jobs = []
    sizes = [float(x) for x in a.jobs.split(",")]
    start = 0
    for j, frac in enumerate(sizes):
        n = max(2, int(round(frac * len(free))))
        members = free[start:start + n]
        start += n
        if len(members) < 2:
            break
        if a.order == "host":
            members.sort()
        jobs.append({"id": f"job{j}", "pattern": a.pattern,
                     "qps_per_connection": a.qps,
                     "rails": list(range(a.rails)),
                     "hosts": [f"host{h:05d}" for h in members]})
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "topology.json"), "w") as f:
        json.dump({"switches": switches, "links": links, "hosts": hosts}, f,
                  indent=None if a.hosts > 256 else 1)
        f.write("\n")
    with open(os.path.join(a.out, "placement.json"), "w") as f:
        json.dump({"jobs": jobs}, f, indent=None if a.hosts > 256 else 1)
        f.write("\n")


if __name__ == "__main__":
    main()
