#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's node_exporter and promtool for the metrics selftest, without
# installing them: `prometheus` is 19 MB to download and 96 MB installed
# with a dozen JavaScript dependencies for a web UI we never use, and
# installing `prometheus-node-exporter` would start a service on the build
# host. Both .debs are fetched with apt-get download and only their two
# binaries are extracted into $CACHE/prom (about 60 MB). Idempotent.

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
dir=$CACHE/prom

[ -x "$dir/promtool" ] && [ -x "$dir/prometheus-node-exporter" ] && exit 0
mkdir -p "$CACHE/debs" "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$CACHE/debs" && apt-get download -q prometheus prometheus-node-exporter >/dev/null 2>&1) ||
	{ echo "prom-tools: apt-get download prometheus prometheus-node-exporter failed" >&2; exit 1; }
for p in prometheus prometheus-node-exporter; do
	deb=$(ls -t "$CACHE/debs/${p}_"*_amd64.deb | head -n1)
	dpkg-deb -x "$deb" "$tmp/$p"
done
install -m 0755 "$tmp/prometheus/usr/bin/promtool" "$dir/promtool"
install -m 0755 "$tmp/prometheus-node-exporter/usr/bin/prometheus-node-exporter" \
	"$dir/prometheus-node-exporter"
echo "prom-tools: promtool and prometheus-node-exporter in $dir" >&2
