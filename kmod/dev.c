// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the module's one registry of RDMA devices, from an ib_client.
 * Each entry holds the device's name (following renames), its DCQCN
 * parameters, and a mark that removal has begun. The registry serves the
 * dumps and the rule code (name <-> index), the probes (is the device
 * still there) and the packet path (its DCQCN parameters); when a device
 * goes away its QP records and flows go first, and devices are announced
 * on the monitor group.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "flow.h"
#include "netlink.h"
#include "pin.h"
#include "qp.h"

/* A device's name, replaced as a whole on rename so readers never tear it. */
struct dev_name {
	struct rcu_head rcu;
	char s[IB_DEVICE_NAME_MAX];
};

struct rocepath_dev {
	struct list_head list;
	struct rcu_head rcu;
	struct ib_device *ibdev;
	u32 index;
	bool gone;			/* removal started: record no new QP */
	struct dev_name __rcu *name;
	struct rocepath_dcqcn_dev dcqcn;
};

static struct ib_client rocepath_dev_client;
static DEFINE_MUTEX(dev_lock);
static LIST_HEAD(devs);
static u32 dev_generation;

static void dev_copy_name(const struct rocepath_dev *d, char *buf)
{
	rcu_read_lock();
	strscpy(buf, rcu_dereference(d->name)->s, IB_DEVICE_NAME_MAX);
	rcu_read_unlock();
}

static struct dev_name *dev_name_new(const struct ib_device *ibdev)
{
	struct dev_name *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (n)
		strscpy(n->s, dev_name(&ibdev->dev), sizeof(n->s));
	return n;
}

static const char *driver_name(const struct ib_device *ibdev)
{
	switch (ibdev->ops.driver_id) {
	case RDMA_DRIVER_MLX5:
		return "mlx5";
	case RDMA_DRIVER_MLX4:
		return "mlx4";
	case RDMA_DRIVER_IRDMA:
		return "irdma";
	case RDMA_DRIVER_HNS:
		return "hns";
	case RDMA_DRIVER_BNXT_RE:
		return "bnxt_re";
	case RDMA_DRIVER_QEDR:
		return "qedr";
	case RDMA_DRIVER_RXE:
		return "rxe";
	case RDMA_DRIVER_SIW:
		return "siw";
	case RDMA_DRIVER_EFA:
		return "efa";
	case RDMA_DRIVER_ERDMA:
		return "erdma";
	default:
		return "unknown";
	}
}

static int put_gids(struct sk_buff *skb, struct ib_device *ibdev, u32 port,
		    bool *roce_v2, bool gids)
{
	unsigned int i, len = ibdev->port_data[port].immutable.gid_tbl_len;
	bool have_ndev = false;

	for (i = 0; i < len; i++) {
		const struct ib_gid_attr *attr;
		struct net_device *ndev;
		struct nlattr *nest;
		int err = 0;

		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
			*roce_v2 = true;
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (!have_ndev && !IS_ERR_OR_NULL(ndev)) {
			have_ndev = true;
			err = nla_put_string(skb, ROCEPATH_A_DEV_NETDEV,
					     ndev->name) ||
			      nla_put_u32(skb, ROCEPATH_A_DEV_IFINDEX,
					  ndev->ifindex);
		}
		rcu_read_unlock();
		if (!err && gids) {
			nest = nla_nest_start(skb, ROCEPATH_A_DEV_GID);
			err = !nest ||
			      nla_put_u32(skb, ROCEPATH_A_GID_INDEX, i) ||
			      nla_put(skb, ROCEPATH_A_GID_ADDR,
				      sizeof(attr->gid), &attr->gid) ||
			      nla_put_u32(skb, ROCEPATH_A_GID_TYPE,
					  attr->gid_type);
			if (nest)
				nla_nest_end(skb, nest);
		}
		rdma_put_gid_attr(attr);
		if (err)
			return -EMSGSIZE;
	}
	return 0;
}

