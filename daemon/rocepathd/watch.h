/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watch files through their directories with inotify, so editors and
 * schedulers that replace a file (write a temp file, rename it over) are
 * seen as well as in-place writes. Events are matched by base name; a
 * Kubernetes-style "..data" symlink swap in the directory counts as a
 * change of every watched file in it.
 */
#ifndef ROCEPATHD_WATCH_H
#define ROCEPATHD_WATCH_H

#include <stddef.h>
#include <stdint.h>

#define RPD_WATCH_MAX 4

struct rpd_watch {
	int fd;
	size_t n;
	struct {
		char *path;
		char *dir;
		const char *base;	/* points into path */
		int wd;			/* -1 while the directory is missing */
	} f[RPD_WATCH_MAX];
};

int rpd_watch_open(struct rpd_watch *w);
void rpd_watch_close(struct rpd_watch *w);
/*
 * Watch @paths (replacing earlier ones). Returns the number of files whose
 * directory could not be watched yet (retry with rpd_watch_rearm()), or
 * -errno.
 */
int rpd_watch_set(struct rpd_watch *w, const char *const *paths, size_t n);
/* Retry directories that were missing; returns how many are still missing. */
int rpd_watch_rearm(struct rpd_watch *w);
/*
 * Drain pending events. Returns a bit mask of the files (bit i = paths[i])
 * that may have changed, or -errno. A watched directory that went away
 * is dropped (see rpd_watch_rearm) and its files reported changed.
 */
int rpd_watch_read(struct rpd_watch *w);

#endif
