/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlx5 firmware DCQCN parameters through debugfs:
 * <debugfs>/mlx5/<pci>/cc_params/<param>, where <pci> is the basename of
 * the /sys/class/infiniband/<ibdev>/device link.
 */
#ifndef ROCEPATHD_MLX5_H
#define ROCEPATHD_MLX5_H

#include "rpd_config.h"
#include "reconcile.h"

#define RPD_SYSFS_IB "/sys/class/infiniband"
#define RPD_DEBUGFS_MLX5 "/sys/kernel/debug/mlx5"

/*
 * Write every parameter in @v that has a cc_params file. Each write is
 * logged. Returns the number of files written; -ENOENT when the device has
 * no cc_params directory (debugfs not mounted, or not mlx5).
 */
int rpd_mlx5_cc_write(const char *sysfs_ib, const char *debugfs_mlx5,
		      const char *ibdev, const struct rpd_dcqcn_values *v);

#endif