/*
 * @full: the port's net device and GIDs too, for dumps. Notifications
 * carry the port's identity only (rocepath_dev_ntf_size()); a listener
 * dumps the port for the rest. The driver's hardware counters are not
 * read here at all: the core caches them (sysfs hw_counters, rate limited
 * by its lifespan) and a read must not call the driver under dev_lock,
 * which device removal waits for.
 */
static int fill(struct sk_buff *skb, const struct rocepath_dev *d, u32 port,
		bool full)
{
	struct ib_device *ibdev = d->ibdev;
	char name[IB_DEVICE_NAME_MAX];
	bool roce_v2 = false;
	struct nlattr *nest;

	dev_copy_name(d, name);
	nest = nla_nest_start(skb, ROCEPATH_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, ROCEPATH_A_DEV_IBDEV, name) ||
	    nla_put_u32(skb, ROCEPATH_A_DEV_INDEX, d->index) ||
	    nla_put_u32(skb, ROCEPATH_A_DEV_PORT, port) ||
	    nla_put_string(skb, ROCEPATH_A_DEV_DRIVER, driver_name(ibdev)) ||
	    nla_put_u8(skb, ROCEPATH_A_DEV_SOFT,
		       ibdev->ops.driver_id == RDMA_DRIVER_RXE))
		goto cancel;
	if (full && rdma_protocol_roce(ibdev, port)) {
		if (put_gids(skb, ibdev, port, &roce_v2, true))
			goto cancel;
	}
	if (nla_put_u8(skb, ROCEPATH_A_DEV_ROCE_V2, roce_v2))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static void notify(const struct rocepath_dev *d, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	u32 port;

	rdma_for_each_port(d->ibdev, port) {
		skb = rocepath_nl_ntf_new(cmd, rocepath_dev_ntf_size(),
					  GFP_KERNEL, &hdr);
		if (!skb)
			return;
		if (fill(skb, d, port, false)) {
			rocepath_nl_ntf_drop(skb);
			continue;
		}
		genlmsg_end(skb, hdr);
		rocepath_nl_notify(skb, GFP_KERNEL);
	}
}

/* What fill() puts without @full: sizes device notifications exactly. */
size_t rocepath_dev_ntf_size(void)
{
	return nla_total_size(0) +				/* DEV */
	       nla_total_size(IB_DEVICE_NAME_MAX) +		/* IBDEV */
	       2 * nla_total_size(sizeof(u32)) +		/* INDEX, PORT */
	       nla_total_size(sizeof("bnxt_re")) +		/* DRIVER, longest */
	       2 * nla_total_size(sizeof(u8));			/* SOFT, ROCE_V2 */
}

struct dev_port {
	const struct rocepath_dev *d;
	u32 port;
};

static int dump_fill(struct sk_buff *skb, const void *obj,
		     const struct rocepath_dump *dump)
{
	const struct dev_port *dp = obj;

	return fill(skb, dp->d, dp->port, true);
}

/* A list is a table of one device per bucket, its ports the objects. */
static bool dump_walk(struct rocepath_dump *dump, unsigned long b)
{
	struct rocepath_dev *d;
	struct dev_port dp;

	lockdep_assert_held(&dev_lock);
	list_for_each_entry(d, &devs, list) {
		if (b--)
			continue;
		if (dump->ibdev) {
			char name[IB_DEVICE_NAME_MAX];

			dev_copy_name(d, name);
			if (strcmp(dump->ibdev, name))
				return true;
		}
		dp.d = d;
		rdma_for_each_port(d->ibdev, dp.port)
			if (!rocepath_dump_obj(dump, &dp))
				break;
		return true;
	}
	return false;
}

