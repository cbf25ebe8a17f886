# SPDX-License-Identifier: GPL-2.0
"""FRR eBGP routing for the QEMU fabric (fabric.py setup TOPOLOGY HASH frr).

One zebra + bgpd per switch namespace, each instance in its own FRR
pathspace (-N SWITCH: /etc/frr/SWITCH, /var/run/frr/SWITCH), so
`vtysh -N SWITCH` talks to that switch. Per RFC 7938: eBGP on every link,
one private ASN per leaf, one ASN shared by all spines (a spine never
accepts a path through another spine: AS-path loop, so no path hunting
through a leaf after a failure), multipath over equal AS paths, leaves
originate their hosts' /32s. Timers are short so a test's fabric
converges in seconds even under TCG; a link that goes down drops its
session at once (fast-external-failover, bgpd's default), and bgpd
withdraws what it learnt over it.
"""

import ipaddress
import json
import os
import signal
import subprocess
import time

FRR = "/usr/lib/frr"
DAEMONS = ("zebra", "bgpd")
SPINE_ASN = 65000
LEAF_ASN0 = 65001               # leaves: 65001, 65002, ... in file order
CONF_DIR = "/run/rocepath-fabric/frr"
SETUP_WAIT = 90                 # s: under the 120 s+ guest 1 waits for the agent
LINK_WAIT = 60                  # s: one session drops or comes back
POLL = 0.2


class FrrError(Exception):
    pass


def asn(topo, name):
    sw = topo["switches"][name]
    if sw["tier"] == "spine":
        return SPINE_ASN
    leaves = [s for s in topo["switches"] if topo["switches"][s]["tier"] == "leaf"]
    return LEAF_ASN0 + leaves.index(name)


def bgpd_conf(topo, name, ends, loopback):
    sw = topo["switches"][name]
    lines = ["hostname %s" % name,
             "log file %s/%s/bgpd.log informational" % (CONF_DIR, name),
             "!",
             "router bgp %d" % asn(topo, name),
             " bgp router-id %s" % loopback(sw),
             # No policies here: every route of the fabric is wanted.
             " no bgp ebgp-requires-policy",
             # The hosts' /32s are kernel routes that zebra may report
             # after bgpd reads this: originate them whatever the order.
             " no bgp network import-check",
             # Spines share an ASN, so a leaf's paths through the spines
             # have equal AS paths; relax keeps multipath if they differ.
             " bgp bestpath as-path multipath-relax",
             # A link that goes down drops its session at once
             # (fast-external-failover), so the hold time only has to
             # outlast TCG starving bgpd: with 3 s, sessions flapped
             # under load.
             " timers bgp 3 30"]
    for _, peer, peer_ip, _ in ends(topo, name):
        lines += [" neighbor %s remote-as %d" % (peer_ip, asn(topo, peer)),
                  " neighbor %s timers connect 1" % peer_ip,
                  " neighbor %s advertisement-interval 0" % peer_ip]
    lines += [" address-family ipv4 unicast"]
    for h in topo["hosts"]:
        if h["leaf"] == name:
            lines.append("  network %s/32" % h["ip"])
    lines += ["  maximum-paths 64", " exit-address-family", "!", ""]
    return "\n".join(lines)


def zebra_conf(name):
    # Plain multipath routes, not kernel nexthop objects: with objects, a
    # leaf whose link went down and up again was seen keeping the route
    # without that link's next hop although BGP had the path again.
    return ("hostname %s\nlog file %s/%s/zebra.log informational\n"
            "no zebra nexthop kernel enable\n!\n" % (name, CONF_DIR, name))


def rundir(name):
    return "/var/run/frr/%s" % name


def start(topo, ends, loopback):
    """Write every switch's config and start its zebra and bgpd."""
    if not os.path.exists(FRR + "/bgpd"):
        raise FrrError("no %s/bgpd: install Debian's frr on the build machine "
                       "(scripts/deps.sh); the fabric guest runs it from there" % FRR)
    for name in topo["switches"]:
        d = "%s/%s" % (CONF_DIR, name)
        os.makedirs(d, exist_ok=True)
        os.makedirs(rundir(name), exist_ok=True)
        # vtysh -N NAME reads /etc/frr/NAME/vtysh.conf (the guest's own
        # tmpfs overlay): an empty one, so it does not complain.
        os.makedirs("/etc/frr/" + name, exist_ok=True)
        open("/etc/frr/%s/vtysh.conf" % name, "a").close()
        with open(d + "/zebra.conf", "w") as f:
            f.write(zebra_conf(name))
        with open(d + "/bgpd.conf", "w") as f:
            f.write(bgpd_conf(topo, name, ends, loopback))
        # The daemons drop to user frr: their logs, sockets and pid files.
        for p in (d, rundir(name)):
            subprocess.run(["chown", "frr:frr", p], check=True)
        for daemon in DAEMONS:
            # -d returns once the daemon has read its config; -P 0: no
            # vty TCP port, only the pathspace's unix socket.
            cmd = ["ip", "netns", "exec", name, "%s/%s" % (FRR, daemon), "-d",
                   "-N", name, "-f", "%s/%s.conf" % (d, daemon), "-P", "0"]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   stdin=subprocess.DEVNULL, timeout=60)
            except subprocess.TimeoutExpired:
                raise FrrError("%s in %s did not start within 60 s" % (daemon, name))
            if r.returncode:
                raise FrrError("%s in %s failed to start (exit %d): %s%s" % (
                    daemon, name, r.returncode, r.stderr.strip(), log_tail(name, daemon)))


