#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI's remote shell in the VM harness (mpirun --mca plm_rsh_agent):
# the guests run no sshd, so "mpi_rsh.sh hN CMD..." runs CMD on guest N
# through its harness agent (lib.sh on_host), as ssh would: the words
# joined by spaces, run by bash, output and exit code passed back, the
# remote command killed when this process is. Options before the host
# (ssh's -x and the like) are ignored.

while [ "${1:-}" != "${1#-}" ]; do
	shift
done
host=${1:?usage: mpi_rsh.sh HOST CMD...}
shift
source "$(dirname "$0")/lib.sh"
trap - EXIT
case $host in
h[0-9] | h[0-9][0-9]) n=${host#h} ;;
*) n=$(awk -v h="$host" '$2 == h && $1 ~ /^192\.0\.2\./ { sub(/.*\./, "", $1); print $1; exit }' /etc/hosts) ;;
esac
[ -n "$n" ] || { echo "mpi_rsh: unknown host $host" >&2; exit 255; }
on_host "$n" "$@"
