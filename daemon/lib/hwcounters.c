// SPDX-License-Identifier: GPL-2.0
/*
 * A port's hardware counters from sysfs (hwcounters.h). The core reads the
 * driver at most once per "lifespan" (default 10 ms) and serves the cached
 * values in between, under its own per-port lock.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwcounters.h"

#define RP_SYSFS_IB	"/sys/class/infiniband"

static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char path[512];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%" SCNu64, v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rp_hw_counter *)a)->name,
		      ((const struct rp_hw_counter *)b)->name);
}

int rp_dev_hw_counters(struct rp_dev *d, const char *root)
{
	struct rp_hw_counter *v = NULL, *nv;
	size_t n = 0, cap = 0;
	char dir[384];
	struct dirent *e;
	int ret = 0;
	DIR *dp;

	if (d->ncounters)
		return 0;
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/hw_counters",
		 root ? root : RP_SYSFS_IB, d->ibdev, d->port);
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(dp))) {
		uint64_t val;

		/* lifespan is the cache's setting, not a counter */
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lifespan") ||
		    strlen(e->d_name) >= sizeof(v->name))
			continue;
		if (read_u64(dir, e->d_name, &val))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		strcpy(v[n].name, e->d_name);
		v[n].value = val;
		n++;
	}
	closedir(dp);
	if (ret) {
		free(v);
		return ret;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	d->counters = v;
	d->ncounters = n;
	return 0;
}
