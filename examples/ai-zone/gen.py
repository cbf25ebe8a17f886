#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a Meta-like AI zone: a rail-optimised two-tier Clos, or three.

Hosts have one NIC per rail. Every group of --hosts-per-leaf hosts has one
leaf per rail; the leaves of a rail form a plane with --spines spines, each
leaf having --uplinks links spread round-robin over its plane's spines (so
uplinks > spines gives parallel links). Jobs are placed in fragments: racks
are shared by several jobs and jobs span many racks, as a busy scheduler
leaves them. Deterministic for a given --seed.

Three tiers (--pods N, N > 1): the leaf groups are split into N pods, each
with its own --spines spines per rail plane, and every rail plane gets
--superspines superspines; each spine has --super-uplinks links to them,
round-robin over the superspines it reaches (--super-mesh full: all of
them; plane: spine j of every pod to superspines j, j + spines, ...).
--planes declares each rail's switches as its own plane ("planes",
"plane"), which the planner then checks.

  gen.py --hosts 4096 --rails 8 -o /tmp/zone       # 32,768 GPUs
  gen.py --hosts 16 --rails 1 --hosts-per-leaf 4 --spines 2 --uplinks 2 \
         --pods 2 --superspines 2 --super-uplinks 2 -o three-tier
"""
import argparse
import json
import os
import random


LEAF_HASHES = {
    "crc16": ("crc16-ccitt", "full"), "crc32-lo16": ("crc32", "lo16"),
    "crc32-hi16": ("crc32", "hi16"), "crc32": ("crc32", "full"),
    "crc32c": ("crc32c", "full"), "xor16": ("xor16", "full"),
}


def leaf_hash(family, g, fields):
    """A leaf's hash model; "mixed" takes the families leaf by leaf."""
    if family == "mixed":
        family = list(LEAF_HASHES)[g % len(LEAF_HASHES)]
    alg, sel = LEAF_HASHES[family]
    h = {"algorithm": alg, "seed": 0x1EAF, "fields": fields}
    if sel != "full":
        h["select"] = sel
    return h


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
    ap.add_argument("--pods", type=int, default=1,
                    help="pods (three tiers when > 1)")
    ap.add_argument("--superspines", type=int, default=0,
                    help="superspines per rail plane (three tiers)")
    ap.add_argument("--super-uplinks", type=int, default=0,
                    help="links from each spine to superspines (default: "
                         "one to each it reaches)")
    ap.add_argument("--super-mesh", choices=["full", "plane"], default="full")
    ap.add_argument("--planes", action="store_true",
                    help="declare each rail as its own plane")
    ap.add_argument("--leaf-hash", default="crc16",
                    choices=["crc16", "crc32-lo16", "crc32-hi16", "crc32",
                             "crc32c", "xor16", "mixed"],
                    help="the leaves' hash family (mixed: leaf by leaf in turn)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--out", default=".")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    nleafgroups = (a.hosts + a.hosts_per_leaf - 1) // a.hosts_per_leaf
    three = a.pods > 1 or a.superspines > 0
    if three and a.superspines < 1:
        ap.error("--pods needs --superspines")
    pods = max(1, a.pods)
    fields = ["src_ip", "dst_ip", "protocol", "src_port", "dst_port"]
    switches, links, hosts = [], [], []

    def pod_of(g):
        return g * pods // nleafgroups

    def sw(name, tier, hsh, r, pod=None):
        o = {"name": name, "tier": tier, "hash": hsh}
        if pod is not None:
            o["pod"] = pod
        if a.planes:
            o["plane"] = f"plane{r}"
        switches.append(o)

    for r in range(a.rails):
        spine_port = {}
        for p in range(pods):
            for s in range(a.spines):
                # two tiers keep the names of the two-tier zone
                name = f"spine-r{r}-p{p}-{s}" if three else f"spine-r{r}-{s}"
                # spines alternate the 16 bits they use between pods, so
                # that a flow's two spines (one per pod) hash apart
                sel = "hi16" if three and p % 2 else "lo16"
                sw(name, "spine", {"algorithm": "crc32", "select": sel,
                                   "seed": 0x5151 + s, "fields": fields},
                   r, f"pod-r{r}-{p}" if three else None)
                spine_port[name] = 1
        for g in range(nleafgroups):
            leaf = f"leaf-r{r}-{g}"
            p = pod_of(g)
            sw(leaf, "leaf", leaf_hash(a.leaf_hash, g, fields),
               r, f"pod-r{r}-{p}" if three else None)
            for u in range(a.uplinks):
                s = u % a.spines
                sn = f"spine-r{r}-p{p}-{s}" if three else f"spine-r{r}-{s}"
                links.append({"a": leaf, "a_port": 33 + u,
                              "b": sn, "b_port": spine_port[sn],
                              "up": rnd.random() >= a.down})
                spine_port[sn] += 1
        if not three:
            continue
        super_port = [1] * a.superspines
        for u in range(a.superspines):
            sw(f"super-r{r}-{u}", "superspine",
               {"algorithm": "crc32c", "seed": 0x5AFE + u, "fields": fields}, r)
        for p in range(pods):
            for s in range(a.spines):
                sn = f"spine-r{r}-p{p}-{s}"
                if a.super_mesh == "full":
                    reach = list(range(a.superspines))
                else:
                    reach = list(range(s % a.spines, a.superspines, a.spines))
                n = a.super_uplinks or len(reach)
                for k in range(n):
                    u = reach[k % len(reach)]
                    links.append({"a": sn, "a_port": spine_port[sn],
                                  "b": f"super-r{r}-{u}",
                                  "b_port": super_port[u],
                                  "up": rnd.random() >= a.down})
                    spine_port[sn] += 1
                    super_port[u] += 1
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
        topo = {"switches": switches, "links": links, "hosts": hosts}
        if a.planes:
            topo["planes"] = [{"name": f"plane{r}", "rails": [r]}
                              for r in range(a.rails)]
        json.dump(topo, f, indent=None if a.hosts > 256 else 1)
        f.write("\n")
    with open(os.path.join(a.out, "placement.json"), "w") as f:
        json.dump({"jobs": jobs}, f, indent=None if a.hosts > 256 else 1)
        f.write("\n")


if __name__ == "__main__":
    main()
