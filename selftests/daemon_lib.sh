#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the rocepathd selftests (daemon_*.sh) and the demo.
# Sourced, never run: running it directly reports SKIP.
#
# Each guest keeps its own config, topology and placement under
# /run/rocepath (tmpfs: inotify sees changes made on the guest, which it
# would not on the shared 9p tree), its re-plan state in /run/rocepath/state
# (emptied by rpd_setup: a test starts from scratch, so its first plan is
# `rocepath plan`'s), logs to /run/rocepath/rocepathd.log
# and writes its pid to /run/rocepath/rocepathd.pid.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "1..0 # SKIP daemon_lib.sh is a helper for the daemon_*.sh tests"
	exit 4
fi

source "$ROCEPATH_TOP/selftests/cap_lib.sh"

RPD_DIR=/run/rocepath
RPD_BIN=${RPD_BIN:-$ROCEPATH_TOP/daemon/rocepathd/rocepathd}
RPD_EXAMPLE=${RPD_EXAMPLE:-$ROCEPATH_TOP/examples/two-host}
NHOSTS=${NHOSTS:-2}

# require_rpd: skip the test unless rocepathd and the CLI are built.
require_rpd() {
	[ -x "$RPD_BIN" ] || ksft_skip_all "rocepathd not built ($RPD_BIN): make -C daemon"
	require_cli
}

