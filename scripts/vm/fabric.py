#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Leaf-spine ECMP fabric for the QEMU harness, built from a topology.json.

On the host (before any guest boots):
  fabric.py check TOPOLOGY             validate; print "idx name ip leaf" per
                                       host guest, or fail with the reason
  fabric.py measured TOPOLOGY          TOPOLOGY with the leaves' hashes
                                       "measured" and every switch's
                                       "addresses" (the fabric's address plan)
  fabric.py key TOPOLOGY               one line naming the fabric `setup`
                                       builds from TOPOLOGY: switches, links
                                       and hosts, not the hash models the
                                       file describes; topologies with one
                                       key can share one boot of the guests
In the fabric guest (root, 6.11+ kernel for fib_multipath_hash_seed):
  fabric.py setup TOPOLOGY [HASH [ROUTING]]
                                       namespaces, veths, addresses, routes;
                                       HASH l4|sport, ROUTING kernel|frr
  fabric.py link A B up|down           set a switch link, re-route (withdraw)
  fabric.py mode HASH                  switch every switch to hash HASH
                                       (l4|sport), for the next test
  fabric.py stop                       stop FRR's daemons (frr routing)
  fabric.py counters                   per-link packet/byte counters (JSON)
  fabric.py table LEAF SRC DST PORTS   the leaf's ECMP member per source port
                                       (PORTS "lo-hi"), from `ip route get`
  fabric.py capture start|stop         tcpdump on every spine namespace
  fabric.py flows                      RoCEv2 flows seen per spine (JSON)
  fabric.py qdisc watch SWITCH DEV     sample DEV's qdisc statistics (tc -s)
                                       every 0.2 s in the background
  fabric.py qdisc report               stop sampling; per qdisc of DEV the
                                       counters' change and the backlog's
                                       peak and mean over the samples (JSON);
                                       the samples are then deleted

Every switch is a network namespace named after it. A fabric link is a
veth pair whose ends are named p<local port> in the two namespaces; the
NIC of host guest i (MAC 52:54:00:12:36:<i>) is moved into its leaf's
namespace as host<i>. Link addresses are /31s from 203.0.113.0/25, switch
loopbacks 203.0.113.128/25 (documentation ranges only).

Routing "kernel" (the default) is kernel ECMP through nexthop objects:
every switch gets, per destination leaf, a group of the up links on
shortest up paths, ordered by local port as the planner orders them. A
link that goes down loses its nexthops in the kernel at once (carrier loss
flushes them); `link` then recomputes every switch's groups from the link
states, as BGP withdrawal would, so no switch keeps a next hop that no
longer reaches the destination. Routing "frr" runs FRR's eBGP in every
switch (fabric_frr.py) and only waits for it: `setup` and `link` return
once every switch has the BGP routes the link states call for, or fail
naming the switch and prefix.
"""

import ipaddress
import json
import os
import re
import subprocess
import sys
import time

import fabric_frr

STATE = "/run/rocepath-fabric"
HOST_NET = ipaddress.ip_network("192.0.2.0/24")
MAX_LINKS = 64          # /31s in 203.0.113.0/25
MAX_SWITCHES = 127      # loopbacks in 203.0.113.128/25
MAX_HOSTS = 19          # run.sh boots at most 20 guests, one is the fabric
HASH_SEED = 0x5eed
# fib_multipath_hash_fields for the "sport" hash: source port only.
FIELD_SRC_PORT = 0x0010


class TopologyError(Exception):
    pass


def load(path):
    """Parse and validate TOPOLOGY for the fabric; raise TopologyError."""
    try:
        with open(path) as f:
            topo = json.load(f)
    except OSError as e:
        raise TopologyError("%s: %s" % (path, e.strerror))
    except ValueError as e:
        raise TopologyError("%s: not JSON: %s" % (path, e))
    if not isinstance(topo, dict):
        raise TopologyError("%s: top level is not an object" % path)

    def where(p):
        return "%s: %s" % (path, p)

    switches = {}
    for i, s in enumerate(topo.get("switches") or []):
        name = s.get("name") if isinstance(s, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", name):
            raise TopologyError(where("switches[%d].name: missing or not a name "
                                      "usable as a network namespace" % i))
        if name in switches:
            raise TopologyError(where("switches[%d]: duplicate switch %s" % (i, name)))
        if s.get("tier") not in ("leaf", "spine"):
            raise TopologyError(where("switches[%d].tier: the fabric builds leaf and "
                                      "spine tiers only, got %r" % (i, s.get("tier"))))
        switches[name] = {"name": name, "tier": s["tier"], "idx": len(switches),
                          "addresses": s.get("addresses")}
    if not switches:
        raise TopologyError(where("switches: none"))
    if len(switches) > MAX_SWITCHES:
        raise TopologyError(where("switches: %d, the fabric holds at most %d"
                                  % (len(switches), MAX_SWITCHES)))

    links = []
    ports = set()
    for i, ln in enumerate(topo.get("links") or []):
        if not isinstance(ln, dict):
            raise TopologyError(where("links[%d]: not an object" % i))
        ends = []
        for side in ("a", "b"):
            sw, port = ln.get(side), ln.get(side + "_port")
            if sw not in switches:
                raise TopologyError(where("links[%d].%s: link to nowhere: no switch %r"
                                          % (i, side, sw)))
            if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
                raise TopologyError(where("links[%d].%s_port: not a port number 0..65535"
                                          % (i, side)))
            if (sw, port) in ports:
                raise TopologyError(where("links[%d]: port %d of %s used twice"
                                          % (i, port, sw)))
            ports.add((sw, port))
            ends.append((sw, port))
        tiers = {switches[ends[0][0]]["tier"], switches[ends[1][0]]["tier"]}
        if tiers != {"leaf", "spine"}:
            raise TopologyError(where("links[%d]: joins %s and %s; fabric links join a "
                                      "leaf and a spine" % (i, ends[0][0], ends[1][0])))
        up = ln.get("up", True)
        if not isinstance(up, bool):
            raise TopologyError(where("links[%d].up: not true or false" % i))
        links.append({"a": ends[0][0], "a_port": ends[0][1], "b": ends[1][0],
                      "b_port": ends[1][1], "up": up, "idx": len(links)})
    if len(links) > MAX_LINKS:
        raise TopologyError(where("links: %d, the fabric holds at most %d"
                                  % (len(links), MAX_LINKS)))

    hosts = []
    seen_ip = set()
    for i, h in enumerate(topo.get("hosts") or []):
        name = h.get("name") if isinstance(h, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,63}", name):
            raise TopologyError(where("hosts[%d].name: missing or not a host name" % i))
        nics = h.get("nics") or []
        if len(nics) != 1 or not isinstance(nics[0], dict):
            raise TopologyError(where("hosts[%d] (%s): the fabric gives each host guest "
                                      "one NIC, got %d" % (i, name, len(nics))))
        nic = nics[0]
        leaf = nic.get("leaf")
        if leaf not in switches or switches[leaf]["tier"] != "leaf":
            raise TopologyError(where("hosts[%d].nics[0].leaf: %r is not a leaf switch"
                                      % (i, leaf)))
        try:
            ip = ipaddress.ip_address(nic.get("ip"))
        except ValueError:
            raise TopologyError(where("hosts[%d].nics[0].ip: not an address: %r"
                                      % (i, nic.get("ip"))))
        if ip.version != 4 or ip not in HOST_NET or ip in (HOST_NET[0], HOST_NET[-1]):
            raise TopologyError(where("hosts[%d].nics[0].ip: %s; host guests take IPv4 "
                                      "host addresses from %s (the test link's range)"
                                      % (i, ip, HOST_NET)))
        if ip in seen_ip:
            raise TopologyError(where("hosts[%d].nics[0].ip: %s used twice" % (i, ip)))
        seen_ip.add(ip)
        hosts.append({"name": name, "ip": str(ip), "leaf": leaf,
                      "netdev": nic.get("netdev", "eth0"), "idx": len(hosts) + 1})
    if not hosts:
        raise TopologyError(where("hosts: none"))
    if len(hosts) > MAX_HOSTS:
        raise TopologyError(where("hosts: %d, the harness boots at most %d host guests"
                                  % (len(hosts), MAX_HOSTS)))
    for h in hosts:
        if h["netdev"] != "eth0":
            raise TopologyError(where("host %s: netdev %r; host guests' test NIC is eth0"
                                      % (h["name"], h["netdev"])))
    topo = {"path": path, "switches": switches, "links": links, "hosts": hosts}
    # Probes name a switch by the source of its ICMP errors: addresses a
    # file lists must be the ones the fabric gives.
    for i, sw in enumerate(switches.values()):
        if sw["addresses"] is not None and sorted(map(str, sw["addresses"])) != \
                sorted(addresses(topo, sw["name"])):
            raise TopologyError(where("switches[%d].addresses: %s; the fabric gives %s %s"
                                      % (i, sw["addresses"], sw["name"],
                                         addresses(topo, sw["name"]))))
    return topo


def addresses(topo, name):
    """NAME's addresses: its ends of its links, then its loopback (sorted)."""
    out = []
    for _, _, _, ln in ends(topo, name):
        a, b = link_addrs(ln)
        out.append(a if ln["a"] == name else b)
    out.append(loopback(topo["switches"][name]))
    return sorted(out, key=ipaddress.ip_address)


def measured(path):
    """The file at PATH with measured leaf hashes and the address plan."""
    topo = load(path)
    with open(path) as f:
        doc = json.load(f)
    for s in doc["switches"]:
        if s["tier"] == "leaf":
            s["hash"] = {"algorithm": "measured"}
        s["addresses"] = addresses(topo, s["name"])
    json.dump(doc, sys.stdout, indent=2)
    print()


def link_addrs(link):
    """(a side, b side) addresses of LINK's /31."""
    base = ipaddress.ip_address("203.0.113.0") + 2 * link["idx"]
    return str(base), str(base + 1)


def link_mac(link, side):
    """Fixed MACs, so neighbours can be permanent (see route_lines)."""
    return "02:00:00:00:%02x:%s" % (link["idx"], "0a" if side == "a" else "0b")


def loopback(sw):
    return str(ipaddress.ip_address("203.0.113.128") + sw["idx"])


def ends(topo, name):
    """(local port, peer switch, peer address, link) of NAME's links."""
    out = []
    for ln in topo["links"]:
        a, b = link_addrs(ln)
        if ln["a"] == name:
            out.append((ln["a_port"], ln["b"], b, ln))
        elif ln["b"] == name:
            out.append((ln["b_port"], ln["a"], a, ln))
    return sorted(out, key=lambda e: e[0])


def distances(topo, dst):
    """Hop counts to switch DST over up links (BFS)."""
    dist = {dst: 0}
    todo = [dst]
    while todo:
        nxt = []
        for s in todo:
            for _, peer, _, ln in ends(topo, s):
                if ln["up"] and peer not in dist:
                    dist[peer] = dist[s] + 1
                    nxt.append(peer)
        todo = nxt
    return dist


def ip_batch(ns, lines, check=True):
    """Run iproute2 commands in namespace NS (one process)."""
    cmd = ["ip", "-force", "-batch", "-"]
    if ns:
        cmd[1:1] = ["-n", ns]
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", text=True,
                       capture_output=True)
    if check and r.returncode:
        raise RuntimeError("ip -n %s: %s" % (ns, r.stderr.strip()))
    return r


