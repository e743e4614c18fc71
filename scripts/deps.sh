#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian 12 packages rcuvfs needs (only those missing). Run as root.
# Beyond what a minimal Debian 12 has (coreutils, util-linux, mount, grep,
# sed, mawk, diffutils, findutils, perl-base), the tests and benchmarks call:
# cc/make (build-essential), cmake, pkg-config, fusermount3 (fuse3),
# stress-ng, valgrind/callgrind_annotate/callgrind_control (valgrind),
# python3 (integration.ctl), git (the layering check lists tracked files;
# integration.apps, bench.fuse-requests), sqlite3 (the same two),
# gnuplot (rcuvfs-plot, from gnuplot-nox), scdoc (the man pages).
set -eu
pkgs="build-essential cmake pkg-config liburcu-dev libfuse3-dev fuse3 libcunit1-dev stress-ng valgrind
	python3 git sqlite3 gnuplot-nox scdoc"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "rcuvfs: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "rcuvfs: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
