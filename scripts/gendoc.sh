#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The generated regions of the docs: between
#   <!-- generated: rcuvfs-gendoc WHAT md -->  and  <!-- end generated -->
# a page holds rcuvfs-gendoc's output verbatim.
#
# usage: scripts/gendoc.sh GENDOC [--update]
#   GENDOC    the built helper (build/gen/rcuvfs-gendoc)
#   --update  rewrite the regions; without it, exit 1 naming every stale
#             region (the docs.generated test), so a switch or counter
#             whose text changed cannot leave its page behind.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/gendoc.sh GENDOC [--update]" >&2; exit 2; }
gendoc=$1
update=0
case "${2:-}" in
"") ;;
--update) update=1 ;;
*) echo "scripts/gendoc.sh: unknown option: $2" >&2; exit 2 ;;
esac
[ -x "$gendoc" ] || { echo "scripts/gendoc.sh: $gendoc: not an executable" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for page in $(grep -l '^<!-- generated: rcuvfs-gendoc ' docs/*.md); do
	# every region of the page, rebuilt from the helper's output
	awk -v gendoc="$gendoc" -v tmp="$tmp" '
		/^<!-- generated: rcuvfs-gendoc / {
			print
			cmd = gendoc " " $4 " " $5
			if (system(cmd " >" tmp "/out") != 0) { print "FAILED: " cmd > "/dev/stderr"; exit 1 }
			while ((getline line < (tmp "/out")) > 0) print line
			close(tmp "/out")
			skip = 1
			next
		}
		/^<!-- end generated -->/ { skip = 0 }
		!skip { print }
	' "$page" >"$tmp/page" || { echo "$page: rcuvfs-gendoc failed"; status=1; continue; }
	if ! cmp -s "$page" "$tmp/page"; then
		if [ $update = 1 ]; then
			cp "$tmp/page" "$page"
			echo "updated $page"
		else
			echo "$page: its generated region differs from rcuvfs-gendoc's output:"
			diff "$page" "$tmp/page" | head -20
			echo "(run scripts/gendoc.sh $gendoc --update)"
			status=1
		fi
	fi
done
exit $status