def route_lines(topo, name):
    """NAME's nexthops, groups and host routes for the current link states."""
    lines = []
    mine = ends(topo, name)
    for port, _, peer_ip, ln in mine:
        if ln["up"]:
            # Permanent neighbours: a nexthop group skips a member whose
            # neighbour is not yet valid (nexthop_is_good_nh()), so while
            # ARP resolves, packets would leave on another uplink.
            peer_side = "b" if ln["a"] == name else "a"
            lines.append("neigh replace %s lladdr %s dev p%d nud permanent"
                         % (peer_ip, link_mac(ln, peer_side), port))
            lines.append("nexthop replace id %d via %s dev p%d" % (port + 1, peer_ip, port))
    for leaf in sorted(s for s in topo["switches"] if topo["switches"][s]["tier"] == "leaf"):
        dsts = [h for h in topo["hosts"] if h["leaf"] == leaf]
        if leaf == name or not dsts:
            continue
        dist = distances(topo, leaf)
        members = [port + 1 for port, peer, _, ln in mine
                   if ln["up"] and name in dist and dist.get(peer) == dist[name] - 1]
        gid = 100000 + topo["switches"][leaf]["idx"]
        if members:
            lines.append("nexthop replace id %d group %s" % (gid, "/".join(map(str, members))))
            for h in dsts:
                lines.append("route replace %s/32 nhid %d" % (h["ip"], gid))
        else:       # withdrawn: nothing reaches LEAF from here
            for h in dsts:
                lines.append("route del %s/32" % h["ip"])
            lines.append("nexthop del id %d" % gid)
    return lines


