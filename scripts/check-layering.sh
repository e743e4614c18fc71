#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the layering of DESIGN.md:  vfs/base <- vfs <- fdtable, locks, mm <- fuse, tests
# - a file may include project headers only from its own layer or below;
# - outside its folder, a file includes only the folder's public header
#   (vfs/base/base.h, vfs/vfs.h, fdtable/fdtable.h, locks/locks.h, mm/mm.h),
#   except white-box unit tests (tests/unit), which may include internals;
# - every source file starts with an SPDX line (first or second line).
set -u
cd "$(dirname "$0")/.."
status=0
public="vfs/base/base.h vfs/vfs.h fdtable/fdtable.h locks/locks.h mm/mm.h"

allowed_dirs() { # folder -> project folders it may include from
	case "$1" in
	vfs/base) echo "vfs/base" ;;
	vfs) echo "vfs vfs/base" ;;
	fdtable|locks|mm) echo "$1 vfs vfs/base" ;;
	*) echo "vfs/base vfs fdtable locks mm fuse tests" ;;
	esac
}

files=$(git ls-files '*.c' '*.h' 2>/dev/null) ||
	files=$(find vfs fdtable locks mm fuse tests -name '*.[ch]' 2>/dev/null)
for f in $files; do
	dir=$(dirname "$f")
	case "$dir" in vfs/base|vfs|fdtable|locks|mm) layer=$dir ;; *) layer=other ;; esac
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
		if [ "$incdir" != "$dir" ] && ! echo " $public " | grep -q " $inc "; then
			case "$dir/" in "$incdir"/*) ;; *)
				echo "$f: includes $inc, not the folder's public header"
				echo x >>"${TMPDIR:-/tmp}/rcuvfs-layering.$$" ;;
			esac
		fi
	done
done
if [ -s "${TMPDIR:-/tmp}/rcuvfs-layering.$$" ]; then status=1; fi
rm -f "${TMPDIR:-/tmp}/rcuvfs-layering.$$"
[ $status = 0 ] && echo "layering: ok"
exit $status
