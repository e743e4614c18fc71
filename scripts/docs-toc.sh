#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# docs-toc.sh FILE: print the table of contents of a Markdown page, one line
# per "## " and "### " heading outside code blocks, linked with GitHub's
# anchor rule (lower case; punctuation other than '-' and '_' dropped;
# spaces become '-'; a repeated anchor gets -1, -2, ...).
# docs-toc.sh --anchors FILE: print every heading's anchor, one per line.
# docs-toc.sh --update FILE...: rewrite each FILE's <!-- toc --> block.
# check-docs.sh compares the first with the block between <!-- toc --> and
# <!-- /toc --> of each page and resolves links with the second.
set -eu
mode=toc
[ "$1" = --anchors ] && { mode=anchors; shift; }
if [ "$1" = --update ]; then
	shift
	for f in "$@"; do
		grep -q '^<!-- toc -->$' "$f" || { echo "docs-toc: $f: no <!-- toc --> line" >&2; exit 1; }
		toc=$(sh "$0" "$f")
		awk -v toc="$toc" '
			$0 == "<!-- toc -->" { print; print toc; skip = 1; next }
			$0 == "<!-- /toc -->" { skip = 0 }
			!skip' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
	done
	exit 0
fi
awk -v mode="$mode" '
/^```/ { code = !code; next }
code { next }
/^#+ / {
	match($0, /^#+/); level = RLENGTH
	title = substr($0, level + 2)
	a = tolower(title)
	gsub(/[^a-z0-9 _-]/, "", a)
	gsub(/ /, "-", a)
	if (a in seen) { seen[a]++; a = a "-" seen[a] } else seen[a] = 0
	if (mode == "anchors") { print a; next }
	if (level < 2 || level > 3) next
	print ((level == 3) ? "  " : "") "- [" title "](#" a ")"
}' "$1"
