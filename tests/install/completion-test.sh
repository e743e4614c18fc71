#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# completion-test.sh DIR BIN: the generated bash completions (DIR/rcuvfs-stress,
# DIR/rcuvfs) complete what the tools accept: switch names and values after
# -o and --sweep (also after a comma), workload names after --workload,
# long options; every switch and workload the tools list is offered.
set -u
dir=$1 bin=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# shellcheck disable=SC1090,SC1091
source "$dir/rcuvfs-stress" || { echo "FAIL: cannot source $dir/rcuvfs-stress"; exit 1; }
comp() { # FUNCTION WORDS...: COMPREPLY for the last word
	local fn=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn"
	echo "${COMPREPLY[*]}"
}
has() { [[ " $1 " == *" $2 "* ]] || bad "completing '$3': '$2' not offered (got: $1)"; }
r=$(comp _rcuvfs_stress rcuvfs-stress -o bkl=); has "$r" bkl=sem-fifo "-o bkl="; has "$r" bkl=sem-steal "-o bkl="
r=$(comp _rcuvfs_stress rcuvfs-stress -o filelock=inode,pte); has "$r" filelock=inode,pte_recheck= "-o ...,pte"
r=$(comp _rcuvfs_stress rcuvfs-stress --sweep fork_vma_lock=e); has "$r" fork_vma_lock=elide-single "--sweep"
r=$(comp _rcuvfs_stress rcuvfs-stress --workload lock); has "$r" lock1 "--workload lock"; has "$r" lock-verify "--workload lock"
r=$(comp _rcuvfs_stress rcuvfs-stress -w fstat1,page); has "$r" fstat1,page_fault2 "-w fstat1,page"
r=$(comp _rcuvfs_stress rcuvfs-stress --re); has "$r" --repeat "--re"
r=$(comp _rcuvfs_stress rcuvfs-stress -m ''); has "$r" processes "-m"
# everything the tool lists is offered
for w in $("$bin/rcuvfs-stress" --list | awk 'NR > 1 && /^[a-z]/ { print $1 }'); do
	r=$(comp _rcuvfs_stress rcuvfs-stress --workload "$w"); has "$r" "$w" "--workload $w"
done
for s in $("$bin/rcuvfs-stress" --help | sed -n '/^Model switches/,$p' | sed -n 's/^ *\([a-z_]*\)=.*/\1/p'); do
	r=$(comp _rcuvfs_stress rcuvfs-stress -o "$s"); has "$r" "$s=" "-o $s"
done
if [ -f "$dir/rcuvfs" ]; then
	# shellcheck disable=SC1090,SC1091
	source "$dir/rcuvfs"
	r=$(comp _rcuvfs rcuvfs /mnt -o filelock=); has "$r" filelock=bkl "rcuvfs -o filelock="
	r=$(comp _rcuvfs rcuvfs /mnt -o allow_other,max); has "$r" allow_other,max_threads "rcuvfs -o ...,max"
	r=$(comp _rcuvfs rcuvfs /mnt -o pte); [[ " $r " == *" pte_recheck="* ]] &&
		bad "rcuvfs -o offers pte_recheck, which the daemon refuses"
fi
[ $fail = 0 ] && echo "completion: ok"
exit $fail
