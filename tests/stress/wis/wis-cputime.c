// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/wis/wis-cputime.c - the CPU time of a command and of every
 * process it leaves behind, for tests/bench/wis-compare.sh.
 *
 *   wis-cputime COMMAND [ARG...]
 *
 * will-it-scale's runner kills its worker processes at the end and exits
 * without waiting for them, so a shell's `time` never sees their CPU time.
 * This program makes itself the child subreaper (PR_SET_CHILD_SUBREAPER):
 * the orphaned workers are re-parented to it, it waits for each of them and
 * for the command, then prints "wis-cputime CPU_SECONDS" (user + system of
 * all of them, RUSAGE_CHILDREN) on stderr.  The command's stdout and
 * stdin are its own.  Exit status: the command's (128 + signal if killed),
 * 2 if it could not be started.
 */
#include "tools/cli.h"

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: wis-cputime COMMAND [ARG...]\n"
		     "Runs COMMAND as a child subreaper and prints the CPU seconds it and all\n"
		     "its descendants used (tests/bench/wis-compare.sh).\n"
		     "  -V, --version  version and git commit\n"
		     "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid, p;
	int st, rc = 0;

	RV_CLI_OPERANDS(argc, argv, "wis-cputime", usage);
	if (argc < 2) {
		fprintf(stderr, "usage: wis-cputime COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		perror("wis-cputime: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("wis-cputime: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("wis-cputime: exec");
		_exit(127);
	}
	/* the command, then every descendant re-parented to us */
	while ((p = wait(&st)) > 0 || (p < 0 && errno == EINTR)) {
		if (p != pid)
			continue;
		if (WIFEXITED(st))
			rc = WEXITSTATUS(st);
		else if (WIFSIGNALED(st))
			rc = 128 + WTERMSIG(st);
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	fprintf(stderr, "wis-cputime %.6f\n",
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
		    ru.ru_stime.tv_usec * 1e-6);
	return rc;
}