# rpd_setup N: module loaded, files and config in place on guest N; at
# the test's exit, once the daemon is stopped, both go again.
rpd_setup() {
	local n=$1
	defer_last rpd_teardown "$n"
	on_host "$n" "set -e; mkdir -p $RPD_DIR
		lsmod | grep -q '^rocepath ' || insmod '$ROCEPATH_KO'
		cp '$RPD_EXAMPLE/topology.json' '$RPD_EXAMPLE/placement.json' $RPD_DIR/
		rm -rf $RPD_DIR/state
		cat > $RPD_DIR/rocepathd.conf <<'CONF'
{\"topology\": \"$RPD_DIR/topology.json\",
 \"placement\": \"$RPD_DIR/placement.json\",
 \"state_dir\": \"$RPD_DIR/state\",
 \"dcqcn\": {\"*\": {\"np_enable\": 1, \"rp_enable\": 1, \"rp_ai_rate\": 7}},
 \"debounce_ms\": 100, \"log_level\": \"debug\"}
CONF"
}

# rpd_teardown N: the daemon's directory and the module gone from guest N.
rpd_teardown() {
	on_host "$1" "rm -rf $RPD_DIR"
	rp_unload "$1"
}

# rpd_start N: start rocepathd on guest N in the background (by pid).
rpd_start() {
	local n=$1
	on_host "$n" "setsid '$RPD_BIN' -c $RPD_DIR/rocepathd.conf </dev/null \
		>>$RPD_DIR/rocepathd.log 2>&1 & echo \$! >$RPD_DIR/rocepathd.pid"
}

# rpd_stop N [SIG]: signal the daemon by its pid and wait for it to exit.
rpd_stop() {
	local n=$1 sig=${2:-TERM}
	on_host "$n" "pid=\$(cat $RPD_DIR/rocepathd.pid 2>/dev/null) || exit 0
		kill -$sig \$pid 2>/dev/null
		for i in \$(seq 50); do kill -0 \$pid 2>/dev/null || exit 0; sleep 0.1; done
		echo 'rocepathd did not exit'; exit 1"
}

rpd_running() {
	on_host "$1" "kill -0 \$(<$RPD_DIR/rocepathd.pid)" >/dev/null 2>&1
}

# rpd_log_count N PATTERN: number of log lines matching PATTERN (grep -E).
rpd_log_count() {
	local out
	out=$(on_host "$1" "grep -cE '$2' $RPD_DIR/rocepathd.log" 2>/dev/null)
	echo "${out##*$'\n'}"
}

# rpd_wait_log N PATTERN [MIN [TRIES]]: until at least MIN lines match.
rpd_wait_log() {
	local n=$1 pat=$2 min=${3:-1} tries=${4:-60} i c
	for ((i = 0; i < tries; i++)); do
		c=$(rpd_log_count "$n" "$pat")
		[ "${c:-0}" -ge "$min" ] && return 0
		sleep 0.5
	done
	log "h$n: no '$pat' (x$min) in the rocepathd log; its tail:"
	on_host "$n" "tail -n 30 $RPD_DIR/rocepathd.log" | sed 's/^/#   /'
	return 1
}

# rpd_save_logs: copy every guest's daemon log to RUN_DIR.
rpd_save_logs() {
	local n
	for ((n = 1; n <= NHOSTS; n++)); do
		on_host "$n" "cp $RPD_DIR/rocepathd.log '$RUN_DIR/h$n-rocepathd.log'" \
			>/dev/null 2>&1
	done
}

# rpd_placement_qps Q OUT: the example placement with Q QPs per
# connection, written to OUT (what a scheduler's edit looks like).
rpd_placement_qps() {
	jq -c --argjson q "$1" '.jobs[].qps_per_connection = $q' \
		"$RPD_EXAMPLE/placement.json" >"$2"
}

# rpd_plan_ports SRC DST [PLACEMENT]: the planned sports of SRC -> DST, one
# per line, ascending, from `rocepath -j plan` (the plan's flows list, Documentation/planner.rst).
rpd_plan_ports() {
	local src=$1 dst=$2 place=${3:-$RPD_EXAMPLE/placement.json} out
	if out=$("$RP_CLI" -j plan topology "$RPD_EXAMPLE/topology.json" placement "$place" 2>/dev/null); then
		jq -r --arg s "$src" --arg d "$dst" \
			'[.flows[] | select(.src_host == $s and .dst_host == $d) | .sport] | unique[]' <<<"$out"
		return
	fi
	# Fallback while \`rocepath plan\` is unavailable: the same planner
	# through rocepathd --check (the host's pins; remote = dst's address).
	local conf
	conf=$(mktemp)
	printf '{"topology": "%s", "placement": "%s", "host": "%s", "stable_replan": false}' \
		"$RPD_EXAMPLE/topology.json" "$place" "$src" >"$conf"
	"$RPD_BIN" -c "$conf" --check |
		sed -n "s/^pin 192\\.0\\.2\\.${dst#h} sport \\([0-9,]*\\)\$/\\1/p" | tr , '\n'
	rm -f "$conf"
}

# rpd_pins N: the installed path-set ports on guest N, as 'REMOTE PORT,PORT'.
rpd_pins() {
	on_host "$1" "'$RP_CLI' -j pin show" |
		jq -r '.[] | "\(.remote) \(.sports | sort | map(tostring) | join(","))"'
}

# rpd_generation N: the pin set generation (from rocepath -j stats).
rpd_generation() {
	on_host "$1" "'$RP_CLI' -j stats" |
		jq -r 'if type == "array" then .[0] else . end | .generation // ""'
}

# rpd_capture_start N SRC: capture RoCEv2 from SRC arriving on guest N.
rpd_capture_start() {
	cap_start "$1" "rpd-at$1" "udp dst port 4791 and src host $2"
}

# rpd_capture_ports N: stop the capture; print the source ports seen, sorted.
rpd_capture_ports() {
	sleep 0.5
	cap_stop "$1" "rpd-at$1"
	cap_sports "rpd-at$1" | awk '{ print $2 }'
}

# rpd_traffic SERVER CLIENT QPS: ib_write_bw with QPS queue pairs.
rpd_traffic() {
	local srv=$1 cli=$2 qps=$3 srv_ip=192.0.2.$1 rc gs gc
	gs=$(rpd_gid "$srv") && gc=$(rpd_gid "$cli") || { log "no IPv4 RoCEv2 GID on $IBDEV"; return 1; }
	on_host_bg "$srv" bw_srv "timeout 120 ib_write_bw -d '$IBDEV' -x $gs -q $qps -s 4096 -n 20 -F -u $RC_TIMEOUT"
	sleep 1
	retry 20 1 on_host "$cli" "timeout 120 ib_write_bw -d '$IBDEV' -x $gc -q $qps -s 4096 -n 20 -F -u $RC_TIMEOUT $srv_ip" \
		>"$RUN_DIR/bw_client.out" 2>&1
	rc=$?
	wait_bg "$srv" bw_srv 120 >"$RUN_DIR/bw_server.out" 2>&1 || rc=1
	[ $rc = 0 ] || { log "ib_write_bw failed:"; sed 's/^/#   /' "$RUN_DIR/bw_client.out" | tail -n 15; }
	return $rc
}

# rpd_gid N: the GID index of guest N's IPv4 (::ffff:192.0.2.N) RoCEv2 GID,
# so traffic is addressed by the IPv4 address the plan pins.
rpd_gid() {
	on_gid_index "$1" '$HOST_IP4'
}
