// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the module's one registry of RDMA devices. Each entry holds
 * the device's name (following renames), its DCQCN parameters, and a mark
 * that removal has begun. The registry serves the dumps and the rule code
 * (name <-> index), the probes (is the device still there) and the packet
 * path (its DCQCN parameters). Entries come and go with the devices'
 * ib_client (dev_client.c), whose data for a device is its entry.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "netlink.h"

/* A device's name, replaced as a whole on rename so readers never tear it. */
struct rocepath_dev_name {
	struct rcu_head rcu;
	char s[IB_DEVICE_NAME_MAX];
};

/* The ib_client whose data for a device is its entry (dev_client.c). */
static struct ib_client *dev_client;
static DEFINE_MUTEX(dev_lock);
static LIST_HEAD(devs);
static u32 dev_generation;

void rocepath_dev_copy_name(const struct rocepath_dev *d, char *buf)
{
	rcu_read_lock();
	strscpy(buf, rcu_dereference(d->name)->s, IB_DEVICE_NAME_MAX);
	rcu_read_unlock();
}

static struct rocepath_dev_name *dev_name_new(const struct ib_device *ibdev)
{
	struct rocepath_dev_name *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (n)
		strscpy(n->s, dev_name(&ibdev->dev), sizeof(n->s));
	return n;
}

/* Under rcu_read_lock() or dev_lock. */
static struct rocepath_dev *dev_by_name(const char *name)
{
	struct rocepath_dev *d;

	list_for_each_entry_rcu(d, &devs, list, lockdep_is_held(&dev_lock))
		if (!strcmp(rcu_dereference_check(d->name,
						  lockdep_is_held(&dev_lock))->s,
			    name))
			return d;
	return NULL;
}

/*
 * By the name the registry holds (it follows renames), not the core's
 * ib_device_get_by_name(), which still finds a device while its clients
 * are being removed: dev_remove() takes the device off this list before
 * it drops the device's pin rules, so a rule resolved under pin_lock is
 * either dropped with them or refused here.
 */
int rocepath_dev_index(const char *name, u32 *index)
{
	struct rocepath_dev *d;
	int err = -ENODEV;

	rcu_read_lock();
	d = dev_by_name(name);
	if (d) {
		*index = d->index;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

bool rocepath_dev_index_name(u32 index, char *buf, size_t len)
{
	struct rocepath_dev *d;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &devs, list) {
		if (d->index == index) {
			strscpy(buf, rcu_dereference(d->name)->s, len);
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * From the probes (preemption disabled): the client data lookup is an
 * RCU xarray load, and dev_remove() waits for handlers that saw !gone.
 */
bool rocepath_dev_name(struct ib_device *ibdev, char *buf, size_t len)
{
	struct rocepath_dev *d;
	bool found = false;

	rcu_read_lock();
	d = ib_get_client_data(ibdev, dev_client);
	if (d && !READ_ONCE(d->gone)) {
		strscpy(buf, rcu_dereference(d->name)->s, len);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

int rocepath_dev_dump(struct sk_buff *skb, struct netlink_callback *cb,
		      rocepath_dump_walk_t walk, rocepath_dump_fill_t fill)
{
	int ret;

	mutex_lock(&dev_lock);
	ret = rocepath_dump_run(skb, cb, dev_generation, walk, fill);
	mutex_unlock(&dev_lock);
	return ret;
}

void rocepath_dev_lock(void)
{
	mutex_lock(&dev_lock);
}

void rocepath_dev_unlock(void)
{
	mutex_unlock(&dev_lock);
}

void rocepath_dev_changed(void)
{
	lockdep_assert_held(&dev_lock);
	dev_generation++;
}

struct rocepath_dev *rocepath_dev_nth(unsigned long n)
{
	struct rocepath_dev *d;

	lockdep_assert_held(&dev_lock);
	list_for_each_entry(d, &devs, list)
		if (!n--)
			return d;
	return NULL;
}

struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_nth(unsigned long n)
{
	struct rocepath_dev *d = rocepath_dev_nth(n);

	return d ? &d->dcqcn : NULL;
}

struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_by_name(const char *name)
{
	struct rocepath_dev *d;

	/* renames take dev_lock too: the name is stable here */
	lockdep_assert_held(&dev_lock);
	d = dev_by_name(name);
	return d ? &d->dcqcn : NULL;
}

/*
 * Packet path. ib_get_client_data() is an RCU xarray load; it is only
 * valid while our client is registered, and the netfilter hooks that call
 * this are removed before the client is (main.c).
 */
struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_rcu(struct ib_device *ibdev)
{
	struct rocepath_dev *d;

	d = ib_get_client_data(ibdev, dev_client);
	if (!d || READ_ONCE(d->gone))
		return NULL;
	return &d->dcqcn;
}

void rocepath_dcqcn_dev_name(const struct rocepath_dcqcn_dev *dd, char *buf)
{
	rocepath_dev_copy_name(container_of(dd, struct rocepath_dev, dcqcn), buf);
}

static void dev_free_rcu(struct rcu_head *head)
{
	struct rocepath_dev *d = container_of(head, struct rocepath_dev, rcu);

	kfree(rcu_access_pointer(d->name));
	kfree(d);
}

void rocepath_dev_free(struct rocepath_dev *d)
{
	call_rcu(&d->rcu, dev_free_rcu);
}

struct rocepath_dev *rocepath_dev_add(struct ib_device *ibdev)
{
	struct rocepath_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->ibdev = ibdev;
	d->index = ibdev->index;
	rocepath_dcqcn_dev_init(&d->dcqcn, ibdev);
	RCU_INIT_POINTER(d->name, dev_name_new(ibdev));
	if (!rcu_access_pointer(d->name)) {
		kfree(d);
		return NULL;
	}

	mutex_lock(&dev_lock);
	list_add_tail_rcu(&d->list, &devs);
	dev_generation++;
	mutex_unlock(&dev_lock);
	return d;
}

void rocepath_dev_del(struct rocepath_dev *d)
{
	mutex_lock(&dev_lock);
	WRITE_ONCE(d->gone, true);
	list_del_rcu(&d->list);
	dev_generation++;
	mutex_unlock(&dev_lock);
}

void rocepath_dev_rename(struct rocepath_dev *d, struct ib_device *ibdev)
{
	struct rocepath_dev_name *n, *old;

	/* The core holds its device lock for write: dev_name() is stable. */
	n = dev_name_new(ibdev);
	if (!n) {
		pr_warn("%s: rename not followed: out of memory\n",
			dev_name(&ibdev->dev));
		return;
	}
	mutex_lock(&dev_lock);
	old = rcu_replace_pointer(d->name, n, lockdep_is_held(&dev_lock));
	dev_generation++;
	mutex_unlock(&dev_lock);
	kfree_rcu(old, rcu);
}

void rocepath_dev_init(struct ib_client *client)
{
	dev_client = client;
}

void rocepath_dev_exit(void)
{
	/* dev_free_rcu() is this module's code */
	rcu_barrier();
}