def apply_routes(topo):
    for name in topo["switches"]:
        ip_batch(name, route_lines(topo, name), check=False)


def save(topo):
    os.makedirs(STATE, exist_ok=True)
    with open(STATE + "/state.json", "w") as f:
        json.dump(topo, f)


def restore():
    try:
        with open(STATE + "/state.json") as f:
            return json.load(f)
    except OSError:
        sys.exit("fabric: not set up (no %s/state.json)" % STATE)


def sysctls(mode):
    v = {
        "net/ipv4/ip_forward": 1,
        "net/ipv4/conf/all/rp_filter": 0,
        "net/ipv4/conf/default/rp_filter": 0,
        "net/ipv4/icmp_ratelimit": 0,
        "net/ipv4/icmp_msgs_per_sec": 100000,
        "net/ipv4/fib_multipath_hash_seed": HASH_SEED,
        "net/ipv6/conf/default/disable_ipv6": 1,
    }
    if mode == "sport":
        v["net/ipv4/fib_multipath_hash_policy"] = 3
        v["net/ipv4/fib_multipath_hash_fields"] = FIELD_SRC_PORT
    else:
        v["net/ipv4/fib_multipath_hash_policy"] = 1
    return "; ".join("echo %s > /proc/sys/%s" % (val, k) for k, val in v.items())


