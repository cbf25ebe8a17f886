#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves rocepath.ko loads and unloads cleanly, repeatedly, with soft-RoCE
# present: the generic netlink family appears and goes away, and the kernel
# logs no WARN, oops, BUG, refcount or leak line and takes no W/D taint.
# The guest claims 256 possible CPUs, so that probe_slots' cap by ring
# memory shows: x86-64 6.1 raises its possible CPUs to possible_cpus=, 6.12
# only lowers them and arm64 has no such parameter; the expected cap comes
# from the guest's own count.
# rpvm-cmdline: possible_cpus=256

. "$(dirname "$0")/lib.sh"

require_module
require_cmd insmod rmmod genl

if lsmod | grep -q '^rocepath '; then
	rmmod rocepath || ksft_skip_all "rocepath is already loaded and cannot be removed"
fi
defer 'rmmod rocepath'
kmsg_mark
taint0=$(cat /proc/sys/kernel/tainted)

# No MODULE_ALIAS_GENL_FAMILY: genetlink's CTRL_CMD_GETFAMILY, open to any
# user, would request_module() the family alias and so let an unprivileged
# lookup install the module's kprobes and netfilter hooks.
no_family_alias() {
	local al
	al=$(modinfo -F alias "$ROCEPATH_KO") || return 1
	[ -n "$al" ] && echo "aliases: $al"
	! grep -q 'family-rocepath' <<<"$al"
}
ksft_test "module has no genetlink family alias (no unprivileged autoload)" no_family_alias
ksft_test "insmod $(basename "$ROCEPATH_KO") ($(uname -r))" insmod "$ROCEPATH_KO"
ksft_test "generic netlink family rocepath registered" genl ctrl get name rocepath
ksft_test "module holds no unexpected references (refcnt 0)" \
	bash -c '[ "$(cat /sys/module/rocepath/refcnt)" = 0 ]'
ksft_test "rmmod rocepath" rmmod rocepath
ksft_test "family gone after rmmod" bash -c '! genl ctrl get name rocepath'

ok=1
for i in 1 2 3; do
	if ! insmod "$ROCEPATH_KO" || ! rmmod rocepath; then
		log "load/unload cycle $i failed"
		ok=
		break
	fi
done
[ -n "$ok" ] && ksft_pass "3 more load/unload cycles" || ksft_fail "3 more load/unload cycles"

# A kretprobe's objpool keeps a ring of roundup_pow_of_two(slots) pointers
# per possible CPU: probe_slots is capped to 16 MiB of rings per probe.
slots_max() {
	local n=0 r lo hi
	for r in $(tr ',' ' ' </sys/devices/system/cpu/possible); do
		lo=${r%-*} hi=${r#*-}
		n=$((n + hi - lo + 1))
	done
	local fit=$(((16 << 20) / (8 * n))) p=1
	while [ $((p * 2)) -le "$fit" ]; do p=$((p * 2)); done
	[ "$p" -gt 65536 ] && p=65536
	echo "$n $p"
}
read -r ncpu smax < <(slots_max)
over=$((smax * 2))
[ "$smax" = 65536 ] && over=65537
slots_refused() {
	local m
	m=$(dmesg | wc -l)
	if insmod "$ROCEPATH_KO" probe_slots="$over"; then
		rmmod rocepath
		echo "probe_slots=$over was accepted"
		return 1
	fi
	dmesg | tail -n +$((m + 1)) | grep "probe_slots must be 16\.\.$smax on this host ($ncpu possible CPUs"
}
ksft_test "probe_slots=$over refused, the message names 16..$smax ($ncpu possible CPUs)" slots_refused
ksft_test "probe_slots=$smax accepted" bash -c "insmod '$ROCEPATH_KO' probe_slots=$smax && rmmod rocepath"

# While RDMA traffic has QPs open and a second rxe device comes and goes.
ksft_test "insmod with traffic afterwards" insmod "$ROCEPATH_KO"
ksft_test "rc_pingpong while loaded" rdma_pingpong
ksft_test "rxe device added and removed while loaded" \
	bash -c 'ip link add rpdummy0 type dummy && ip link set rpdummy0 up &&
		rdma link add rxe_d0 type rxe netdev rpdummy0 && rdma link delete rxe_d0 &&
		ip link del rpdummy0'
ksft_test "rmmod after traffic" rmmod rocepath

bugs=$(kmsg_bugs)
if [ -z "$bugs" ]; then
	ksft_pass "no WARN/oops/BUG/leak lines in dmesg"
else
	printf '%s\n' "$bugs" | sed 's/^/#   /'
	ksft_fail "no WARN/oops/BUG/leak lines in dmesg"
fi
taint=$(cat /proc/sys/kernel/tainted)
# W (bit 9, a WARN) and D (bit 7, an oops) must not appear.
if [ $(((taint & ~taint0) & (512 | 128))) = 0 ]; then
	ksft_pass "kernel not tainted W or D (tainted=$taint)"
else
	ksft_fail "kernel not tainted W or D (tainted=$taint, was $taint0)"
fi
ksft_exit
