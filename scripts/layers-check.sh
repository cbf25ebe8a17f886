#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The include rules between the layers (Documentation/architecture.rst,
# "Rules between layers"), checked so that the document cannot drift from
# the code again:
#   kmod/            includes only its own headers ("x.h") and the kernel's
#   daemon/lib/      never includes the planner or the prober
#   daemon/planner/  takes from daemon/lib/ only the models it shares with
#                    it: addr.h (the address), objs.h (the pin and pin set),
#                    atomic.h (the atomic file writer) and digest.h (the
#                    file digest); never netlink,
#                    output, parsing or decoding
#   daemon/cli/ and daemon/rocepathd/ share only daemon/lib/ (and the
#                    planner and prober): neither includes the other's
#                    headers, and neither binary links the other's objects
#   kmod/ objects    call each other without a cycle, so that they stack
#                    in layers (scripts/kmod-objgraph.py, from nm): checked
#                    on each module build there is, build/<rel>/ of
#                    scripts/kbuild.sh and an in-tree build, or on the
#                    builds given as arguments
# Prints each violation as FILE:LINE: reason (a cycle: BUILD: the objects,
# then each edge between them with one symbol); exits 1 when there is one.
#
# Usage: scripts/layers-check.sh [BUILD_DIR...]

set -u
cd "$(dirname "$0")/.." || exit 1

PLANNER_FROM_LIB="addr.h objs.h atomic.h digest.h"
rc=0

# quoted FILE...: "FILE LINE NAME" for each #include "NAME"
quoted() {
	grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" |
		sed -E 's/^([^:]*):([0-9]+):.*"([^"]+)".*/\1 \2 \3/'
}

bad() { # FILE LINE REASON
	echo "$1:$2: $3"
	rc=1
}

while read -r f l h; do
	[ -f "kmod/$h" ] || bad "$f" "$l" "\"$h\" is not a kmod/ header: the module includes no userspace header"
done < <(quoted kmod/*.[ch])
while read -r f l h; do
	bad "$f" "$l" "the kernel side includes daemon/ (\"$h\")"
done < <(grep -nHE '^[[:space:]]*#[[:space:]]*include.*daemon/' kmod/*.[ch] |
	sed -E 's/^([^:]*):([0-9]+):(.*)/\1 \2 \3/')

while read -r f l h; do
	[ -f "daemon/planner/$h" ] && [ ! -f "daemon/lib/$h" ] &&
		bad "$f" "$l" "daemon/lib/ includes the planner (\"$h\")"
	[ -f "daemon/probe/$h" ] && [ ! -f "daemon/lib/$h" ] &&
		bad "$f" "$l" "daemon/lib/ includes the prober (\"$h\")"
done < <(quoted daemon/lib/*.[ch])

while read -r f l h; do
	[ -f "daemon/planner/$h" ] && continue
	[[ " $PLANNER_FROM_LIB " == *" $h "* ]] && continue
	if [ -f "daemon/lib/$h" ]; then
		bad "$f" "$l" "the planner includes daemon/lib/$h: of the library it uses only $PLANNER_FROM_LIB"
	else
		bad "$f" "$l" "\"$h\" is neither a planner header nor one of daemon/lib/ it may use"
	fi
done < <(quoted daemon/planner/*.[ch])

# other DIR OWN NAME: NAME, quoted-included from daemon/OWN/, is daemon/DIR/'s
other() {
	local h=${3#../} base
	base=${h##*/}
	case "$h" in
	"$1"/*) return 0 ;;
	*/*) return 1 ;;
	esac
	[ -f "daemon/$1/$base" ] && [ ! -f "daemon/$2/$base" ] &&
		[ ! -f "daemon/lib/$base" ]
}
while read -r f l h; do
	other rocepathd cli "$h" &&
		bad "$f" "$l" "the CLI includes the daemon's \"$h\": they share only daemon/lib/"
done < <(quoted daemon/cli/*.[ch])
while read -r f l h; do
	other cli rocepathd "$h" &&
		bad "$f" "$l" "the daemon includes the CLI's \"$h\": they share only daemon/lib/"
done < <(quoted daemon/rocepathd/*.[ch])

# The objects each binary links, from make's own commands (nothing is built).
# links BINARY DIR: BINARY's link line names an object from daemon/DIR/
links() {
	make -s -n -B -C daemon "$1" 2>/dev/null |
		grep -E "(^|[[:space:]])-o[[:space:]]+$1([[:space:]]|\$)" |
		grep -qE "(^|[[:space:]])$2/[^[:space:]]*\.o([[:space:]]|\$)"
}
rule() { grep -n "^$1:" daemon/Makefile | cut -d: -f1 | head -n1; }
links rocepath rocepathd &&
	bad daemon/Makefile "$(rule rocepath)" "rocepath links an object of daemon/rocepathd/: the CLI and the daemon share only librocepath.a"
links rocepathd/rocepathd cli &&
	bad daemon/Makefile "$(rule rocepathd/rocepathd)" "rocepathd links an object of daemon/cli/: the CLI and the daemon share only librocepath.a"

# The module's objects: no cycle between them (architecture.rst).
# A build older than a kmod/ source is another tree's: it is skipped, not
# checked (make check's sparse pass rebuilds both test kernels' first).
builds=("$@")
if [ ${#builds[@]} = 0 ]; then
	for b in . build/*/; do
		b=${b%/}
		[ -f "$b/rocepath.ko" ] || continue
		[ -f "$b/rocepath.mod" ] || continue
		if [ -n "$(find kmod Kbuild -newer "$b/rocepath.ko" -print -quit)" ]; then
			echo "note: $b/rocepath.ko is older than kmod/: its objects are not checked"
			continue
		fi
		builds+=("$b")
	done
fi
if [ ${#builds[@]} != 0 ]; then
	if command -v python3 >/dev/null && command -v nm >/dev/null; then
		scripts/kmod-objgraph.py --check "${builds[@]}" || rc=1
	else
		echo "kmod: python3 and nm are needed to check the objects of ${builds[*]}: run scripts/deps.sh"
		rc=1
	fi
fi

exit $rc
