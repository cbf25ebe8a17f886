// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of rocepathd's stat poll (rocepathd/statpoll.c) on given files
 * (scripts/bench/statpoll.sh runs it on a 131,072-GPU zone):
 *   pollbench [steady|recent] N FILE...
 * polls N times with the files' mtimes an hour old (the steady state: one
 * open and fstat per file), then N times with them recent (each poll also
 * reads and hashes them), and prints a table, one row per case: CPU and
 * wall time per poll (on NFS the wall time holds the round trips the
 * opens make; scripts/bench/statpoll_nfs.sh), MiB hashed per poll and
 * the share of one core the poll takes at the default 5 s interval.
 * Naming a case runs only that one (statpoll_nfs.sh counts each one's
 * NFS calls).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rpd_log.h"
#include "statpoll.h"

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int touch_all(char **files, int n, time_t when)
{
	for (int i = 0; i < n; i++) {
		struct timespec t[2] = { { .tv_nsec = UTIME_NOW },
					 { .tv_sec = when } };

		if (utimensat(AT_FDCWD, files[i], t, 0)) {
			perror(files[i]);
			return -1;
		}
	}
	return 0;
}

static int run(const char *what, char **files, int n, int polls)
{
	struct rpd_statpoll sp = { 0 };
	uint64_t bytes0, hashes0;
	double t0, w0, dt, dw;
	int changed = 0;

	if (rpd_statpoll_set(&sp, (const char *const *)files, n, 5000))
		return -1;
	bytes0 = sp.hashed_bytes;
	hashes0 = sp.hashes;
	t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	w0 = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < polls; i++)
		changed |= rpd_statpoll_check(&sp);
	dt = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
	dw = clock_s(CLOCK_MONOTONIC) - w0;
	printf("%-7s %6d %12.1f %13.1f %16.2f %7llu %8d %13.5f\n",
	       what, polls, dt / polls * 1e6, dw / polls * 1e6,
	       (sp.hashed_bytes - bytes0) / (double)polls / (1 << 20),
	       (unsigned long long)(sp.hashes - hashes0), changed,
	       dt / polls / 5.0 * 100);
	rpd_statpoll_free(&sp);
	return 0;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int polls;

	if (argc > 1 && (!strcmp(argv[1], "steady") || !strcmp(argv[1], "recent"))) {
		only = argv[1];
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pollbench [steady|recent] N FILE...\n");
		return 2;
	}
	polls = atoi(argv[1]);
	if (polls <= 0 || argc - 2 > RPD_STATPOLL_MAX)
		return 2;
	rpd_log_set_level(RPD_LOG_ERR);
	printf("%-7s %6s %12s %13s %16s %7s %8s %13s\n", "case", "polls",
	       "cpu_us/poll", "wall_us/poll", "hashed_MiB/poll", "hashes",
	       "changed", "core_at_5s_%");
	if (!only || !strcmp(only, "steady")) {
		if (touch_all(argv + 2, argc - 2, time(NULL) - 3600) ||
		    run("steady", argv + 2, argc - 2, polls))
			return 1;
	}
	if (!only || !strcmp(only, "recent")) {
		if (touch_all(argv + 2, argc - 2, time(NULL)) ||
		    run("recent", argv + 2, argc - 2, polls > 20 ? 20 : polls))
			return 1;
	}
	return 0;
}
