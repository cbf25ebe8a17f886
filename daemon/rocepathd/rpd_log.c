// SPDX-License-Identifier: GPL-2.0
/* rocepathd logging to stderr, journal-aware. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "rpd_log.h"

static int log_level = RPD_LOG_INFO;
static int log_journal;

/*
 * systemd sets JOURNAL_STREAM=<dev>:<ino> for the stream it hands us; it
 * only counts when stderr is still that stream (not redirected by a shell).
 */
void rpd_log_init(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_journal = 0;
	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return;
	if (fstat(2, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
		log_journal = 1;
}

void rpd_log_set_level(int level)
{
	log_level = level;
}

int rpd_log_get_level(void)
{
	return log_level;
}

void rpd_log(int level, const char *fmt, ...)
{
	char line[4096];
	int saved = errno;
	va_list ap;
	int n;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	if (log_journal) {
		fprintf(stderr, "<%d>%s\n", level, line);
	} else {
		struct timespec ts;
		struct tm tm;
		char stamp[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ldZ rocepathd %s: %s\n", stamp,
			ts.tv_nsec / 1000000, rpd_log_level_name(level), line);
	}
	fflush(stderr);
out:
	errno = saved;
}
