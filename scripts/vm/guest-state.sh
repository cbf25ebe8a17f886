#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a test must leave in a guest as it found it, one item a line, for
# the check between the tests of a batch (guest-init.sh, run.sh -b):
#   module rocepath                  rocepath.ko still loaded
#   process PID SESSION ARGS         every process outside this script's
#                                    session (kernel threads, the agent and
#                                    its idle shells, the YNL server and
#                                    guest-init.sh aside)
#   ip ..., ip6 ...                  addresses, links, namespaces, routes
#                                    and rules of every table
#   qdisc ..., nft ..., rdma ...     qdiscs, nftables, RDMA links
#   ns NAME ip|tc ...                the same in network namespace NAME,
#                                    and its tc police actions
#   mount MOUNTPOINT TYPE            the mounts
#   run PATH                         /run, two levels down (not the YNL
#                                    server's socket, not util-linux's
#                                    /run/mount)
# Under TCG every exec costs about 0.1 s (0.25 to 0.45 s on the debug
# kernel): /proc is read with builtins.
#
# Usage: guest-state.sh [BEFORE]
# With BEFORE, a state this script printed earlier, prints only what
# differs from it: "now:    ITEM" and "before: ITEM" for items added and
# gone, "still running: PID SESSION ARGS" for processes started since.
# Each guest works out its own difference, side by side with the others.

export LC_ALL=C
read -r _ _ _ _ _ own _ </proc/self/stat

state() {
	while read -r name _; do
		[ "$name" = rocepath ] && echo "module rocepath"
	done </proc/modules

	for d in /proc/[0-9]*; do
		args=
		while IFS= read -r -d '' a; do
			args+="$a "
		done 2>/dev/null <"$d/cmdline"
		[ -n "$args" ] || continue
		read -r stat 2>/dev/null <"$d/stat" || continue
		stat=${stat##*) }
		read -r _ _ _ sid _ <<<"$stat"
		[ "$sid" = "$own" ] && continue
		case $args in
		*"agent.py serve"* | *ynl_server.py* | *guest-init.sh*) continue ;;
		# The agent's idle shells: each holds the pipe its command comes
		# on (fd N of its "read ... -u N"), and closes it on reading one.
		*" __rpvm_cmd "*)
			f=${args#*" -u "}
			[ -e "$d/fd/${f%% *}" ] && continue
			;;
		esac
		echo "process ${d#/proc/} $sid ${args% }"
	done

	# The tools' lines come raw, after an "@ PREFIX" line; one awk
	# (below) prefixes them and drops what changes by itself: interface
	# numbers, lifetimes and address flags (DAD clears "tentative").
	echo "@ ip"
	printf '%s\n' 'addr show' 'link show' 'netns list' 'route show table all' 'rule show' |
		ip -o -batch - 2>&1
	echo "@ ip6"
	printf '%s\n' 'route show table all' 'rule show' | ip -6 -o -batch - 2>&1
	echo "@ qdisc"
	tc qdisc show 2>&1
	echo "@ nft"
	nft list ruleset 2>/dev/null
	echo "@ rdma"
	rdma link show 2>/dev/null
	# Inside each network namespace (a fabric guest's switches) the
	# same and tc's police actions: a fabric batch's next test must not
	# meet a link left down or a policer.
	set -- /run/netns/*
	if [ -e "$1" ]; then
		for ns; do
			ns=${ns##*/}
			echo "@ ns $ns ip"
			printf '%s\n' 'addr show' 'link show' 'route show table all' 'rule show' |
				ip -n "$ns" -o -batch - 2>&1
			echo "@ ns $ns tc"
			printf '%s\n' 'qdisc show' 'actions list action police' | tc -n "$ns" -batch - 2>&1
		done
	fi
	echo "@"

	while read -r _ mnt type _; do
		echo "mount $mnt $type"
	done </proc/mounts

	shopt -s nullglob
	for f in /run/* /run/*/*; do
		case $f in
		/run/rocepath-ynl.*) ;;
		# The fabric's spine captures (fabric.py capture), which the next
		# capture replaces; no capture left running is a process above.
		/run/rocepath-fabric/cap-*) ;;
		# util-linux's own records of mount(8) and umount(8) calls (utab):
		# the mounts themselves are compared above.
		/run/mount | /run/mount/*) ;;
		*) echo "run $f" ;;
		esac
	done
}

# One awk: the tools' lines prefixed (see state), and with BEFORE the
# difference from it. Under TCG every exec costs about 0.1 s.
prefix='
	$1 == "@" { p = substr($0, 3); p = p == "" ? "" : p " "; raw = p ~ / ?ip $/; next }
	raw { sub(/^[0-9]+: /, ""); sub(/ *\\ +valid_lft.*/, ""); gsub(/ (tentative|dadfailed|noprefixroute)/, "") }
	{ $0 = p $0 }'
[ $# -gt 0 ] || { state | awk "$prefix { print }"; exit; }
[ -r "$1" ] || { echo "guest-state.sh: cannot read $1"; exit 1; }
state | awk -v before="$1" "$prefix"'
	BEGIN {
		while ((getline l < before) > 0) {
			if (l ~ /^process /) { split(l, f, " "); pid[f[2]] = 1; continue }
			was[l]++; bl[++nb] = l
		}
	}
	/^process / {
		if (!($2 in pid)) { sub(/^process/, "still running:"); ran[++nr] = $0 }
		next
	}
	{ if (was[$0] > 0) was[$0]--; else now[++nn] = $0 }
	END {
		for (i = 1; i <= nn; i++) print "now:    " now[i]
		for (i = 1; i <= nb; i++) if (was[bl[i]] > 0) { was[bl[i]]--; print "before: " bl[i] }
		for (i = 1; i <= nr; i++) print ran[i]
	}'