def key(topo):
    """What setup builds from TOPO, as one line of JSON."""
    sw = sorted((s["name"], s["tier"], s["idx"]) for s in topo["switches"].values())
    ln = [(x["a"], x["a_port"], x["b"], x["b_port"], x["up"]) for x in topo["links"]]
    hs = [(h["idx"], h["name"], h["ip"], h["leaf"]) for h in topo["hosts"]]
    return json.dumps({"switches": sw, "links": ln, "hosts": hs}, separators=(",", ":"))


def set_mode(mode):
    topo = restore()
    for name in topo["switches"]:
        subprocess.run(["ip", "netns", "exec", name, "sh", "-ec", sysctls(mode)],
                       check=True, stdin=subprocess.DEVNULL)
    topo["mode"] = mode
    save(topo)


def neigh_lines(topo, name):
    """Permanent neighbours for NAME's up links (see route_lines)."""
    return [ln for ln in route_lines(topo, name) if ln.startswith("neigh ")]


def setup(topo, mode, routing):
    if not os.path.exists("/proc/sys/net/ipv4/fib_multipath_hash_seed"):
        sys.exit("fabric: this kernel has no fib_multipath_hash_seed (needs 6.11+)")
    topo["mode"] = mode
    topo["routing"] = routing
    for name in topo["switches"]:
        subprocess.run(["ip", "netns", "add", name], check=True)
        subprocess.run(["ip", "netns", "exec", name, "sh", "-ec", sysctls(mode)], check=True)
    root = []
    for ln in topo["links"]:
        root.append("link add p%d netns %s address %s type veth peer name p%d netns %s address %s"
                    % (ln["a_port"], ln["a"], link_mac(ln, "a"),
                       ln["b_port"], ln["b"], link_mac(ln, "b")))
    # Host guest i's NIC into its leaf, by MAC.
    macs = {}
    for d in os.listdir("/sys/class/net"):
        try:
            with open("/sys/class/net/%s/address" % d) as f:
                macs[f.read().strip()] = d
        except OSError:
            pass
    for h in topo["hosts"]:
        mac = "52:54:00:12:36:%02x" % h["idx"]
        if mac not in macs:
            sys.exit("fabric: no NIC with MAC %s for host %s" % (mac, h["name"]))
        root.append("link set %s netns %s" % (macs[mac], h["leaf"]))
        h["fabric_dev"] = macs[mac]
    ip_batch(None, root)
    for name, sw in topo["switches"].items():
        lines = ["link set lo up", "addr add %s/32 dev lo" % loopback(sw)]
        for port, _, _, ln in ends(topo, name):
            a, b = link_addrs(ln)
            mine = a if ln["a"] == name else b
            lines.append("addr add %s/31 dev p%d" % (mine, port))
            if ln["up"]:
                lines.append("link set p%d up" % port)
        for h in topo["hosts"]:
            if h["leaf"] != name:
                continue
            dev = "host%d" % h["idx"]
            lines += ["link set %s name %s" % (h["fabric_dev"], dev),
                      "link set %s up" % dev,
                      "route add %s/32 dev %s" % (h["ip"], dev),
                      "neigh replace %s lladdr 52:54:00:12:34:%02x dev %s nud permanent"
                      % (h["ip"], h["idx"], dev)]
        ip_batch(name, lines)
        for h in topo["hosts"]:
            if h["leaf"] == name:
                subprocess.run(["ip", "netns", "exec", name, "sh", "-c",
                                "echo 1 > /proc/sys/net/ipv4/conf/host%d/proxy_arp"
                                % h["idx"]], check=True, stdin=subprocess.DEVNULL)
    save(topo)
    if routing == "frr":
        # Routes are BGP's; the neighbours stay permanent all the same.
        for name in topo["switches"]:
            ip_batch(name, neigh_lines(topo, name))
        fabric_frr.start(topo, ends, loopback)
        took = fabric_frr.converge(topo, ends, fabric_frr.SETUP_WAIT)
        print("fabric: BGP converged %.1f s after the daemons started" % took)
    else:
        apply_routes(topo)


