/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: RDMA devices and ports, as an ib_client sees them.
 */
#ifndef _ROCEPATH_DEV_H
#define _ROCEPATH_DEV_H

#include <linux/types.h>

struct ib_device;
struct rocepath_dcqcn_dev;

struct netlink_callback;
struct sk_buff;

int rocepath_dev_init(void);
void rocepath_dev_exit(void);

/* Index of the RDMA device called @name: 0 or -ENODEV. May sleep. */
int rocepath_dev_index(const char *name, u32 *index);
/* Name of the RDMA device with @index; false when unknown. Any context. */
bool rocepath_dev_index_name(u32 index, char *buf, size_t len);
/* Name of @ibdev; false when unknown or going away. Any context. */
bool rocepath_dev_name(struct ib_device *ibdev, char *buf, size_t len);

/*
 * The DCQCN parameters live in each device's registry entry. The lock
 * serializes the DCQCN handlers' walks and changes with device add and
 * remove; the packet path finds a device's parameters under RCU alone.
 */
void rocepath_dev_lock(void);
void rocepath_dev_unlock(void);
/* Under the lock: the change counter for dumps, and bumping it. */
u32 rocepath_dev_generation(void);
void rocepath_dev_changed(void);
/* Under the lock: the @n-th device's parameters, or by device name. */
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_nth(unsigned long n);
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_by_name(const char *name);
/* RCU: @ibdev's parameters; NULL when unknown or going away. */
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_rcu(struct ib_device *ibdev);
/* Any context: the name of the device @dd belongs to. */
void rocepath_dcqcn_dev_name(const struct rocepath_dcqcn_dev *dd, char *buf);

size_t rocepath_dev_ntf_size(void);

#endif /* _ROCEPATH_DEV_H */
