// SPDX-License-Identifier: GPL-2.0
/* The stat poll of the topology and placement files (statpoll.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "rpd_log.h"
#include "statpoll.h"

#define READ_CHUNK 65536

void rpd_statpoll_free(struct rpd_statpoll *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->f[i].path);
	memset(sp, 0, sizeof(*sp));
}

static int hash_fd(int fd, uint64_t *out, uint64_t *bytes)
{
	uint64_t h = RP_FNV1A64_INIT;
	char *buf = malloc(READ_CHUNK);
	off_t off = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((n = pread(fd, buf, READ_CHUNK, off)) > 0) {
		h = rp_fnv1a64(h, buf, n);
		off += n;
	}
	free(buf);
	if (n < 0)
		return -errno;
	*out = h;
	*bytes += off;
	return 0;
}

/* The mtime is close enough to now that a rewrite may keep it. */
static bool recent(const struct rpd_statpoll *sp, const struct stat *st)
{
	time_t now = time(NULL), age = now - st->st_mtim.tv_sec;
	time_t window = (sp->interval_ms + 999) / 1000 + RPD_STATPOLL_SLACK_S;

	return age < window && age > -window;
}

/* 1 when file @f changed since its last poll, else 0. */
static int poll_one(struct rpd_statpoll *sp, struct rpd_statpoll_file *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool changed;
	struct stat st;
	uint64_t h = 0;

	if (fd >= 0 && fstat(fd, &st)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		changed = f->present;
		f->present = false;
		f->hashed = false;
		return changed;
	}
	changed = !f->present || f->dev != st.st_dev || f->ino != st.st_ino ||
		  f->size != (uint64_t)st.st_size ||
		  f->mtime.tv_sec != st.st_mtim.tv_sec ||
		  f->mtime.tv_nsec != st.st_mtim.tv_nsec;
	f->present = true;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	if (changed)
		f->hashed = false;
	if (S_ISREG(st.st_mode) && recent(sp, &st)) {
		if (!hash_fd(fd, &h, &sp->hashed_bytes)) {
			sp->hashes++;
			if (f->hashed && f->hash != h) {
				rpd_dbg("poll: %s: same attributes, new content",
					f->path);
				changed = true;
			}
			f->hash = h;
			f->hashed = true;
		}
	} else {
		/* an old mtime is trusted; hash again only once it moves */
		f->hashed = false;
	}
	close(fd);
	return changed;
}

int rpd_statpoll_check(struct rpd_statpoll *sp)
{
	int changed = 0;

	sp->polls++;
	for (size_t i = 0; i < sp->n; i++)
		if (poll_one(sp, &sp->f[i]))
			changed |= 1 << i;
	return changed;
}

int rpd_statpoll_set(struct rpd_statpoll *sp, const char *const *paths,
		     size_t n, int interval_ms)
{
	rpd_statpoll_free(sp);
	if (n > RPD_STATPOLL_MAX)
		return -E2BIG;
	sp->interval_ms = interval_ms;
	for (size_t i = 0; i < n; i++) {
		sp->f[i].path = strdup(paths[i]);
		sp->n = i + 1;
		if (!sp->f[i].path)
			return -ENOMEM;
	}
	rpd_statpoll_check(sp);
	return 0;
}
