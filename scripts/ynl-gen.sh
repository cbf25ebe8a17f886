#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the UAPI header and the kernel policy/op tables from the YNL
# spec with the kernel's own generator, and the tables it does not make
# (scripts/spec-tables.py). --check compares instead of writing
# and fails when the checked-in files are stale.

set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
SRC=${ROCEPATH_CACHE:-$TOP/.cache}/linux-src
SPEC=Documentation/netlink/specs/rocepath.yaml
GEN=$SRC/tools/net/ynl/ynl-gen-c.py

[ -x "$(command -v python3)" ] || { echo "ynl-gen: python3 missing: run scripts/deps.sh" >&2; exit 1; }
[ -f "$GEN" ] || { echo "ynl-gen: $GEN missing: run scripts/deps.sh" >&2; exit 1; }

# The generator finds the tree root by MAINTAINERS and the schema next to
# the specs directory, so it runs on a copy placed inside the kernel tree.
cp "$TOP/$SPEC" "$SRC/$SPEC"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gen() { timeout 120 python3 "$GEN" --spec "$SRC/$SPEC" "$@"; }
gen --mode uapi --header -o "$out/rocepath.h"
gen --mode kernel --header -o "$out/netlink-gen.h"
gen --mode kernel --source -o "$out/netlink-gen.c"

# ynl-gen's per-op policies need a "do" with request attributes on every
# op (dump-only ops and ops without attributes make it fail), and split
# ops do not exist on 6.1, so the spec says "global" and spec-tables.py
# splits ynl-gen's global policy into one policy per op, from each op's
# request list, in a genl_ops table (which 6.1 has). The same step writes
# the DCQCN parameter tables (names, ranges, defaults) for the module and
# for userspace, the stats attributes' widths for the module, and
# userspace's attribute tables (names, types, decoders), so both sides
# follow the spec.
tables() { python3 "$TOP/scripts/spec-tables.py" "$TOP/$SPEC" "$@"; }
tables kops "$out/netlink-gen.c" >"$out/netlink-ops-gen.h"
tables kdcqcn >"$out/dcqcn-gen.h.k"
tables kstats >"$out/stats-gen.h"
tables spec-h >"$out/spec-gen.h"
tables spec-c >"$out/spec-gen.c"

# ynl-gen names the kernel header after the output file; keep ours stable.
targets="include/uapi/linux/rocepath.h:rocepath.h kmod/netlink-gen.h:netlink-gen.h kmod/netlink-gen.c:netlink-gen.c kmod/netlink-ops-gen.h:netlink-ops-gen.h
	kmod/dcqcn-gen.h:dcqcn-gen.h.k kmod/stats-gen.h:stats-gen.h daemon/lib/spec-gen.h:spec-gen.h
	daemon/lib/spec-gen.c:spec-gen.c"
rc=0
for t in $targets; do
	dst=${t%%:*} new=$out/${t##*:}
	if [ "${1:-}" = --check ]; then
		if ! cmp -s "$new" "$TOP/$dst"; then
			echo "ynl-gen: $dst is stale: run 'make gen' and commit" >&2
			diff -u "$TOP/$dst" "$new" | head -20 >&2 || true
			rc=1
		fi
	else
		cmp -s "$new" "$TOP/$dst" || cp "$new" "$TOP/$dst"
	fi
done
exit $rc