/* One message per device port; dev_generation flags a racing change. */
int rocepath_nl_dev_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	int ret;

	mutex_lock(&dev_lock);
	ret = rocepath_dump_run(skb, cb, dev_generation, dump_walk, dump_fill);
	mutex_unlock(&dev_lock);
	return ret;
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
	d = ib_get_client_data(ibdev, &rocepath_dev_client);
	if (d && !READ_ONCE(d->gone)) {
		strscpy(buf, rcu_dereference(d->name)->s, len);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

void rocepath_dev_lock(void)
{
	mutex_lock(&dev_lock);
}

void rocepath_dev_unlock(void)
{
	mutex_unlock(&dev_lock);
}

u32 rocepath_dev_generation(void)
{
	lockdep_assert_held(&dev_lock);
	return dev_generation;
}

void rocepath_dev_changed(void)
{
	lockdep_assert_held(&dev_lock);
	dev_generation++;
}

struct rocepath_dcqcn_dev *rocepath_dev_dcqcn_nth(unsigned long n)
{
	struct rocepath_dev *d;

	lockdep_assert_held(&dev_lock);
	list_for_each_entry(d, &devs, list)
		if (!n--)
			return &d->dcqcn;
	return NULL;
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

	d = ib_get_client_data(ibdev, &rocepath_dev_client);
	if (!d || READ_ONCE(d->gone))
		return NULL;
	return &d->dcqcn;
}

void rocepath_dcqcn_dev_name(const struct rocepath_dcqcn_dev *dd, char *buf)
{
	dev_copy_name(container_of(dd, struct rocepath_dev, dcqcn), buf);
}

static void dev_free_rcu(struct rcu_head *head)
{
	struct rocepath_dev *d = container_of(head, struct rocepath_dev, rcu);

	kfree(rcu_access_pointer(d->name));
	kfree(d);
}

static void dev_free(struct rocepath_dev *d)
{
	call_rcu(&d->rcu, dev_free_rcu);
}

static int dev_add(struct ib_device *ibdev)
{
	struct rocepath_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	d->index = ibdev->index;
	rocepath_dcqcn_dev_init(&d->dcqcn, ibdev);
	RCU_INIT_POINTER(d->name, dev_name_new(ibdev));
	if (!rcu_access_pointer(d->name)) {
		kfree(d);
		return -ENOMEM;
	}

	mutex_lock(&dev_lock);
	list_add_tail_rcu(&d->list, &devs);
	dev_generation++;
	mutex_unlock(&dev_lock);
	ib_set_client_data(ibdev, &rocepath_dev_client, d);
	rocepath_dcqcn_link_changed(&d->dcqcn);
	notify(d, ROCEPATH_CMD_DEV_ADD_NTF);
	return 0;
}

static void dev_remove(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;

	if (!d)
		return;
	notify(d, ROCEPATH_CMD_DEV_DEL_NTF);
	/*
	 * The probes record no new QP, and packets create no new flow, for
	 * this device once they see gone; after the grace period every
	 * handler and packet that did not see it is done, so the sweeps
	 * below leave nothing behind.
	 */
	mutex_lock(&dev_lock);
	WRITE_ONCE(d->gone, true);
	list_del_rcu(&d->list);
	dev_generation++;
	mutex_unlock(&dev_lock);
	rocepath_pin_dev_gone(d->index);
	rocepath_dcqcn_dev_stop(&d->dcqcn);
	synchronize_rcu();
	rocepath_qp_del_device(ibdev);
	rocepath_flow_forget_dev(&d->dcqcn);
	dev_free(d);
}

static void dev_rename(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;
	struct dev_name *n, *old;

	if (!d)
		return;
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

static struct ib_client rocepath_dev_client = {
	.name	= "rocepath",
	.add	= dev_add,
	.remove	= dev_remove,
	.rename	= dev_rename,
};

int rocepath_dev_init(void)
{
	return ib_register_client(&rocepath_dev_client);
}

void rocepath_dev_exit(void)
{
	ib_unregister_client(&rocepath_dev_client);
	/* dev_free_rcu() is this module's code */
	rcu_barrier();
}
