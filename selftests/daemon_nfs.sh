#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd with its placement on a real NFS mount, as on a Slurm cluster
# that keeps shared state on NFS: h2 runs Debian's NFS server (knfsd,
# rpc.mountd; NFSv4.2 over a tmpfs export) and writes the placement
# through its own NFS mount of the export, a client other than h1; h1's
# rocepathd reads the topology and the placement from its mount.
#  1. With the stat poll off, a placement written on h2 goes unseen: NFS
#     gives h1 no inotify event for a write on another client (the case
#     the poll is there for).
#  2. With the poll on, h1 re-plans after a write on h2 within the poll
#     interval plus debounce and some emulator slack, far below acregmax
#     (60 s: what a stat() answered from the attribute cache could take).
#  3. A placement written in place and half-written when h1 reads it
#     (truncated JSON) is refused and the last good pins stay; once whole
#     it is applied.
# What it tests is userspace and the NFS client, the same on every kernel:
# make check runs it on 6.12 only; make check-all runs it on every kernel.
# rpvm-check-kernels: 6.12

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/daemon_lib.sh"
source "$(dirname "$0")/nfs_lib.sh"

require_module
require_cmd python3 jq
require_rpd
nfs_require 1 2

POLL_MS=2000
DEBOUNCE_MS=100
SLACK_S=10			# TCG, the NFS round trips, one plan
MNT=$NFS_MNT

# place_write Q [inplace|half]: h2 writes a placement with Q QPs per
# connection through its NFS mount: by default a temporary file renamed
# over (what the Slurm script does), "inplace" over the file itself,
# "half" only its first 20 bytes, in place. Leaves the whole file's
# content in $RUN_DIR/placement-qQ.json.
place_write() {
	local q=$1 how=${2:-rename} f=$RUN_DIR/placement-q$1.json
	rpd_placement_qps "$q" "$f" || return 1
	case $how in
	rename) on_host 2 "cp '$f' $MNT/.placement.tmp && mv $MNT/.placement.tmp $MNT/placement.json" ;;
	inplace) on_host 2 "cat '$f' >$MNT/placement.json" ;;
	half) on_host 2 "head -c 20 '$f' >$MNT/placement.json" ;;
	esac
}

# rpd_conf POLL_MS: h1's config, the two files on the NFS mount.
rpd_conf() {
	on_host 1 "cat >$RPD_DIR/rocepathd.conf <<'CONF'
{\"topology\": \"$MNT/topology.json\",
 \"placement\": \"$MNT/placement.json\",
 \"state_dir\": \"$RPD_DIR/state\",
 \"debounce_ms\": $DEBOUNCE_MS, \"poll_interval_ms\": $1, \"log_level\": \"debug\"}
CONF"
}

# pins_are Q: h1's installed pins are the plan's for Q QPs per connection.
pins_are() {
	local want got
	want="192.0.2.2 $(rpd_plan_ports h1 h2 "$RUN_DIR/placement-q$1.json" | paste -sd,)"
	got=$(rpd_pins 1)
	[ "$got" = "$want" ] && return 0
	log "pins: got '$got', want '$want' (q$1)"
	return 1
}

# now_ms: h1's clock (this script runs on h1), in ms.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

defer rpd_save_logs
defer nfs_stop 1 2
defer rpd_stop 1

rpd_setup 1 || ksft_skip_all "cannot load $ROCEPATH_KO"
nfs_server_start || ksft_skip_all "cannot start the NFS server on h2 (its output above)"
if nfs_mount 2 && nfs_mount 1; then
	ksft_pass "h2 exports a tmpfs over NFSv4.2; h1 and h2 mount it"
else
	ksft_fail "NFS mount of $NFS_SRV:/ ($NFS_EXPORT) failed"
	ksft_exit
fi
on_host 1 "grep ' $MNT ' /proc/mounts" | sed 's/^/# h1: /'
place_write 4
on_host 2 "cp '$RPD_EXAMPLE/topology.json' $MNT/" >/dev/null

# 1. Poll off: the daemon starts on q4, a write on h2 (q3) goes unseen.
rpd_conf 0
rpd_start 1
if rpd_wait_log 1 'ready: ' && pins_are 4; then
	ksft_pass "poll off: ready with the plan of the placement on NFS"
else
	ksft_fail "poll off: daemon not ready or pins wrong"
fi
before=$(rpd_log_count 1 'file change')
place_write 3
sleep $((POLL_MS * 3 / 1000))
if [ "$(rpd_log_count 1 'file change')" = "$before" ] && pins_are 4; then
	ksft_pass "poll off: a placement written on another NFS client goes unseen ($((POLL_MS * 3 / 1000)) s): no inotify event"
else
	ksft_fail "poll off: the write on h2 was seen; this test no longer shows the poll at work"
fi
rpd_stop 1

# 2. Poll on: a restart reads q3; a write on h2 (q2) is planned within
# the interval.
rpd_conf $POLL_MS
before=$(rpd_log_count 1 'ready: ')
rpd_start 1
if rpd_wait_log 1 'ready: ' $((before + 1)) && pins_are 3; then
	ksft_pass "poll on: restart reads the placement written meanwhile"
else
	ksft_fail "poll on: daemon not ready or pins wrong"
fi
before=$(rpd_log_count 1 'file change applied')
t0=$(now_ms)
place_write 2
waited=
for ((i = 0; i < (POLL_MS / 1000 + SLACK_S) * 5; i++)); do
	if [ "$(rpd_log_count 1 'file change applied')" -gt "$before" ]; then
		waited=$(($(now_ms) - t0))
		break
	fi
	sleep 0.2
done
if [ -n "$waited" ] && pins_are 2; then
	ksft_pass "poll on: a placement written on h2 is planned on h1 after $waited ms (poll $POLL_MS ms, debounce $DEBOUNCE_MS ms)"
	on_host 1 "grep 'file change applied' $RPD_DIR/rocepathd.log | tail -n1" | sed 's/^/# h1: /'
else
	ksft_fail "poll on: no re-plan within $((POLL_MS / 1000 + SLACK_S)) s of the write on h2"
fi

# 3. Half written in place: refused, q2 kept; then whole: applied.
before=$(rpd_log_count 1 'plan failed, keeping the last good plan')
gen=$(rpd_generation 1)
place_write 1 half
if rpd_wait_log 1 'plan failed, keeping the last good plan' $((before + 1)) 60 &&
   pins_are 2 && [ "$(rpd_generation 1)" = "$gen" ]; then
	ksft_pass "truncated placement on NFS: refused, last good pins kept"
	on_host 1 "grep 'plan failed' $RPD_DIR/rocepathd.log | tail -n1" | sed 's/^/# h1: /'
else
	ksft_fail "truncated placement on NFS: not refused, or pins changed"
fi
before=$(rpd_log_count 1 'file change applied')
place_write 1 inplace
if rpd_wait_log 1 'file change applied' $((before + 1)) 60 && pins_are 1; then
	ksft_pass "the placement once whole is applied"
else
	ksft_fail "the whole placement was not applied"
fi

ksft_exit
