/*
 * formback-abandon: judges captured leads abandoned and schedules their deliveries (design 1).
 *
 * Its job arrives with a later issue.  Until then the binary has its final
 * name and options so the build, cron/formback.cron and the man page have
 * their final shape: it prints its usage and exits 2 (bad usage), and does
 * no work.
 */
#include <stdio.h>
#include <string.h>

int
main(int argc, char *argv[])
{
	int	 help = argc > 1 && strcmp(argv[1], "--help") == 0;

	fprintf(help ? stdout : stderr,
	    "usage: formback-abandon [--now <ISO 8601 Z>] [--limit N] [-v] [--help]\n"
	    "formback-abandon: judges captured leads abandoned and schedules their deliveries.\n"
	    "This release does not have this job yet; the pass does nothing.\n");
	return 2;
}
