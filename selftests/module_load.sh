#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves rocepath.ko loads and unloads cleanly, repeatedly, with soft-RoCE
# present: the generic netlink family appears and goes away, and the kernel
# logs no WARN, oops, BUG, refcount or leak line and takes no W/D taint.

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
