#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the layering of DESIGN.md:
#   vfs/base <- vfs <- fdtable, locks, mm <- init, fuse, tools, tests
# - a file may include project headers only from its own layer or below;
# - outside its folder, a file includes only the folder's public header
#   (vfs/base/base.h, vfs/vfs.h, fdtable/fdtable.h, locks/locks.h, mm/mm.h),
#   except white-box unit tests (tests/unit), which may include internals,
#   and a folder's testing.h (its test-only entry points: checkers and
#   compared variants, in the test library rcuvfs_testing and never
#   installed), which tests/ and tools/ may include and no library source
#   outside the folder may;
#   vfs/base keeps one header per primitive beside its .c (spinlock.h,
#   lockref.h, ...): base.h includes every one of them, and each states its
#   locking rules in its file-top comment (a line starting " * Locking");
# - project includes form no cycle (checked with tsort);
# - every source file starts with an SPDX line (first or second line);
# - start-up is explicit: every subsystem defined with RV_SUBSYS is in
#   init/initcalls.c's table, and no library source registers anything
#   from a constructor except the counters (RV_STAT_DEFINE) and the slab
#   allocator's own set-up.  init/ is the library's top: the one folder
#   that names every subsystem.  It does so through the RV_SUBSYS objects,
#   not the folders' headers, and vfs/base/instance.c walks the table
#   through its declaration in vfs/base/instance.h: a reference to the
#   top by link, as the kernel's initcall tables are, not an include.
set -u
cd "$(dirname "$0")/.."
status=0
public="vfs/base/base.h vfs/vfs.h fdtable/fdtable.h locks/locks.h mm/mm.h"

allowed_dirs() { # folder -> project folders it may include from
	case "$1" in
	vfs/base|init) echo "vfs/base" ;;
	vfs) echo "vfs vfs/base" ;;
	fdtable|locks|mm) echo "$1 vfs vfs/base" ;;
	*) echo "vfs/base vfs fdtable locks mm fuse tools tests" ;;
	esac
}

files=$(git ls-files '*.c' '*.h' 2>/dev/null) ||
	files=$(find vfs fdtable locks mm fuse tools tests -name '*.[ch]' 2>/dev/null)
for f in $files; do
	dir=$(dirname "$f")
	case "$dir" in vfs/base|vfs|fdtable|locks|mm|init) layer=$dir ;; *) layer=other ;; esac
	head -2 "$f" | grep -q "SPDX-License-Identifier" || { echo "$f: no SPDX line"; status=1; }
	grep -o '^#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' | while read -r inc; do
		case "$inc" in */*) ;; *) continue ;; esac # same-folder include
		incdir=$(dirname "$inc")
		ok=0
		for a in $(allowed_dirs "$layer"); do
			case "$incdir" in "$a"|"$a"/*) ok=1 ;; esac
		done
		[ "$incdir" = "$dir" ] && ok=1
		if [ $ok = 0 ]; then
			echo "$f: includes $inc (upward or sideways across layers)"
			echo x >>"${TMPDIR:-/tmp}/rcuvfs-layering.$$"
			continue
		fi
		# unit tests are white-box: they may include a folder's internal header
		[ "$dir" = tests/unit ] && continue
		case "$incdir" in vfs/base|vfs|fdtable|locks|mm) ;; *) continue ;; esac
		case "$inc:$dir" in */testing.h:tests/*|*/testing.h:tools/*) continue ;; esac
		if [ "$incdir" != "$dir" ] && ! echo " $public " | grep -q " $inc "; then
			case "$dir/" in "$incdir"/*) ;; *)
				echo "$f: includes $inc, not the folder's public header"
				echo x >>"${TMPDIR:-/tmp}/rcuvfs-layering.$$" ;;
			esac
		fi
	done
done
# vfs/base: one header per primitive, all reachable through base.h
for h in $(echo "$files" | grep '^vfs/base/[^/]*\.h$'); do
	[ "$h" = vfs/base/base.h ] && continue
	grep -q "^#include \"$h\"" vfs/base/base.h ||
		{ echo "$h: not included by vfs/base/base.h"; status=1; }
	head -30 "$h" | grep -q '^ \* Locking' ||
		{ echo "$h: no ' * Locking' rules in its file-top comment"; status=1; }
done
# include cycles: tsort fails on a loop in "file included-file" pairs
edges=$(for f in $files; do
	grep -o '^#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' | while read -r inc; do
		case "$inc" in */*) ;; *) inc="$(dirname "$f")/$inc" ;; esac
		echo "$f $inc"
	done
done)
if ! echo "$edges" | tsort >/dev/null 2>"${TMPDIR:-/tmp}/rcuvfs-tsort.$$"; then
	echo "include cycle:"; sed 's/^/  /' "${TMPDIR:-/tmp}/rcuvfs-tsort.$$"; status=1
fi
rm -f "${TMPDIR:-/tmp}/rcuvfs-tsort.$$"
# explicit start-up: the table names every subsystem; no registering constructor
lib=$(echo "$files" | grep -E '^(init|vfs|fdtable|locks|mm)/')
for nm in $(grep -ho '^RV_SUBSYS([a-z_0-9]*' $lib | sed 's/^RV_SUBSYS(//'); do
	grep -q "^[[:space:]]*&rv_subsys_$nm,$" init/initcalls.c ||
		{ echo "RV_SUBSYS($nm): not in init/initcalls.c's table"; status=1; }
done
for f in $(grep -l '__attribute__((constructor))' $lib); do
	case "$f" in vfs/base/stats.h|vfs/base/slab.c) ;; *)
		echo "$f: a constructor; start-up goes through init/initcalls.c"; status=1 ;;
	esac
done
if [ -s "${TMPDIR:-/tmp}/rcuvfs-layering.$$" ]; then status=1; fi
rm -f "${TMPDIR:-/tmp}/rcuvfs-layering.$$"
[ $status = 0 ] && echo "layering: ok"
exit $status