def set_link(a, b, state):
    topo = restore()
    want = state == "up"
    hit = [ln for ln in topo["links"] if {ln["a"], ln["b"]} == {a, b}]
    if not hit:
        sys.exit("fabric: no link between %s and %s" % (a, b))
    for ln in hit:
        ln["up"] = want
        ip_batch(ln["a"], ["link set p%d %s" % (ln["a_port"], state)])
        ip_batch(ln["b"], ["link set p%d %s" % (ln["b_port"], state)])
    save(topo)
    if topo.get("routing") == "frr":
        # The session over the link drops (or comes back) and BGP
        # withdraws (or re-announces); nothing here touches a route.
        if want:
            for ln in hit:
                for side in (ln["a"], ln["b"]):
                    ip_batch(side, neigh_lines(topo, side))
        took = fabric_frr.converge(topo, ends, fabric_frr.LINK_WAIT)
        print("fabric: link %s-%s %s: BGP converged in %.1f s" % (a, b, state, took),
              file=sys.stderr)
    else:
        apply_routes(topo)


def stop():
    try:
        with open(STATE + "/state.json") as f:
            topo = json.load(f)
    except OSError:
        return
    if topo.get("routing") == "frr":
        fabric_frr.stop(topo)


def link_stats(ns):
    r = subprocess.run(["ip", "-n", ns, "-j", "-s", "link", "show"],
                       capture_output=True, text=True, check=True)
    return {d["ifname"]: d.get("stats64", {}) for d in json.loads(r.stdout)}


