#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves rocepath.ko refuses to load on a kernel whose RDMA core differs
# from the headers it was built with, and says which check failed: the
# kernel's BTF is replaced (bind mounts over /sys/kernel/btf/*) by copies
# with one difference each -- _ib_modify_qp's parameters swapped or one
# missing, the function absent, a field of struct ib_qp_attr moved, one of
# struct ib_gid_attr that an RDMA core inline helper reads moved, the
# ib_device.is_switch bit moved, net_device.ifindex moved, struct
# ib_port_data grown (the port_data[] stride), the BTF cut short. btf_check=0 still loads (with a warning), and the real
# BTF loads again.

. "$(dirname "$0")/lib.sh"

require_module
require_cmd insmod rmmod python3 mount umount
[ -r /sys/kernel/btf/vmlinux ] || ksft_skip_all "kernel has no BTF (/sys/kernel/btf/vmlinux)"
modprobe ib_core 2>/dev/null
[ -r /sys/kernel/btf/ib_core ] || ksft_skip_all "ib_core has no BTF (CONFIG_DEBUG_INFO_BTF_MODULES)"
lsmod | grep -q '^rocepath ' && { rmmod rocepath || ksft_skip_all "rocepath is loaded and cannot be removed"; }

# The mutated copies on the guest's tmpfs (five of them are of vmlinux's
# BTF, 5 MB each), all made by one Python that parses the kernel's BTF
# once: a parse takes seconds under TCG. WHICH[MODE]: the file it stands
# for, "-" when it could not be made (btf_mutate.py says why).
MUT=/tmp/rocepath-btf
mkdir -p "$MUT"
mounted=
unmount() { [ -n "$mounted" ] && umount "$mounted"; mounted=; }
defer "rm -rf $MUT"
defer unmount
defer 'rmmod rocepath 2>/dev/null'
declare -A WHICH
while read -r m w; do
	WHICH[$m]=$w
done < <(py selftests/btf_mutate.py -d "$MUT" swap nparams nofunc offset \
	offset:ib_gid_attr.gid_type offset:ib_device.is_switch offset:net_device.ifindex \
	size:ib_port_data garbage)

mount_mutated() { # MODE: its copy over the file it stands for
	local which=${WHICH[$1]:--}
	[ "$which" != - ] || { log "$1: no mutated BTF"; return 1; }
	mount --bind "$MUT/$1.btf" "/sys/kernel/btf/$which" || return 1
	mounted=/sys/kernel/btf/$which
}

# refused MODE REASON: the load fails and the log names the reason.
refused() {
	local mode=$1 reason=$2 log
	mount_mutated "$mode" || return 1
	if insmod "$ROCEPATH_KO" 2>"$MUT/err"; then
		log "$mode: insmod succeeded"
		rmmod rocepath
		unmount
		return 1
	fi
	log "insmod: $(<"$MUT/err")"
	log=$(dmesg | tail -n 3 | grep rocepath)
	log "$log"
	unmount
	grep -q "refusing to load\|malformed BTF" <<<"$log" && grep -q -- "$reason" <<<"$log"
}

ksft_test "_ib_modify_qp parameters swapped: refused, 'parameter type differs'" \
	refused swap "_ib_modify_qp: parameter type differs"
ksft_test "_ib_modify_qp with 3 parameters: refused, 'parameter count differs'" \
	refused nparams "_ib_modify_qp: parameter count differs"
ksft_test "_ib_modify_qp not in BTF: refused, 'function not described in BTF'" \
	refused nofunc "_ib_modify_qp: function not described in BTF"
ksft_test "ib_qp_attr.dest_qp_num moved: refused, 'member offset differs'" \
	refused offset "dest_qp_num: member offset differs"
ksft_test "ib_gid_attr.gid_type moved: refused, 'member offset differs'" \
	refused offset:ib_gid_attr.gid_type "gid_type: member offset differs"
ksft_test "ib_device.is_switch moved: refused, 'bit-field position differs'" \
	refused offset:ib_device.is_switch "is_switch: bit-field position differs"
ksft_test "net_device.ifindex moved: refused, 'member offset differs'" \
	refused offset:net_device.ifindex "ifindex: member offset differs"
ksft_test "struct ib_port_data grown (port_data[] stride): refused, 'structure size differs'" \
	refused size:ib_port_data "ib_port_data: structure size differs"
ksft_test "BTF cut short: refused as malformed" \
	refused garbage "malformed BTF"

forced() {
	mount_mutated swap || return 1
	insmod "$ROCEPATH_KO" btf_check=0 || { unmount; return 1; }
	unmount
	dmesg | tail -n 3 | grep -q "btf_check=0: the hooked functions. signatures and layouts are not verified" &&
		rmmod rocepath
}
ksft_test "btf_check=0 loads anyway and says it did not check" forced
ksft_test "the real BTF loads" bash -c "insmod '$ROCEPATH_KO' && rmmod rocepath"
ksft_exit
