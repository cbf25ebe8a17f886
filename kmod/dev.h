/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: the registry of RDMA devices, as an ib_client sees them.
 */
#ifndef _ROCEPATH_DEV_H
#define _ROCEPATH_DEV_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "dcqcn.h"
#include "netlink.h"

struct ib_client;
struct ib_device;
struct rocepath_dev_name;

/**
 * struct rocepath_dev - a device's entry in the registry
 * @list: in the registry's list, under its lock and RCU
 * @rcu: for the deferred free
 * @ibdev: the device
 * @index: its index, which the core never reuses
 * @gone: removal started: record no new QP
 * @name: the device's name, following renames (rocepath_dev_copy_name())
 * @dcqcn: its DCQCN parameters
 */
struct rocepath_dev {
	struct list_head list;
	struct rcu_head rcu;
	struct ib_device *ibdev;
	u32 index;
	bool gone;
	struct rocepath_dev_name __rcu *name;
	struct rocepath_dcqcn_dev dcqcn;
};

/* @client's data for a device is its entry (dev_client.c). */
void rocepath_dev_init(struct ib_client *client);
/* Once @client is unregistered: entries freed by then are gone. */
void rocepath_dev_exit(void);

/*
 * From @client's callbacks. Add: a new entry for @ibdev, in the list, or
 * NULL without memory. Del: off the list and marked gone; free it after
 * the sweeps that follow. Rename: follow @ibdev's new name.
 */
struct rocepath_dev *rocepath_dev_add(struct ib_device *ibdev);
void rocepath_dev_del(struct rocepath_dev *d);
void rocepath_dev_free(struct rocepath_dev *d);
void rocepath_dev_rename(struct rocepath_dev *d, struct ib_device *ibdev);

/* Any context: @d's name as it is now, into IB_DEVICE_NAME_MAX bytes. */
void rocepath_dev_copy_name(const struct rocepath_dev *d, char *buf);

/* Index of the RDMA device called @name: 0 or -ENODEV. May sleep. */
int rocepath_dev_index(const char *name, u32 *index);
/* Name of the RDMA device with @index; false when unknown. Any context. */
bool rocepath_dev_index_name(u32 index, char *buf, size_t len);
/* Name of @ibdev; false when unknown or going away. Any context. */
bool rocepath_dev_name(struct ib_device *ibdev, char *buf, size_t len);

/*
 * One pass of a dump over the devices (dev-get, dcqcn-get), under the
 * registry's lock, with its change counter: @walk's bucket b is the b-th
 * device (rocepath_dev_nth()).
 */
int rocepath_dev_dump(struct sk_buff *skb, struct netlink_callback *cb,
		      rocepath_dump_walk_t walk, rocepath_dump_fill_t fill);

/*
 * The DCQCN parameters live in each device's registry entry. The lock
 * serializes the DCQCN handlers' walks and changes with device add and
 * remove; the packet path finds a device's parameters under RCU alone.
 */
void rocepath_dev_lock(void);
void rocepath_dev_unlock(void);
/* Under the lock: bump the change counter the dumps read. */
void rocepath_dev_changed(void);
/* Under the lock: the @n-th device, its parameters, or by device name. */
struct rocepath_dev *rocepath_dev_nth(unsigned long n);
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_nth(unsigned long n);
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_by_name(const char *name);
/* RCU: @ibdev's parameters; NULL when unknown or going away. */
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_rcu(struct ib_device *ibdev);
/* Any context: the name of the device @dd belongs to. */
void rocepath_dcqcn_dev_name(const struct rocepath_dcqcn_dev *dd, char *buf);

#endif /* _ROCEPATH_DEV_H */
