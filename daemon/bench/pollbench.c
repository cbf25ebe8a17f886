// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of rocepathd's stat poll (rocepathd/statpoll.c) on given files
 * (scripts/bench/statpoll.sh runs it on a 131,072-GPU zone):
 *   pollbench N FILE...
 * polls N times with the files' mtimes an hour old (the steady state: one
 * open and fstat per file), then N times with them recent (each poll also
 * reads and hashes them), and prints one line of figures per case.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "rpd_log.h"
#include "statpoll.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
	double t0, dt;
	int changed = 0;

	if (rpd_statpoll_set(&sp, (const char *const *)files, n, 5000))
		return -1;
	bytes0 = sp.hashed_bytes;
	hashes0 = sp.hashes;
	t0 = cpu_s();
	for (int i = 0; i < polls; i++)
		changed |= rpd_statpoll_check(&sp);
	dt = cpu_s() - t0;
	printf("%-7s polls=%d us_per_poll=%.1f hashed_MiB_per_poll=%.2f hashes=%llu changed=%d cpu_share_at_5s=%.5f%%\n",
	       what, polls, dt / polls * 1e6,
	       (sp.hashed_bytes - bytes0) / (double)polls / (1 << 20),
	       (unsigned long long)(sp.hashes - hashes0), changed,
	       dt / polls / 5.0 * 100);
	rpd_statpoll_free(&sp);
	return 0;
}

int main(int argc, char **argv)
{
	int polls;

	if (argc < 3) {
		fprintf(stderr, "usage: pollbench N FILE...\n");
		return 2;
	}
	polls = atoi(argv[1]);
	if (polls <= 0 || argc - 2 > RPD_STATPOLL_MAX)
		return 2;
	rpd_log_set_level(RPD_LOG_ERR);
	if (touch_all(argv + 2, argc - 2, time(NULL) - 3600) ||
	    run("steady", argv + 2, argc - 2, polls))
		return 1;
	if (touch_all(argv + 2, argc - 2, time(NULL)) ||
	    run("recent", argv + 2, argc - 2, polls > 20 ? 20 : polls))
		return 1;
	return 0;
}
