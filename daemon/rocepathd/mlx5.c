// SPDX-License-Identifier: GPL-2.0
/* mlx5 debugfs cc_params writer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpd_log.h"
#include "mlx5.h"

static int write_file(const char *path, uint32_t val)
{
	char buf[16];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u\n", val);
	if (write(fd, buf, len) != len)
		ret = errno ? -errno : -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

int rpd_mlx5_cc_write(const char *sysfs_ib, const char *debugfs_mlx5,
		      const char *ibdev, const struct rpd_dcqcn_values *v)
{
	char link[PATH_MAX], target[PATH_MAX], dir[PATH_MAX], file[PATH_MAX];
	const char *pci;
	struct stat st;
	int n = 0, first = 0;
	ssize_t len;

	if (snprintf(link, sizeof(link), "%s/%s/device", sysfs_ib, ibdev) >=
	    (int)sizeof(link))
		return -ENAMETOOLONG;
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return -errno;
	target[len] = '\0';
	pci = strrchr(target, '/');
	pci = pci ? pci + 1 : target;
	if (snprintf(dir, sizeof(dir), "%s/%s/cc_params", debugfs_mlx5, pci) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rpd_info("dcqcn: %s: no %s (debugfs not mounted?), firmware DCQCN left as is",
			 ibdev, dir);
		return -ENOENT;
	}
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++) {
		int attr = rp_dcqcn_params[i].attr, ret;

		/* np_enable and rp_enable switch the module's soft-RoCE NP/RP: mlx5 has no such file. */
		if (!(v->set & (1ULL << i)) || attr == ROCEPATH_A_DCQCN_NP_ENABLE ||
		    attr == ROCEPATH_A_DCQCN_RP_ENABLE)
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", dir,
			     rp_dcqcn_params[i].name) >= (int)sizeof(file))
			continue;
		if (access(file, F_OK) < 0)
			continue;
		ret = write_file(file, v->val[i]);
		if (ret) {
			rpd_warn("dcqcn: %s: writing %u to %s failed: %s", ibdev,
				 v->val[i], file, strerror(-ret));
			if (!first)
				first = ret;
			continue;
		}
		rpd_info("dcqcn: %s: wrote %u to %s", ibdev, v->val[i], file);
		n++;
	}
	return n ? n : first;
}
