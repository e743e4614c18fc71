#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the documentation (a CTest test, label unit):
# - README.md has at most 300 lines; every docs/*.md page starts with a
#   title and a table of contents equal to what scripts/docs-toc.sh prints;
# - every relative link [text](path#anchor) in README.md and docs/ names a
#   file of the tree and, with an anchor, a heading of that file;
# - a block between <!-- include FILE --> and <!-- /include --> shows FILE
#   verbatim inside one fenced code block;
# - no page speaks of tracker issue numbers, "targets met", "today" (a
#   figure names its commit instead) or files kept outside the repository;
# - no source (*.c, *.h, *.sh, CMakeLists.txt, *.cmake) speaks of the
#   project's history instead of the code: tracker issue numbers, the
#   seed threads' file names (seeds/NNN), files outside the repository,
#   "today".
set -u
cd "$(dirname "$0")/.."
status=0
tmp=${TMPDIR:-/tmp}/rcuvfs-docs.$$
trap 'rm -f "$tmp".*' EXIT
fail() { echo "$*"; status=1; }

n=$(wc -l <README.md)
[ "$n" -le 300 ] || fail "README.md: $n lines (at most 300)"
pages="README.md $(ls docs/*.md)"
for p in docs/*.md; do
	head -1 "$p" | grep -q '^# ' || fail "$p: does not start with a '# ' title"
	sed -n '/^<!-- toc -->$/,/^<!-- \/toc -->$/p' "$p" | sed '1d;$d' >"$tmp.have"
	sh scripts/docs-toc.sh "$p" >"$tmp.want"
	[ -s "$tmp.want" ] || continue
	grep -q '^<!-- toc -->$' "$p" || { fail "$p: no <!-- toc --> block"; continue; }
	cmp -s "$tmp.have" "$tmp.want" ||
		fail "$p: table of contents out of date (scripts/docs-toc.sh --update $p)"
done
for p in $pages; do
	dir=$(dirname "$p")
	# links outside code blocks; http(s) and mailto links are not checked
	awk '/^```/ { code = !code; next } !code' "$p" |
		grep -o '\](\([^)]*\))' | sed 's/^](//; s/)$//' |
		grep -v '^[a-z]*:' >"$tmp.links" || true
	while read -r l; do
		file=${l%%#*}
		anchor=
		case "$l" in *'#'*) anchor=${l#*#} ;; esac
		if [ -z "$file" ]; then target=$p; else target=$dir/$file; fi
		[ -e "$target" ] || { fail "$p: link to missing $target"; continue; }
		[ -z "$anchor" ] && continue
		case "$target" in *.md) ;; *) continue ;; esac
		sh scripts/docs-toc.sh --anchors "$target" | grep -qxF "$anchor" ||
			fail "$p: link to missing heading $target#$anchor"
	done <"$tmp.links"
	# included sources
	grep -o '^<!-- include [^ ]* -->$' "$p" | sed 's/^<!-- include //; s/ -->$//' |
		while read -r inc; do
			awk -v f="$inc" '
				$0 == "<!-- include " f " -->" { on = 1; next }
				on && /^<!-- \/include -->$/ { exit }
				on' "$p" | sed '1d;$d' >"$tmp.inc"
			cmp -s "$tmp.inc" "$inc" ||
				{ echo "$p: the copy of $inc differs from the file"; echo x >>"$tmp.bad"; }
		done
	if grep -n -i -E 'SEEDS\.md|\.\./shared|issue [0-9#]|#[0-9]+\b.*issue|target(s)? (is |are )?met|\btarget [<>=0-9]|\btoday\b' "$p"; then
		fail "$p: speaks of issues, targets, today or files outside the repository"
	fi
done
# sources: the same words, and "today" (a comment states what the code does,
# whatever the day); this script, which names them, is not checked
srcs=$(git ls-files '*.c' '*.h' '*.sh' '*CMakeLists.txt' '*.cmake' 2>/dev/null ||
	find . -name build -prune -o \( -name '*.[ch]' -o -name '*.sh' -o -name CMakeLists.txt \
		-o -name '*.cmake' \) -print)
for f in $srcs; do
	[ "$f" = scripts/check-docs.sh ] && continue
	if grep -n -i -E 'SEEDS\.md|\.\./shared|seeds/[0-9]|\bissues? [0-9#]|\(issue|#[0-9]+\b.*issue|\btoday\b' "$f"; then
		fail "$f: a comment speaks of issues, seed files or today, not of the code"
	fi
done
[ -s "$tmp.bad" ] 2>/dev/null && status=1
[ $status = 0 ] && echo "docs: ok"
exit $status
