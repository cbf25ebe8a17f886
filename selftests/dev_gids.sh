#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves a port with a nearly full GID table dumps whole: with 960 more
# IPv6 addresses on the RoCE net device (a GID each, as containers with
# macvlan or ipvlan over it add), `rocepath dev show` lists every GID the
# core's sysfs table holds, the new ones included. dev-get sends a port's
# GIDs in messages of their own, at most 32 table slots each; when they
# all went into the port's one message, that message outgrew the 32 KB
# dump buffer and the dump failed with EMSGSIZE.

source "$(dirname "$0")/lib.sh"

require_module
require_cli
require_cmd jq ip
GIDS=/sys/class/infiniband/$IBDEV/ports/1/gids
[ -d "$GIDS" ] || ksft_skip_all "no GID table for $IBDEV port 1"
NADD=960
PREFIX=2001:db8:6a::

# valid: the GIDs the core's table holds now, sorted, one per line (sysfs
# shows an empty slot as zeros).
valid() {
	cat "$GIDS"/* 2>/dev/null | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' | sort
}

slots=$(ls "$GIDS" | wc -l)
base=$(valid | wc -l)
log "$IBDEV port 1: $slots GID table slots, $base in use"
[ $((base + NADD)) -le "$slots" ] || ksft_skip_all "GID table of $slots slots has no room for $NADD more"

rp_load 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
defer rp_unload 1
defer "ip -6 addr flush dev $NETDEV to ${PREFIX}/64"

for ((i = 1; i <= NADD; i++)); do
	printf 'address add %s%x/128 dev %s nodad\n' "$PREFIX" "$i" "$NETDEV"
done | ip -6 -batch - || ksft_fail "add $NADD IPv6 addresses to $NETDEV"
# The core adds their GIDs from a work queue.
retry 60 1 test "$(valid | wc -l)" -ge $((base + NADD)) ||
	log "the GID table holds $(valid | wc -l) after 60 s, want $((base + NADD))"

# dev show's GIDs, sorted, in sysfs's spelling.
shown() {
	"$RP_CLI" -j dev show dev "$IBDEV" | jq -r '.[] | select(.port == 1) | .gids[].gid' |
		py -c '
import ipaddress, sys
for line in sys.stdin:
    a = ipaddress.ip_address(line.strip())
    b = (a.packed if a.version == 6 else ipaddress.IPv6Address("::ffff:" + str(a)).packed).hex()
    print(":".join(b[i:i + 4] for i in range(0, 32, 4)))' | sort
}

# whole N: dev show lists the table as sysfs does, N of them ours.
whole() {
	local want got
	want=$(valid)
	got=$(shown) || return 1
	echo "sysfs: $(grep -c . <<<"$want") GIDs; dev show: $(grep -c . <<<"$got")"
	[ "$(grep -c "^2001:0db8:006a:" <<<"$got")" = "$1" ] && [ "$want" = "$got" ]
}
ksft_test "dev show lists all $((base + NADD)) GIDs of a port with $NADD addresses added" whole $NADD

# One object for the port still, with what the port's own message carries:
# the GID messages joined it.
one_port() {
	local out
	out=$("$RP_CLI" -j dev show dev "$IBDEV") || return 1
	out=$(jq -c '[.[] | select(.port == 1)]' <<<"$out") || return 1
	jq -c '.[] | {dev, port, netdev, driver, roce_v2, gids: (.gids | length)}' <<<"$out"
	# jq 1.6's -e passes empty input: compare its answer instead
	[ "$(jq --arg nd "$NETDEV" 'length == 1 and .[0].netdev == $nd and
		.[0].driver == "rxe" and .[0].roce_v2' <<<"$out")" = true ]
}
ksft_test "dev show has one object for the port, with its netdev and driver" one_port

ip -6 addr flush dev "$NETDEV" to "${PREFIX}/64"
retry 60 1 test "$(valid | wc -l)" -le "$base" || log "GIDs still $(valid | wc -l) after the flush, want $base"
ksft_test "after the flush, dev show lists the $base GIDs of before" whole 0
ksft_exit
