#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figures of one incast phase of fabric_congestion.sh, and their table.

  fabric_congestion.py row PHASE WALL_SECS QDISC.json RECV_FLOWS.json \\
          SENDER_IP=BW_LOG:FLOWS.json...
      one JSON object: the bottleneck queue's figures (from `fabric.py
      qdisc report`: the red qdisc's counters and backlog); per sender the
      rate the receiver got from it over the phase (its flows' rx_bytes at
      the receiver, `rocepath -j flow show`, over WALL_SECS), ib_write_bw's
      goodput, its flow's CNPs and DCQCN rate; the CE marks and CNPs
      counted at the receiver; Jain's fairness index over the senders'
      rates at the receiver
  fabric_congestion.py table ROW.json...
      the rows as a text table

Goodput is ib_write_bw's "BW average" (MB = 2^20 bytes) in Mbit/s; a
sender whose ib_write_bw did not finish has none and is named in
"failed". The rate at the receiver counts every packet that crossed the
bottleneck, retransmissions included.
"""

import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def goodput_mbps(log):
    """ib_write_bw's BW average of its report line, in Mbit/s; None if absent."""
    try:
        with open(log) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        w = line.split()
        if len(w) >= 4 and w[0].isdigit() and w[1].isdigit():
            try:
                return float(w[3]) * 8 * 1.048576
            except ValueError:
                pass
    return None


def jain(xs):
    """(sum x)^2 / (n sum x^2): 1 = equal shares, 1/n = one flow takes all."""
    sq = sum(x * x for x in xs)
    return round(sum(xs) ** 2 / (len(xs) * sq), 3) if sq else 0.0


def flows_to(flows, local=None, remote=None):
    return [f for f in flows if (local is None or f.get("local") == local)
            and (remote is None or f.get("remote") == remote)]


def row(phase, wall, qdisc_path, recv_path, senders):
    q = load(qdisc_path)
    red = [v for k, v in q["qdiscs"].items() if k.startswith("red ")]
    if not red:
        sys.exit("%s: no red qdisc in the report" % qdisc_path)
    red = red[0]
    recv = load(recv_path)
    out = {"phase": phase, "wall_secs": wall,
           "queue": {k: red.get(k, 0) for k in
                     ("backlog_peak_bytes", "backlog_mean_bytes", "qlen_peak", "qlen_mean",
                      "drops", "early", "pdrop", "marked", "packets", "bytes")},
           "queue_seconds": q["seconds"], "samples": q["samples"],
           "senders": [], "failed": []}
    out["queue"]["mbps"] = round(red.get("bytes", 0) * 8 / 1e6 / q["seconds"], 3) \
        if q["seconds"] else 0
    rx_ce = cnp_tx = 0
    for arg in senders:
        ip, rest = arg.split("=", 1)
        log, flows_path = rest.split(":", 1)
        bw = goodput_mbps(log)
        if bw is None:
            out["failed"].append(ip)
        fl = flows_to(load(flows_path), local=ip)
        # The sender's data flow: the one with the most bytes sent.
        data = max(fl, key=lambda f: f.get("tx_bytes", 0), default={})
        back = flows_to(recv, remote=ip)
        rx_ce += sum(f.get("rx_ce", 0) for f in back)
        cnp_tx += sum(f.get("cnp_tx", 0) for f in back)
        rx = sum(f.get("rx_bytes", 0) for f in back)
        out["senders"].append({"ip": ip,
                               "rx_mbps": round(rx * 8 / 1e6 / wall, 3) if wall else 0.0,
                               "goodput_mbps": None if bw is None else round(bw, 3),
                               "tx_packets": data.get("tx_packets", 0),
                               "cnp_rx": data.get("cnp_rx", 0),
                               "rate_mbps": data.get("rate_mbps"),
                               "rx_ce_at_receiver": sum(f.get("rx_ce", 0) for f in back),
                               "rx_ect_at_receiver": sum(f.get("rx_ect", 0) for f in back)})
    out["receiver"] = {"rx_ce": rx_ce, "cnp_tx": cnp_tx}
    out["jain"] = jain([s["rx_mbps"] for s in out["senders"]])
    out["rx_total_mbps"] = round(sum(s["rx_mbps"] for s in out["senders"]), 3)
    json.dump(out, sys.stdout)
    print()
    return 0


def table(paths):
    rows = [load(p) for p in paths]
    head = ("phase", "backlog peak/mean B", "qlen peak/mean", "drops", "CE marks",
            "CE at rx", "CNPs", "Mb/s per sender at rx", "total", "Jain",
            "ib_write_bw Mb/s", "secs")
    lines = [head]
    for r in rows:
        q = r["queue"]
        lines.append((r["phase"], "%d / %d" % (q["backlog_peak_bytes"], q["backlog_mean_bytes"]),
                      "%d / %.1f" % (q["qlen_peak"], q["qlen_mean"]),
                      "%d" % q["drops"], "%d" % q["marked"], "%d" % r["receiver"]["rx_ce"],
                      "%d" % r["receiver"]["cnp_tx"],
                      " ".join("%.2f" % s["rx_mbps"] for s in r["senders"]),
                      "%.2f" % r["rx_total_mbps"], "%.3f" % r["jain"],
                      " ".join("-" if s["goodput_mbps"] is None else "%.2f" % s["goodput_mbps"]
                               for s in r["senders"]),
                      "%.0f" % r["wall_secs"]))
    widths = [max(len(ln[i]) for ln in lines) for i in range(len(head))]
    for ln in lines:
        print("  ".join(c.ljust(w) for c, w in zip(ln, widths)).rstrip())
    return 0


def main(argv):
    if len(argv) >= 6 and argv[1] == "row":
        return row(argv[2], float(argv[3]), argv[4], argv[5], argv[6:])
    if len(argv) >= 3 and argv[1] == "table":
        return table(argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
