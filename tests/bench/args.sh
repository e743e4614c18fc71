# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/args.sh - the command line of the benchmark scripts, sourced
# by them (POSIX sh): the tools' grammar (tools/cli.h) where it applies to
# a script, in one place.
#
#   -b, --build DIR      the build tree (default build)
#   -n, --iters N        iterations (what a script counts: its usage says)
#   -r, --repeat N       rounds
#   -d, --duration S     seconds per measurement
#   -t, --tasks LIST     worker (task) counts
#   -h, --help           the script's usage on stdout, exit 0
#
# Before sourcing, a script sets bench_usage (its usage text) and
# bench_takes (the option names it takes besides --build and --help, e.g.
# "iters repeat"; a name of its own such as "vmas" makes --vmas VALUE set
# OPT_VMAS), and may set the defaults BUILD, ITERS, REPEAT, DURATION, TASKS;
# then it calls bench_args "$@".  For older command lines the
# operands BUILD [ITERS [EXTRA]] still work (EXTRA: what the script's usage
# says; bench_operand2=extra makes the second operand EXTRA instead); the
# operands are also in OPERAND_1, OPERAND_2 and OPERAND_3.  With
# bench_more=1, NAME=VALUE operands (no spaces) collect in BENCH_MORE.  An unknown option, a missing value or a value that is not a
# number is one line on stderr and exit 2.
bench_bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}

bench_args() {
	_pos=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help)
			printf '%s\n' "$bench_usage"
			exit 0
			;;
		-b | --build | -n | --iters | -r | --repeat | -d | --duration | -t | --tasks)
			case " build $bench_takes " in
			*" $(bench_long "$1") "*) ;;
			*) bench_bad "unknown option '$1' (try --help)" ;;
			esac
			[ $# -ge 2 ] || bench_bad "option '$1' needs a value (try --help)"
			bench_set "$(bench_long "$1")" "$1" "$2"
			shift 2
			;;
		--) shift; break ;;
		--*)
			# a script's own option with a value: a name in bench_takes
			# beyond the shared ones; its value goes to OPT_NAME
			_n=${1#--}
			case " $bench_takes " in
			*" $_n "*) ;;
			*) bench_bad "unknown option '$1' (try --help)" ;;
			esac
			[ $# -ge 2 ] || bench_bad "option '$1' needs a value (try --help)"
			eval "OPT_$(echo "$_n" | tr a-z- A-Z_)=\$2"
			shift 2
			;;
		-*) bench_bad "unknown option '$1' (try --help)" ;;
		*=*)
			# NAME=VALUE operands, for the scripts that take them
			[ -n "${bench_more:-}" ] || bench_bad "unexpected argument '$1' (try --help)"
			BENCH_MORE="${BENCH_MORE:-}${BENCH_MORE:+ }$1"
			shift
			;;
		*)
			_pos=$((_pos + 1))
			eval "OPERAND_$_pos=\$1"
			case $_pos in
			1) BUILD=$1 ;;
			2) if [ "${bench_operand2:-iters}" = iters ]; then
				bench_set iters "$1" "$1"
			else
				EXTRA=$1
			fi ;;
			3) EXTRA=$1 ;;
			*) bench_bad "unexpected argument '$1' (try --help)" ;;
			esac
			shift
			;;
		esac
	done
	[ $# -eq 0 ] || bench_bad "unexpected argument '$1' (try --help)"
}

bench_long() {
	case $1 in
	-b | --build) echo build ;;
	-n | --iters) echo iters ;;
	-r | --repeat) echo repeat ;;
	-d | --duration) echo duration ;;
	-t | --tasks) echo tasks ;;
	esac
}

# bench_set NAME OPTION VALUE
bench_set() {
	case $1 in
	build) BUILD=$3 ;;
	iters | repeat)
		case $3 in '' | *[!0-9]* | 0) bench_bad "$2: '$3' is not a positive integer" ;; esac
		if [ "$1" = iters ]; then ITERS=$3; else REPEAT=$3; fi
		;;
	duration)
		case $3 in '' | *[!0-9.]* | *.*.*) bench_bad "$2: '$3' is not a number of seconds" ;; esac
		DURATION=$3
		;;
	tasks)
		case $3 in '' | *[!0-9,\ ]*) bench_bad "$2: '$3' is not a list of counts" ;; esac
		TASKS=$(echo "$3" | tr , ' ')
		;;
	esac
}
