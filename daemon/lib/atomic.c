// SPDX-License-Identifier: GPL-2.0
/* Atomic file replacement (atomic.h): a temporary file, then rename(2). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"

int rp_write_atomic(const char *path, bool sync,
		    int (*render)(FILE *fp, void *arg), void *arg)
{
	char *dir = strdup(path), *base = strdup(path), *tmp = NULL;
	FILE *fp = NULL;
	int fd = -1, ret;

	if (!dir || !base ||
	    asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dir), basename(base)) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (fchmod(fd, 0644) < 0) {
		ret = -errno;
		goto unlink;
	}
	fp = fdopen(fd, "w");
	if (!fp) {
		ret = -errno;
		goto unlink;
	}
	fd = -1;
	ret = render(fp, arg);
	if (!ret && fflush(fp))
		ret = -errno;
	if (!ret && sync && fsync(fileno(fp)))
		ret = -errno;
	if (fclose(fp) && !ret)
		ret = -errno;
	fp = NULL;
	if (ret)
		goto unlink;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto unlink;
	}
	goto out;
unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(tmp);
	free(dir);
	free(base);
	return ret;
}

bool rp_dir_of_exists(const char *path)
{
	char *dup = strdup(path);
	struct stat st;
	bool ok;

	if (!dup)
		return false;
	ok = !stat(dirname(dup), &st) && S_ISDIR(st.st_mode);
	free(dup);
	return ok;
}
