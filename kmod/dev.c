// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: RDMA devices, from an ib_client. Keeps the list the dumps and
 * the rule code read (name <-> index), drops a device's QPs when it goes
 * away and announces devices on the monitor group.
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

#include "dev.h"
#include "netlink.h"
#include "qp.h"

struct rocepath_dev {
	struct list_head list;
	struct rcu_head rcu;
	struct ib_device *ibdev;
	u32 index;
	char name[IB_DEVICE_NAME_MAX];
};

static struct ib_client rocepath_dev_client;
static DEFINE_MUTEX(dev_lock);
static LIST_HEAD(devs);
static u32 dev_generation;

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

static int put_counters(struct sk_buff *skb, struct ib_device *ibdev, u32 port)
{
	struct rdma_hw_stats *stats;
	int i, n, err = 0;

	if (!ibdev->ops.alloc_hw_port_stats || !ibdev->ops.get_hw_stats)
		return 0;
	stats = ibdev->ops.alloc_hw_port_stats(ibdev, port);
	if (!stats)
		return 0;
	n = ibdev->ops.get_hw_stats(ibdev, stats, port, stats->num_counters);
	for (i = 0; n > 0 && i < stats->num_counters; i++) {
		struct nlattr *nest;

		if (stats->is_disabled && test_bit(i, stats->is_disabled))
			continue;
		nest = nla_nest_start(skb, ROCEPATH_A_DEV_HW_COUNTER);
		if (!nest ||
		    nla_put_string(skb, ROCEPATH_A_HW_COUNTER_NAME,
				   stats->descs[i].name) ||
		    nla_put_u64_64bit(skb, ROCEPATH_A_HW_COUNTER_VALUE,
				      stats->value[i],
				      ROCEPATH_A_HW_COUNTER_PAD)) {
			err = -EMSGSIZE;
			break;
		}
		nla_nest_end(skb, nest);
	}
	rdma_free_hw_stats_struct(stats);
	return err;
}

/* @full: GIDs and counters too (not for notifications of a removal). */
static int fill(struct sk_buff *skb, const struct rocepath_dev *d, u32 port,
		bool full)
{
	struct ib_device *ibdev = d->ibdev;
	bool roce_v2 = false;
	struct nlattr *nest;

	nest = nla_nest_start(skb, ROCEPATH_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, ROCEPATH_A_DEV_IBDEV, d->name) ||
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
	if (full && put_counters(skb, ibdev, port))
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
		skb = rocepath_nl_ntf_new(cmd, GFP_KERNEL, &hdr);
		if (!skb)
			return;
		if (fill(skb, d, port, cmd == ROCEPATH_CMD_DEV_ADD_NTF)) {
			nlmsg_free(skb);
			continue;
		}
		genlmsg_end(skb, hdr);
		rocepath_nl_notify(skb, GFP_KERNEL);
	}
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
		if (dump->ibdev && strcmp(dump->ibdev, d->name))
			return true;
		dp.d = d;
		rdma_for_each_port(d->ibdev, dp.port)
			if (!rocepath_dump_obj(dump, &dp))
				break;
		return true;
	}
	return false;
}

/* One message per device port; dev_generation flags a racing change. */
int rocepath_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	int ret;

	mutex_lock(&dev_lock);
	ret = rocepath_dump_run(skb, cb, dev_generation, dump_walk, dump_fill);
	mutex_unlock(&dev_lock);
	return ret;
}

int rocepath_dev_index(const char *name, u32 *index)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return -ENODEV;
	*index = ibdev->index;
	ib_device_put(ibdev);
	return 0;
}

bool rocepath_dev_name(u32 index, char *buf, size_t len)
{
	struct rocepath_dev *d;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &devs, list) {
		if (d->index == index) {
			strscpy(buf, d->name, len);
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int dev_add(struct ib_device *ibdev)
{
	struct rocepath_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	d->index = ibdev->index;
	strscpy(d->name, dev_name(&ibdev->dev), sizeof(d->name));

	mutex_lock(&dev_lock);
	list_add_tail_rcu(&d->list, &devs);
	dev_generation++;
	mutex_unlock(&dev_lock);
	ib_set_client_data(ibdev, &rocepath_dev_client, d);
	notify(d, ROCEPATH_CMD_DEV_ADD_NTF);
	return 0;
}

static void dev_remove(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;

	if (!d)
		return;
	notify(d, ROCEPATH_CMD_DEV_DEL_NTF);
	mutex_lock(&dev_lock);
	list_del_rcu(&d->list);
	dev_generation++;
	mutex_unlock(&dev_lock);
	rocepath_qp_del_device(ibdev);
	kfree_rcu(d, rcu);
}

static void dev_rename(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;

	if (!d)
		return;
	mutex_lock(&dev_lock);
	strscpy(d->name, dev_name(&ibdev->dev), sizeof(d->name));
	dev_generation++;
	mutex_unlock(&dev_lock);
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
}