def counters():
    """Directed links with the sender's tx and the receiver's rx counters."""
    topo = restore()
    stats = {name: link_stats(name) for name in topo["switches"]}
    out = []
    for ln in topo["links"]:
        for frm, fp, to, tp in ((ln["a"], ln["a_port"], ln["b"], ln["b_port"]),
                                (ln["b"], ln["b_port"], ln["a"], ln["a_port"])):
            tx = stats[frm].get("p%d" % fp, {}).get("tx", {})
            rx = stats[to].get("p%d" % tp, {}).get("rx", {})
            out.append({"from": frm, "to": to, "up": ln["up"],
                        "tx_packets": tx.get("packets", 0), "tx_bytes": tx.get("bytes", 0),
                        "rx_packets": rx.get("packets", 0), "rx_bytes": rx.get("bytes", 0)})
    for h in topo["hosts"]:
        s = stats[h["leaf"]].get("host%d" % h["idx"], {})
        out.append({"from": h["name"], "to": h["leaf"],
                    "tx_packets": s.get("rx", {}).get("packets", 0),
                    "tx_bytes": s.get("rx", {}).get("bytes", 0)})
        out.append({"from": h["leaf"], "to": h["name"],
                    "tx_packets": s.get("tx", {}).get("packets", 0),
                    "tx_bytes": s.get("tx", {}).get("bytes", 0)})
    json.dump(out, sys.stdout)
    print()


def table(leaf, src, dst, ports):
    """{sport: member} for LEAF's group toward DST, members by local port."""
    topo = restore()
    lo, hi = (int(p) for p in ports.split("-"))
    hs = [h for h in topo["hosts"] if h["ip"] == src and h["leaf"] == leaf]
    if not hs:
        sys.exit("fabric: %s is not a host on %s" % (src, leaf))
    iif = "host%d" % hs[0]["idx"]
    lines = ["route get %s from %s iif %s ipproto udp sport %d dport 4791"
             % (dst, src, iif, p) for p in range(lo, hi + 1)]
    r = ip_batch(leaf, lines)
    devs = re.findall(r" dev (\S+)", r.stdout)
    if len(devs) != len(lines):
        sys.exit("fabric: ip route get on %s answered %d of %d" % (leaf, len(devs), len(lines)))
    group = sorted({int(d[1:]) for d in devs if d.startswith("p")})
    out = {}
    for p, d in zip(range(lo, hi + 1), devs):
        if not d.startswith("p"):
            sys.exit("fabric: %s -> %s leaves %s on %s, not an uplink" % (src, dst, leaf, d))
        out[str(p)] = group.index(int(d[1:]))
    # Members are indexes among the uplinks the group really used; say
    # which, so a caller can check it is the whole up group.
    json.dump({"ports": group, "table": out}, sys.stdout)
    print()


