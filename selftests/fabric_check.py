#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare what the QEMU fabric forwarded with what the planner says.

  fabric_check.py measured TOPO OUT LEAF=TABLE.json...
      OUT = TOPO with each LEAF's hash replaced by the table measured on
      the fabric ({"algorithm": "table", "table": {sport: member}})
  fabric_check.py plan PLAN.json FLOWS.json
      every observed data flow is a planned flow on the planned path, every
      planned flow is observed, busiest link = summary.max_link_flows
  fabric_check.py ecmp MEASURED_TOPO FLOWS.json QPS.json
      unpinned: each observed flow's port is the one Linux derives from its
      QP numbers, and its path is the one the measured table predicts;
      prints observed vs predicted per-link loads
  fabric_check.py probes TOPO PROBES.json SRC DST TABLE.json
      every probe answer of SRC -> DST names the spine behind the uplink
      that `fabric.py table` (ip route get in the leaf) gives its port
  fabric_check.py bytes BEFORE.json AFTER.json
      bytes and packets per spine link, both ways, between two counter dumps

FLOWS.json comes from `fabric.py flows`: flows seen arriving at spines.
Only data flows count (largest packet >= DATA_MIN bytes): a write's
responder sends small ACKs back from its own, unpinned, port.
"""

import json
import sys

DATA_MIN = 512


def load(path):
    with open(path) as f:
        return json.load(f)


def data_flows(flows):
    return [f for f in flows if f.get("max_len", 0) >= DATA_MIN]


def link_loads(paths):
    """{(from, to): flows} over leaf-spine hops of PATHS."""
    loads = {}
    for p in paths:
        for a, b in zip(p, p[1:]):
            loads[(a, b)] = loads.get((a, b), 0) + 1
    return loads


def fmt_loads(loads):
    return ", ".join("%s>%s %d" % (a, b, n) for (a, b), n in sorted(loads.items()))


def measured(topo_path, out_path, tables):
    topo = load(topo_path)
    by_leaf = {}
    for arg in tables:
        leaf, path = arg.split("=", 1)
        by_leaf[leaf] = load(path)["table"]
    for sw in topo["switches"]:
        if sw["name"] in by_leaf:
            sw["hash"] = {"algorithm": "table", "table": by_leaf.pop(sw["name"])}
    if by_leaf:
        sys.exit("no leaf named %s in %s" % (", ".join(by_leaf), topo_path))
    with open(out_path, "w") as f:
        json.dump(topo, f)
    return 0


def plan(plan_path, flows_path):
    pl = load(plan_path)
    seen = data_flows(load(flows_path))
    planned = {(f["src_ip"], f["dst_ip"], f["sport"]): f["path"] for f in pl["flows"]
               if len(f["path"]) > 1}
    bad = 0
    for f in seen:
        key = (f["src_ip"], f["dst_ip"], f["sport"])
        if key not in planned:
            print("# not planned: %s -> %s sport %d via %s" % (key[0], key[1], key[2],
                                                               "-".join(f["path"])))
            bad += 1
        elif planned[key] != f["path"]:
            print("# wrong path: %s -> %s sport %d planned %s, seen %s"
                  % (key[0], key[1], key[2], "-".join(planned[key]), "-".join(f["path"])))
            bad += 1
    got = {(f["src_ip"], f["dst_ip"], f["sport"]) for f in seen}
    for key in sorted(set(planned) - got):
        print("# planned flow not seen: %s -> %s sport %d" % key)
        bad += 1
    loads = link_loads(f["path"] for f in seen)
    busiest = max(loads.values()) if loads else 0
    want = pl["summary"]["max_link_flows"]
    print("# observed with the plan: %d data flows, busiest spine link %d flows "
          "(plan max_link_flows %d, lower_bound %d)" % (len(seen), busiest, want,
                                                        pl["summary"]["lower_bound"]))
    print("# observed link loads: %s" % fmt_loads(loads))
    if busiest != want:
        print("# busiest link carries %d flows, the plan says %d" % (busiest, want))
        bad += 1
    return 1 if bad else 0


def probes(topo_path, probes_path, src, dst, table_path):
    topo, pr, tab = load(topo_path), load(probes_path), load(table_path)
    leaf = [h["nics"][0]["leaf"] for h in topo["hosts"] if h["nics"][0]["ip"] == src][0]
    spine_of = {}
    for ln in topo["links"]:
        if ln["a"] == leaf:
            spine_of[ln["a_port"]] = ln["b"]
        elif ln["b"] == leaf:
            spine_of[ln["b_port"]] = ln["a"]
    bad = n = 0
    for p in pr["probes"]:
        if (p["src_ip"], p["dst_ip"]) != (src, dst):
            continue
        n += 1
        member = tab["table"].get(str(p["sport"]))
        kernel = spine_of[tab["ports"][member]] if member is not None else None
        if kernel != p["switch"]:
            print("# %s -> %s sport %d: probe says %s, ip route get on %s says %s"
                  % (src, dst, p["sport"], p["switch"], leaf, kernel))
            bad += 1
    print("# %s -> %s: %d probe answers, %d disagree with ip route get" % (src, dst, n, bad))
    return 1 if bad or not n else 0


def rdma_sport(lqpn, rqpn):
    """rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn))."""
    v = lqpn * rqpn
    v ^= v >> 20
    v ^= v >> 40
    fl = v & 0xFFFFF
    return ((fl & 0x3FFF) ^ (fl >> 14)) | 0xC000


def ecmp(topo_path, flows_path, qps_path):
    topo = load(topo_path)
    seen = data_flows(load(flows_path))
    qps = load(qps_path)
    tables = {s["name"]: s["hash"]["table"] for s in topo["switches"]
              if s.get("hash", {}).get("algorithm") == "table"}
    leaf_of = {h["nics"][0]["ip"]: h["nics"][0]["leaf"] for h in topo["hosts"]}
    uplinks = {}
    for ln in topo["links"]:
        if ln.get("up", True):
            for a, ap, b in ((ln["a"], ln["a_port"], ln["b"]), (ln["b"], ln["b_port"], ln["a"])):
                uplinks.setdefault(a, []).append((ap, b))
    bad = 0
    # QPN -> port: the QPs each sender reported (rocepath qp show).
    ports = {(q["local"], q["remote"], q["sport"]): q for q in qps}
    predicted = []
    for f in seen:
        q = ports.get((f["src_ip"], f["dst_ip"], f["sport"]))
        if q is None:
            print("# flow %s -> %s sport %d: no such QP on the sender"
                  % (f["src_ip"], f["dst_ip"], f["sport"]))
            bad += 1
        elif rdma_sport(q["lqpn"], q["dqpn"]) != f["sport"]:
            print("# flow %s -> %s: sport %d, QPNs %d/%d give %d"
                  % (f["src_ip"], f["dst_ip"], f["sport"], q["lqpn"], q["dqpn"],
                     rdma_sport(q["lqpn"], q["dqpn"])))
            bad += 1
        leaf = leaf_of[f["src_ip"]]
        member = tables[leaf].get(str(f["sport"]))
        ups = [b for _, b in sorted(uplinks[leaf])]
        if member is None:
            print("# port %d not in %s's measured table" % (f["sport"], leaf))
            bad += 1
            continue
        path = [leaf, ups[member % len(ups)], leaf_of[f["dst_ip"]]]
        predicted.append(path)
        if path != f["path"]:
            print("# flow %s -> %s sport %d: table predicts %s, seen %s"
                  % (f["src_ip"], f["dst_ip"], f["sport"], "-".join(path), "-".join(f["path"])))
            bad += 1
    obs = link_loads(f["path"] for f in seen)
    pred = link_loads(predicted)
    print("# observed without pinning: %d data flows, busiest spine link %d flows; "
          "predicted from the measured hash: %d"
          % (len(seen), max(obs.values() or [0]), max(pred.values() or [0])))
    print("# observed link loads: %s" % fmt_loads(obs))
    if obs != pred:
        print("# predicted link loads: %s" % fmt_loads(pred))
        bad += 1
    return 1 if bad else 0


def bytes_table(before_path, after_path):
    before = {(c["from"], c["to"]): c for c in load(before_path)}
    print("# %-8s %-8s %10s %12s" % ("from", "to", "packets", "bytes"))
    for c in load(after_path):
        if not (c["from"].startswith("spine") or c["to"].startswith("spine")):
            continue
        b = before.get((c["from"], c["to"]), {"tx_packets": 0, "tx_bytes": 0})
        print("# %-8s %-8s %10d %12d" % (c["from"], c["to"], c["tx_packets"] - b["tx_packets"],
                                         c["tx_bytes"] - b["tx_bytes"]))
    return 0


def main(argv):
    cmds = {"measured": (measured, 3), "plan": (plan, 2), "ecmp": (ecmp, 3),
            "bytes": (bytes_table, 2), "probes": (probes, 5)}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.exit(__doc__)
    fn, n = cmds[argv[1]]
    args = argv[2:]
    if argv[1] == "measured":
        if len(args) < n:
            sys.exit(__doc__)
        return fn(args[0], args[1], args[2:])
    if len(args) != n:
        sys.exit(__doc__)
    return fn(*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
