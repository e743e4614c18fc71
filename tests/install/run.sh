#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/install/run.sh BUILD SRC: cmake --install BUILD into a temporary
# prefix, check the installed tree (tools in bin, benchmarks in
# libexec/rcuvfs, librcuvfs.a, headers under include/rcuvfs, rcuvfs.pc, the
# CMake package, the man pages and the bash completion when they were
# built), then build the programs of tests/install/consumer against it
# twice, with pkg-config and with find_package, and run them: main.c (the
# VFS) and locks_fork.c (tasks and POSIX locks only: a forked child's lock
# on its parent's range must conflict, which needs every subsystem started
# whatever the program links) and counters.c (the counters those count are
# registered, and so is every counter the static link pulled in).
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
# build/bin holds only what users run; test and benchmark programs are in
# build/tests (a copy left in build/bin by a build from before they moved,
# with its current one in build/tests, is not counted)
for f in "$build"/bin/*; do
	case "${f##*/}" in rcuvfs|rcuvfs-stress|rcuvfs-explore|rcuvfs-plot|rcuvfs-sim) ;;
	*) [ -e "$build/tests/${f##*/}" ] || bad "build/bin holds ${f##*/}, not a tool users run" ;;
	esac
done
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

# Production code only: librcuvfs.a defines none of the functions a
# folder's testing.h declares (the test library's), nothing of the
# explorer's runtime (rv_x*), no *_for_test; no testing.h or internal.h is
# installed.
testonly=$(sed -n 's/^[a-z][a-z_ ]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' "$src"/*/testing.h | sort -u)
[ "$(echo "$testonly" | wc -w)" -ge 5 ] || bad "found $(echo "$testonly" | wc -w) test-only functions in */testing.h"
defined=$(nm -g --defined-only "$prefix/lib/librcuvfs.a" 2>/dev/null | awk 'NF == 3 { print $3 }')
[ -n "$defined" ] || bad "nm lists nothing in the installed librcuvfs.a"
for s in $testonly $(echo "$defined" | grep -E '^rv_x|_for_test$'); do
	echo "$defined" | grep -qx "$s" && bad "the installed librcuvfs.a defines test-only $s"
done
for h in $(cd "$prefix/include/rcuvfs" && find . -name testing.h -o -name internal.h); do
	bad "installed a header that is not public: include/rcuvfs/${h#./}"
done

# with pkg-config
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
if flags=$(pkg-config --cflags --libs rcuvfs); then
	for p in main locks_fork counters; do
		# shellcheck disable=SC2086
		cc -o "$tmp/$p-pc" "$src/tests/install/consumer/$p.c" $flags &&
			"$tmp/$p-pc" || bad "pkg-config build or run of consumer/$p.c"
	done
	# every counter the static link pulled into the program (an rv_stat_NAME
	# object, nm's D) is in its registry
	if [ -x "$tmp/counters-pc" ]; then
		"$tmp/counters-pc" --list | sort >"$tmp/registered"
		nm "$tmp/counters-pc" | awk '$2 == "D" && $3 ~ /^rv_stat_/ { print substr($3, 9) }' |
			sort >"$tmp/linked"
		[ -s "$tmp/linked" ] || bad "nm finds no counter in consumer/counters.c's program"
		for c in $(comm -23 "$tmp/linked" "$tmp/registered"); do
			bad "consumer/counters.c: counter $c is linked in but not registered"
		done
	fi
else
	bad "pkg-config rcuvfs"
fi
# with find_package
cmake -S "$src/tests/install/consumer" -B "$tmp/cb" -DCMAKE_PREFIX_PATH="$prefix" \
	>"$tmp/cb.log" 2>&1 && cmake --build "$tmp/cb" >>"$tmp/cb.log" 2>&1 &&
	"$tmp/cb/consumer" && "$tmp/cb/locks_fork" && "$tmp/cb/counters" ||
	{ cat "$tmp/cb.log"; bad "find_package build or run"; }
[ $fail = 0 ] && echo "install: ok"
exit $fail