def capture(action):
    pidf = STATE + "/capture.pids"
    topo = restore()
    if action == "start":
        pids = []
        for name, sw in topo["switches"].items():
            if sw["tier"] != "spine":
                continue
            out = open("%s/cap-%s.txt" % (STATE, name), "w")
            err = open("%s/cap-%s.err" % (STATE, name), "w")
            # -q: without it tcpdump decodes some source ports as other
            # protocols (49152 as Broadcom's LI shim) and prints no length
            p = subprocess.Popen(["ip", "netns", "exec", name, "tcpdump", "-i", "any",
                                  "-nn", "-q", "-l", "-Q", "in", "udp", "dst", "port",
                                  "4791"],
                                 stdout=out, stderr=err,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            pids.append(p.pid)
        with open(pidf, "w") as f:
            f.write(" ".join(map(str, pids)))
        # Traffic sent before tcpdump has opened its socket is not seen
        # (under TCG a start takes a second or more): wait for each.
        for name, sw in topo["switches"].items():
            if sw["tier"] != "spine":
                continue
            for _ in range(300):
                with open("%s/cap-%s.err" % (STATE, name)) as f:
                    if "listening on" in f.read():
                        break
                time.sleep(0.05)
            else:
                sys.exit("fabric: tcpdump in %s did not start" % name)
    else:
        try:
            with open(pidf) as f:
                pids = [int(p) for p in f.read().split()]
        except OSError:
            pids = []
        for p in pids:
            try:
                os.kill(p, 2)
            except OSError:
                pass
        for p in pids:
            for _ in range(50):
                try:
                    os.kill(p, 0)
                except OSError:
                    break
                subprocess.run(["sleep", "0.1"])
        try:
            os.unlink(pidf)
        except OSError:
            pass


LINE = re.compile(r"^\S+\s+(\S+)\s+In\s+IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > "
                  r"(\d+\.\d+\.\d+\.\d+)\.4791: UDP, length (\d+)")


def flows():
    """RoCEv2 flows seen arriving at each spine: path leaf-spine-leaf."""
    topo = restore()
    leaf_of = {h["ip"]: h["leaf"] for h in topo["hosts"]}
    port_peer = {}
    for name in topo["switches"]:
        for port, peer, _, _ in ends(topo, name):
            port_peer[(name, "p%d" % port)] = peer
    seen = {}
    for name, sw in topo["switches"].items():
        if sw["tier"] != "spine":
            continue
        try:
            f = open("%s/cap-%s.txt" % (STATE, name))
        except OSError:
            continue
        with f:
            for line in f:
                m = LINE.match(line)
                if not m:
                    continue
                dev, src, sport, dst, length = m.groups()
                frm = port_peer.get((name, dev), dev)
                key = (src, dst, int(sport), frm, name)
                e = seen.setdefault(key, [0, 0, 0])
                e[0] += 1
                e[1] += int(length)
                e[2] = max(e[2], int(length))
    out = [{"src_ip": k[0], "dst_ip": k[1], "sport": k[2],
            "path": [k[3], k[4], leaf_of.get(k[1], "?")],
            "packets": v[0], "udp_bytes": v[1], "max_len": v[2]}
           for k, v in sorted(seen.items())]
    json.dump(out, sys.stdout)
    print()


QWATCH_INTERVAL = 0.2
# Counters of `tc -s -j qdisc show` (red adds marked/early/pdrop/other).
QDISC_COUNTERS = ("bytes", "packets", "drops", "overlimits", "requeues",
                  "marked", "early", "pdrop", "other")


def qdisc_sample(ns, dev):
    """One line per sample: time and, per qdisc, its counters and backlog."""
    while True:
        r = subprocess.run(["ip", "netns", "exec", ns, "tc", "-s", "-j", "qdisc",
                            "show", "dev", dev], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        try:
            qs = json.loads(r.stdout)
        except ValueError:
            qs = []
        out = {}
        for q in qs:
            x = dict(q, **q.get("xstats", {}))
            key = "%s %s" % (q.get("kind"), q.get("handle"))
            out[key] = {k: x[k] for k in QDISC_COUNTERS + ("backlog", "qlen") if k in x}
        print(json.dumps({"t": time.monotonic(), "qdiscs": out}), flush=True)
        time.sleep(QWATCH_INTERVAL)


def qdisc_watch(ns, dev):
    topo = restore()
    if ns not in topo["switches"]:
        sys.exit("fabric: no switch %s" % ns)
    qdisc_stop()
    out = open(STATE + "/qwatch.jsonl", "w")
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "qdisc",
                          "sample", ns, dev], stdout=out, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    with open(STATE + "/qwatch.pid", "w") as f:
        f.write(str(p.pid))


def qdisc_stop():
    try:
        with open(STATE + "/qwatch.pid") as f:
            pid = int(f.read())
        os.unlink(STATE + "/qwatch.pid")
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, 15)
    except OSError:
        pass


