/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A port's hardware counters, read from the RDMA core's cached copies in
 * sysfs rather than through the module: the module no longer calls the
 * driver for them (Documentation/module-safety.rst).
 */
#ifndef RP_HWCOUNTERS_H
#define RP_HWCOUNTERS_H

#include "objs.h"

/*
 * Fills d->counters (sorted by name) from
 * ROOT/<d->ibdev>/ports/<d->port>/hw_counters/, ROOT being
 * /sys/class/infiniband when NULL. Counters already there (sent by an
 * older module) are kept. 0 also when the port has no hw_counters
 * directory (the driver has none); -errno on other failures.
 */
int rp_dev_hw_counters(struct rp_dev *d, const char *root);

#endif
