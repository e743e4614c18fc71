#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/install/run.sh BUILD SRC: cmake --install BUILD into a temporary
# prefix, check the installed tree (tools in bin, benchmarks in
# libexec/rcuvfs, librcuvfs.a, headers under include/rcuvfs, rcuvfs.pc, the
# CMake package, the man pages and the bash completion when they were
# built), then build tests/install/consumer against it twice, with
# pkg-config and with find_package, and run both.
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/rcuvfs-stress lib/librcuvfs.a include/rcuvfs/vfs/vfs.h \
	include/rcuvfs/vfs/base/base.h include/rcuvfs/vfs/base/spinlock.h \
	include/rcuvfs/fdtable/fdtable.h include/rcuvfs/locks/locks.h include/rcuvfs/mm/mm.h \
	lib/pkgconfig/rcuvfs.pc lib/cmake/rcuvfs/rcuvfsConfig.cmake \
	lib/cmake/rcuvfs/rcuvfsTargets.cmake libexec/rcuvfs/bench_lockref; do
	[ -e "$prefix/$f" ] || bad "not installed: $f"
done
[ -x "$build/bin/rcuvfs" ] && { [ -x "$prefix/bin/rcuvfs" ] || bad "not installed: bin/rcuvfs"; }
[ -x "$build/bin/rcuvfs-explore" ] &&
	{ [ -x "$prefix/bin/rcuvfs-explore" ] || bad "not installed: bin/rcuvfs-explore"; }
[ -x "$prefix/bin/rcuvfs-plot" ] || bad "not installed: bin/rcuvfs-plot"
if [ -d "$build/man" ]; then
	for m in rcuvfs rcuvfs-stress; do
		[ -e "$prefix/share/man/man1/$m.1" ] || bad "not installed: share/man/man1/$m.1"
	done
	MANPATH=$prefix/share/man man -w rcuvfs >/dev/null 2>&1 || bad "man rcuvfs finds no page"
	# the documentation directory rcuvfs(1) points at exists under the
	# install prefix (the page names the configured prefix's)
	docdir=$(sed -n 's/.*documentation installed in \([^ ]*\)\/docs .*/\1/p' "$build/man/rcuvfs.1")
	[ -n "$docdir" ] || bad "rcuvfs(1) names no documentation directory"
	rel=${docdir#"$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")"/}
	[ -e "$prefix/$rel/docs/daemon.md" ] || bad "rcuvfs(1) points at $docdir/docs/daemon.md: not installed"
fi
if [ -f "$build/completion/rcuvfs" ]; then
	[ -e "$prefix/share/bash-completion/completions/rcuvfs-stress" ] ||
		bad "not installed: bash completion"
fi
"$prefix/bin/rcuvfs-stress" --version >/dev/null || bad "installed rcuvfs-stress does not run"

# with pkg-config
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
if flags=$(pkg-config --cflags --libs rcuvfs); then
	# shellcheck disable=SC2086
	cc -o "$tmp/consumer-pc" "$src/tests/install/consumer/main.c" $flags &&
		"$tmp/consumer-pc" || bad "pkg-config build or run"
else
	bad "pkg-config rcuvfs"
fi
# with find_package
cmake -S "$src/tests/install/consumer" -B "$tmp/cb" -DCMAKE_PREFIX_PATH="$prefix" \
	>"$tmp/cb.log" 2>&1 && cmake --build "$tmp/cb" >>"$tmp/cb.log" 2>&1 &&
	"$tmp/cb/consumer" || { cat "$tmp/cb.log"; bad "find_package build or run"; }
[ $fail = 0 ] && echo "install: ok"
exit $fail
