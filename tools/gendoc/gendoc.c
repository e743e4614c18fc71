// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/gendoc/gendoc.c - the reference pages generated from the code.
 *
 *   rcuvfs-gendoc switches md|scd|text   the switch table (vfs/base/switches.c)
 *   rcuvfs-gendoc counters md|text       the counter glossary (RV_STAT_DEFINE
 *                                        and gauge help strings)
 *
 * A build-time helper, not installed: CMake runs it to fill the switch
 * section of the man pages and the docs.generated test compares its output
 * with docs/switches.md and docs/counters.md.  It links the whole model
 * library, so every counter any program can have is registered, and creates
 * one instance with the default switches so the gauges register too.
 * Exit 1 if a switch, value or counter has no help text; 2 on bad usage.
 */
#include "vfs/base/base.h"

#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: rcuvfs-gendoc switches md|scd|text | counters md|text\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct rv_switches sw;
	int fmt, ret;

	if (argc != 3)
		return usage();
	if (!strcmp(argv[2], "md"))
		fmt = RV_DOC_MD;
	else if (!strcmp(argv[2], "scd"))
		fmt = RV_DOC_SCD;
	else if (!strcmp(argv[2], "text"))
		fmt = RV_DOC_TEXT;
	else
		return usage();
	if (!strcmp(argv[1], "switches"))
		return rv_switches_doc(stdout, fmt) ? 1 : 0;
	if (strcmp(argv[1], "counters") || fmt == RV_DOC_SCD)
		return usage();
	rv_switches_default(&sw);
	ret = rv_instance_create(&sw);
	if (ret) {
		fprintf(stderr, "rcuvfs-gendoc: instance: %s\n", strerror(-ret));
		return 1;
	}
	ret = rv_stats_doc(stdout, fmt);
	rv_instance_destroy();
	return ret ? 1 : 0;
}