def log_tail(name, daemon, n=5):
    try:
        with open("%s/%s/%s.log" % (CONF_DIR, name, daemon)) as f:
            lines = f.read().splitlines()[-n:]
    except OSError:
        return ""
    return "".join("\n  %s.log: %s" % (daemon, ln) for ln in lines)


def stop(topo):
    """SIGTERM every daemon of every switch; SIGKILL what is left after 5 s."""
    pids = []
    for name in topo["switches"]:
        for daemon in reversed(DAEMONS):
            try:
                with open("%s/%s.pid" % (rundir(name), daemon)) as f:
                    pid = int(f.read().split()[0])
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
            except (OSError, ValueError, IndexError):
                pass
    end = time.monotonic() + 5
    for pid in pids:
        while time.monotonic() < end:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def expected(topo, ends, name):
    """{host /32: sorted local ports} BGP should give NAME for the link states.

    Two tiers, valley-free: a spine reaches a leaf's hosts over its up links
    to that leaf; a leaf reaches another leaf's hosts over its up links to
    spines that have an up link to it. Hosts with no path have no route."""
    tier = topo["switches"][name]["tier"]
    up = {}                     # switch -> set of peers over up links
    for ln in topo["links"]:
        if ln["up"]:
            up.setdefault(ln["a"], set()).add(ln["b"])
            up.setdefault(ln["b"], set()).add(ln["a"])
    out = {}
    for h in topo["hosts"]:
        if h["leaf"] == name:
            continue
        ports = []
        for port, peer, _, ln in ends(topo, name):
            if not ln["up"]:
                continue
            if tier == "spine" and peer == h["leaf"]:
                ports.append(port)
            elif tier == "leaf" and h["leaf"] in up.get(peer, ()):
                ports.append(port)
        if ports:
            out["%s/32" % h["ip"]] = sorted(ports)
    return out


def bgp_routes(name):
    """{prefix: sorted local ports} of NAME's kernel routes of proto bgp."""
    r = subprocess.run(["ip", "-n", name, "-j", "route", "show", "proto", "bgp"],
                       capture_output=True, text=True)
    if r.returncode:
        raise FrrError("ip -n %s route show: %s" % (name, r.stderr.strip()))
    out = {}
    for rt in json.loads(r.stdout or "[]"):
        dst = rt.get("dst", "")
        if "/" not in dst:
            dst = str(ipaddress.ip_network(dst if dst != "default" else "0.0.0.0/0"))
        devs = [rt["dev"]] if rt.get("dev") else [n.get("dev") for n in rt.get("nexthops", [])]
        out[dst] = sorted(int(d[1:]) for d in devs if d and d.startswith("p"))
    return out


def mismatch(topo, ends, name):
    """None if NAME's BGP routes are the expected ones, else (prefix, what
    differs)."""
    want = expected(topo, ends, name)
    have = bgp_routes(name)
    for pfx, ports in sorted(want.items()):
        if pfx not in have:
            return pfx, "%s has no BGP route to %s (expected via %s)" % (
                name, pfx, " ".join("p%d" % p for p in ports))
        if have[pfx] != ports:
            return pfx, "%s routes %s via %s, expected %s" % (
                name, pfx, " ".join("p%d" % p for p in have[pfx]) or "nothing",
                " ".join("p%d" % p for p in ports))
    for pfx in sorted(set(have) - set(want)):
        return pfx, "%s still has a BGP route to %s via %s (nothing should reach it)" % (
            name, pfx, " ".join("p%d" % p for p in have[pfx]))
    return None


def converge(topo, ends, limit):
    """Wait until every switch has the expected routes; seconds it took."""
    t0 = time.monotonic()
    while True:
        why = None
        for name in topo["switches"]:
            why = mismatch(topo, ends, name)
            if why:
                break
        if not why:
            return time.monotonic() - t0
        if time.monotonic() - t0 > limit:
            raise FrrError("BGP did not converge within %d s: %s%s" % (
                limit, why[1], summary(name, why[0])))
        time.sleep(POLL)


def summary(name, prefix):
    """What NAME's bgpd and zebra say about its sessions and PREFIX."""
    out = ""
    for c in ("show ip bgp summary", "show ip bgp %s" % prefix, "show ip route %s" % prefix):
        try:
            r = subprocess.run(["vtysh", "-N", name, "-c", c], capture_output=True,
                               text=True, stdin=subprocess.DEVNULL, timeout=30)
            text = r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            text = "(no answer within 30 s)"
        out += "\n  vtysh -N %s -c '%s':\n%s" % (
            name, c, "\n".join("    " + ln for ln in text.splitlines()))
    return out
