/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: RDMA devices and ports, as an ib_client sees them.
 */
#ifndef _ROCEPATH_DEV_H
#define _ROCEPATH_DEV_H

#include <linux/types.h>

struct ib_device;

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
int rocepath_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _ROCEPATH_DEV_H */