def backlog_bytes(v):
    """tc -j prints backlog as bytes (an int) or "12Kb"-style text."""
    if isinstance(v, int):
        return v
    m = re.fullmatch(r"(\d+)([KMG]?)b", str(v))
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def qdisc_report():
    qdisc_stop()
    samples = []
    try:
        with open(STATE + "/qwatch.jsonl") as f:
            for line in f:
                try:
                    samples.append(json.loads(line))
                except ValueError:
                    pass        # the last line, cut by the kill
    except OSError:
        sys.exit("fabric: no qdisc watch was started")
    # Read once: a test that shares the guests' boot leaves nothing.
    os.unlink(STATE + "/qwatch.jsonl")
    if len(samples) < 2:
        sys.exit("fabric: %d qdisc sample(s): too few" % len(samples))
    first, last = samples[0], samples[-1]
    out = {"samples": len(samples), "seconds": round(last["t"] - first["t"], 2),
           "qdiscs": {}}
    for key, end in last["qdiscs"].items():
        start = first["qdiscs"].get(key, {})
        series = [s["qdiscs"][key] for s in samples if key in s["qdiscs"]]
        bl = [backlog_bytes(q.get("backlog", 0)) for q in series]
        ql = [q.get("qlen", 0) for q in series]
        r = {k: end[k] - start.get(k, 0) for k in QDISC_COUNTERS if k in end}
        r.update({"backlog_peak_bytes": max(bl), "backlog_mean_bytes": round(sum(bl) / len(bl)),
                  "qlen_peak": max(ql), "qlen_mean": round(sum(ql) / len(ql), 1)})
        out["qdiscs"][key] = r
    json.dump(out, sys.stdout)
    print()


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "check" and len(args) == 1:
            topo = load(args[0])
            for h in topo["hosts"]:
                print(h["idx"], h["name"], h["ip"], h["leaf"])
        elif cmd == "measured" and len(args) == 1:
            measured(args[0])
        elif cmd == "key" and len(args) == 1:
            print(key(load(args[0])))
        elif cmd == "mode" and len(args) == 1 and args[0] in ("l4", "sport"):
            set_mode(args[0])
        elif cmd == "setup" and 1 <= len(args) <= 3 and \
                (args[2:] or ["kernel"])[0] in ("kernel", "frr"):
            setup(load(args[0]), (args[1:] or ["l4"])[0], (args[2:] or ["kernel"])[0])
        elif cmd == "stop" and not args:
            stop()
        elif cmd == "link" and len(args) == 3 and args[2] in ("up", "down"):
            set_link(*args)
        elif cmd == "counters" and not args:
            counters()
        elif cmd == "table" and len(args) == 4:
            table(*args)
        elif cmd == "capture" and len(args) == 1 and args[0] in ("start", "stop"):
            capture(args[0])
        elif cmd == "flows" and not args:
            flows()
        elif cmd == "qdisc" and len(args) == 3 and args[0] == "watch":
            qdisc_watch(args[1], args[2])
        elif cmd == "qdisc" and len(args) == 1 and args[0] == "report":
            qdisc_report()
        elif cmd == "qdisc" and len(args) == 3 and args[0] == "sample":
            qdisc_sample(args[1], args[2])
        else:
            sys.exit(__doc__)
    except TopologyError as e:
        sys.exit("fabric: error: %s" % e)
    except (RuntimeError, subprocess.CalledProcessError, fabric_frr.FrrError) as e:
        sys.exit("fabric: error: %s" % e)


if __name__ == "__main__":
    main(sys.argv)
