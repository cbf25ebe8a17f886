// SPDX-License-Identifier: GPL-2.0
/* inotify directory watches for the topology and placement files. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "rpd_log.h"
#include "watch.h"

#define DIR_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | \
		  IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | \
		  IN_ONLYDIR)

int rpd_watch_open(struct rpd_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	return 0;
}

static void clear(struct rpd_watch *w)
{
	for (size_t i = 0; i < w->n; i++) {
		bool shared = false;

		for (size_t j = 0; j < i; j++)
			if (w->f[j].wd == w->f[i].wd)
				shared = true;
		if (w->f[i].wd >= 0 && !shared)
			inotify_rm_watch(w->fd, w->f[i].wd);
		free(w->f[i].path);
		free(w->f[i].dir);
	}
	w->n = 0;
}

void rpd_watch_close(struct rpd_watch *w)
{
	clear(w);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static int arm(struct rpd_watch *w, size_t i)
{
	int wd = inotify_add_watch(w->fd, w->f[i].dir, DIR_MASK);

	if (wd < 0) {
		w->f[i].wd = -1;
		return -errno;
	}
	/* Several files in one directory share the watch descriptor. */
	w->f[i].wd = wd;
	return 0;
}

int rpd_watch_set(struct rpd_watch *w, const char *const *paths, size_t n)
{
	int missing = 0;

	if (n > RPD_WATCH_MAX)
		return -E2BIG;
	clear(w);
	for (size_t i = 0; i < n; i++) {
		char *slash;

		w->f[i].path = strdup(paths[i]);
		w->f[i].dir = strdup(paths[i]);
		w->f[i].wd = -1;
		w->n = i + 1;
		if (!w->f[i].path || !w->f[i].dir)
			return -ENOMEM;
		slash = strrchr(w->f[i].dir, '/');
		if (slash == w->f[i].dir) {
			slash[1] = '\0';
		} else if (slash) {
			*slash = '\0';
		} else {
			free(w->f[i].dir);
			w->f[i].dir = strdup(".");
			if (!w->f[i].dir)
				return -ENOMEM;
		}
		slash = strrchr(w->f[i].path, '/');
		w->f[i].base = slash ? slash + 1 : w->f[i].path;
		if (arm(w, i)) {
			rpd_warn("watch: directory %s of %s: %s; will retry",
				 w->f[i].dir, w->f[i].path, strerror(errno));
			missing++;
		} else {
			rpd_dbg("watch: %s in %s", w->f[i].base, w->f[i].dir);
		}
	}
	return missing;
}

int rpd_watch_rearm(struct rpd_watch *w)
{
	int missing = 0;

	for (size_t i = 0; i < w->n; i++) {
		if (w->f[i].wd >= 0)
			continue;
		if (arm(w, i))
			missing++;
		else
			rpd_info("watch: directory %s is back, watching %s",
				 w->f[i].dir, w->f[i].base);
	}
	return missing;
}

int rpd_watch_read(struct rpd_watch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;

	for (;;) {
		ssize_t len = read(w->fd, buf, sizeof(buf));
		const struct inotify_event *ev;

		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		if (len == 0)
			break;
		for (char *p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				rpd_warn("watch: inotify queue overflow, rereading every file");
				changed |= (1 << w->n) - 1;
				continue;
			}
			for (size_t i = 0; i < w->n; i++) {
				if (w->f[i].wd != ev->wd)
					continue;
				if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
					if (ev->mask & IN_IGNORED)
						w->f[i].wd = -1;
					changed |= 1 << i;
					continue;
				}
				if (!ev->len)
					continue;
				if (!strcmp(ev->name, w->f[i].base) ||
				    !strcmp(ev->name, "..data")) {
					rpd_dbg("watch: %s: event 0x%x", w->f[i].path,
						ev->mask);
					changed |= 1 << i;
				}
			}
		}
	}
	/* A directory that was moved away is watched again by path. */
	for (size_t i = 0; i < w->n; i++) {
		if (w->f[i].wd >= 0 || !(changed & (1 << i)))
			continue;
		rpd_warn("watch: directory %s went away; will retry", w->f[i].dir);
	}
	return changed;
}
