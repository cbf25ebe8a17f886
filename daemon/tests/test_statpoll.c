// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd's stat poll (statpoll.c) sees what inotify cannot: a new size,
 * mtime or inode, a file that went or came back, and, while the mtime is
 * recent, a same-size rewrite that kept every attribute (content hash);
 * a file whose mtime is old costs an fstat and no read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#include "rpd_log.h"
#include "statpoll.h"

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Sets @path's mtime to @ts (atime now). */
static int set_mtime(const char *path, struct timespec ts)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_NOW }, ts };

	return utimensat(AT_FDCWD, path, t, 0);
}

FIXTURE(sp) {
	char dir[64], a[128], b[128], tmp[128];
	struct rpd_statpoll sp;
};

FIXTURE_SETUP(sp)
{
	const char *paths[2];

	rpd_log_set_level(RPD_LOG_ERR);
	strcpy(self->dir, "/tmp/rocepathd-poll-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->a, sizeof(self->a), "%s/topology.json", self->dir);
	snprintf(self->b, sizeof(self->b), "%s/placement.json", self->dir);
	snprintf(self->tmp, sizeof(self->tmp), "%s/.placement.tmp", self->dir);
	ASSERT_EQ(0, put(self->a, "{}"));
	ASSERT_EQ(0, put(self->b, "{\"jobs\": [1]}"));
	paths[0] = self->a;
	paths[1] = self->b;
	memset(&self->sp, 0, sizeof(self->sp));
	ASSERT_EQ(0, rpd_statpoll_set(&self->sp, paths, 2, 1000));
}

FIXTURE_TEARDOWN(sp)
{
	rpd_statpoll_free(&self->sp);
	unlink(self->a);
	unlink(self->b);
	unlink(self->tmp);
	rmdir(self->dir);
}

/* Files nobody touches never count as changed. */
TEST_F(sp, quiet_files)
{
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
}

/* A write that changes the size marks exactly that file, once. */
TEST_F(sp, size_change)
{
	ASSERT_EQ(0, put(self->b, "{\"jobs\": [1, 2]}"));
	EXPECT_EQ(1 << 1, rpd_statpoll_check(&self->sp));
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
	ASSERT_EQ(0, put(self->a, "{ }"));
	EXPECT_EQ(1 << 0, rpd_statpoll_check(&self->sp));
}

/* A file renamed over with the same size and mtime: a new inode. */
TEST_F(sp, rename_over)
{
	struct stat st;

	ASSERT_EQ(0, stat(self->b, &st));
	ASSERT_EQ(0, put(self->tmp, "{\"jobs\": [2]}"));
	ASSERT_EQ(0, set_mtime(self->tmp, st.st_mtim));
	ASSERT_EQ(0, rename(self->tmp, self->b));
	EXPECT_EQ(1 << 1, rpd_statpoll_check(&self->sp));
}

/*
 * A same-size rewrite that keeps dev, inode, size and mtime (a write within
 * one timestamp tick) is told by the content hash while the mtime is
 * recent, and a rewrite with the same bytes is no change.
 */
TEST_F(sp, same_attributes_new_content)
{
	uint64_t hashes = self->sp.hashes;
	struct stat st;

	ASSERT_EQ(0, stat(self->b, &st));
	ASSERT_EQ(0, put(self->b, "{\"jobs\": [7]}"));
	ASSERT_EQ(0, set_mtime(self->b, st.st_mtim));
	EXPECT_EQ(1 << 1, rpd_statpoll_check(&self->sp));
	EXPECT_LT(hashes, self->sp.hashes);
	ASSERT_EQ(0, put(self->b, "{\"jobs\": [7]}"));
	ASSERT_EQ(0, set_mtime(self->b, st.st_mtim));
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
}

/* Files with an old mtime are not read: the poll is one fstat each. */
TEST_F(sp, old_files_are_not_read)
{
	struct timespec old = { .tv_sec = time(NULL) - 3600 };
	uint64_t hashes, bytes;

	ASSERT_EQ(0, set_mtime(self->a, old));
	ASSERT_EQ(0, set_mtime(self->b, old));
	EXPECT_EQ(3, rpd_statpoll_check(&self->sp));
	hashes = self->sp.hashes;
	bytes = self->sp.hashed_bytes;
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
	EXPECT_EQ(hashes, self->sp.hashes);
	EXPECT_EQ(bytes, self->sp.hashed_bytes);
	/* a change moves the mtime to now: read again */
	ASSERT_EQ(0, put(self->b, "{\"jobs\": [9]}"));
	EXPECT_EQ(1 << 1, rpd_statpoll_check(&self->sp));
	EXPECT_LT(hashes, self->sp.hashes);
}

/* A file that goes away and comes back is a change both times. */
TEST_F(sp, delete_and_create)
{
	ASSERT_EQ(0, unlink(self->a));
	EXPECT_EQ(1 << 0, rpd_statpoll_check(&self->sp));
	EXPECT_EQ(0, rpd_statpoll_check(&self->sp));
	ASSERT_EQ(0, put(self->a, "{}"));
	EXPECT_EQ(1 << 0, rpd_statpoll_check(&self->sp));
}

/* More files than the poll keeps are refused. */
TEST(too_many_files)
{
	const char *paths[RPD_STATPOLL_MAX + 1] = { "/a", "/b", "/c", "/d", "/e" };
	struct rpd_statpoll sp = { 0 };

	EXPECT_EQ(-E2BIG, rpd_statpoll_set(&sp, paths, RPD_STATPOLL_MAX + 1, 1000));
	rpd_statpoll_free(&sp);
}

TEST_HARNESS_MAIN
