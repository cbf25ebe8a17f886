/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: device messages on the generic netlink family.
 */
#ifndef _ROCEPATH_NL_DEV_H
#define _ROCEPATH_NL_DEV_H

#include <linux/types.h>

struct rocepath_dev;

/* Announce each port of @d on the monitor group (dev-add/dev-del-ntf). */
void rocepath_nl_dev_notify(const struct rocepath_dev *d, u8 cmd);

#endif /* _ROCEPATH_NL_DEV_H */
