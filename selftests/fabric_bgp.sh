#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_basic.sh on the fabric routed by FRR's eBGP (one zebra + bgpd per
# switch) instead of kernel ECMP routes: the same reachability, spreading,
# withdraw and restore checks, plus its BGP checks (routes of proto bgp
# with the expected multipath members, sessions up, a failed link's
# session down and its routes gone). make check-fabric runs it; make
# check does not, to keep within its time.
# rpvm-check-kernels: none
# rpvm-fabric: examples/fabric/topology.json l4 frr

exec "$(dirname "$0")/fabric_basic.sh" "$@"
