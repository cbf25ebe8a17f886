/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stat poll of the watched files, beside inotify: on NFS (and any file
 * system whose writes on another host raise no inotify event here) the
 * poll is what sees a new placement. Each poll opens the file and fstat()s
 * it, because on NFS the open revalidates the attributes (close-to-open
 * consistency) where a plain stat() may answer from the attribute cache
 * for up to acregmax (60 s). A file counts as changed when its inode,
 * device, size or mtime differ from the last poll, or it appeared or went
 * away. A rewrite that keeps all four cannot be told apart by them when it
 * lands within one timestamp tick of the last, so while the mtime is
 * recent (within the poll interval plus RPD_STATPOLL_SLACK_S of now) the
 * content is hashed as well; an older file costs one open and fstat.
 */
#ifndef ROCEPATHD_STATPOLL_H
#define ROCEPATHD_STATPOLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define RPD_STATPOLL_MAX 4
/*
 * Coarse timestamps (1 s on NFSv3 servers on ext3, 2 s on FAT) and clock
 * skew between the NFS server that stamps mtime and this host.
 */
#define RPD_STATPOLL_SLACK_S 2

struct rpd_statpoll_file {
	char *path;
	bool present;
	uint64_t dev, ino, size;
	struct timespec mtime;
	bool hashed;		/* hash is of the content with these attributes */
	uint64_t hash;
};

struct rpd_statpoll {
	size_t n;
	int interval_ms;
	struct rpd_statpoll_file f[RPD_STATPOLL_MAX];
	uint64_t polls, hashes;	/* for the metrics and the benchmark */
	uint64_t hashed_bytes;
};

/*
 * Poll @paths every @interval_ms (0: off), replacing earlier ones. The
 * files' current state is taken as the baseline. -errno.
 */
int rpd_statpoll_set(struct rpd_statpoll *sp, const char *const *paths,
		     size_t n, int interval_ms);
void rpd_statpoll_free(struct rpd_statpoll *sp);
/*
 * Check every file now: a bit mask of the files (bit i = paths[i]) that
 * changed since the last check, and the new state is the baseline.
 */
int rpd_statpoll_check(struct rpd_statpoll *sp);

#endif
