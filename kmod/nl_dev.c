// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the dev-get request and the device notifications: a message
 * per device port, and its GIDs in messages of their own (the devices
 * are the registry's, dev.c).
 */
#include <linux/err.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "netlink.h"
#include "nl_dev.h"

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

/*
 * A port's GIDs travel in messages of their own, each over at most this
 * many GID table slots (about 1.3 KB when every slot holds a GID): a port
 * with as many GIDs as its table holds (1,024 on rxe, one per address of
 * the net device) still dumps, where a single message per port failed
 * with EMSGSIZE once its GIDs outgrew the dump buffer.
 */
#define GID_SLOTS_PER_MSG	32

/* The port's net device (from its first GID that has one), RoCEv2 or not. */
static int put_port_netdev(struct sk_buff *skb, struct ib_device *ibdev,
			   u32 port, bool *roce_v2)
{
	unsigned int i, len = ibdev->port_data[port].immutable.gid_tbl_len;
	bool have_ndev = false;
	int err = 0;

	for (i = 0; i < len && !err; i++) {
		const struct ib_gid_attr *attr;
		struct net_device *ndev;

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
		rdma_put_gid_attr(attr);
	}
	return err ? -EMSGSIZE : 0;
}

/* The valid GIDs among slots [first, first + GID_SLOTS_PER_MSG). */
static int put_gids(struct sk_buff *skb, struct ib_device *ibdev, u32 port,
		    unsigned int first, unsigned int *n)
{
	unsigned int i, len = ibdev->port_data[port].immutable.gid_tbl_len;
	unsigned int last = min(len, first + GID_SLOTS_PER_MSG);

	for (i = first; i < last; i++) {
		const struct ib_gid_attr *attr;
		struct nlattr *nest;
		int err;

		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		nest = nla_nest_start(skb, ROCEPATH_A_DEV_GID);
		err = !nest ||
		      nla_put_u32(skb, ROCEPATH_A_GID_INDEX, i) ||
		      nla_put(skb, ROCEPATH_A_GID_ADDR, sizeof(attr->gid),
			      &attr->gid) ||
		      nla_put_u32(skb, ROCEPATH_A_GID_TYPE, attr->gid_type);
		if (nest)
			nla_nest_end(skb, nest);
		rdma_put_gid_attr(attr);
		if (err)
			return -EMSGSIZE;
		(*n)++;
	}
	return 0;
}

/* What every message about a port starts with: which port it is. */
static int put_port_id(struct sk_buff *skb, const struct rocepath_dev *d,
		       u32 port)
{
	char name[IB_DEVICE_NAME_MAX];

	rocepath_dev_copy_name(d, name);
	if (nla_put_string(skb, ROCEPATH_A_DEV_IBDEV, name) ||
	    nla_put_u32(skb, ROCEPATH_A_DEV_INDEX, d->index) ||
	    nla_put_u32(skb, ROCEPATH_A_DEV_PORT, port))
		return -EMSGSIZE;
	return 0;
}

/*
 * The port's own message. @full: its net device and whether it has
 * RoCEv2 GIDs too, for dumps; notifications carry the port's identity
 * only (ntf_size()), and a listener dumps the port for the rest. The
 * driver's hardware counters are not read here at all: the core caches
 * them (sysfs hw_counters, rate limited by its lifespan) and a read must
 * not call the driver under dev_lock, which device removal waits for.
 */
static int fill(struct sk_buff *skb, const struct rocepath_dev *d, u32 port,
		bool full)
{
	struct ib_device *ibdev = d->ibdev;
	bool roce_v2 = false;
	struct nlattr *nest;

	nest = nla_nest_start(skb, ROCEPATH_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (put_port_id(skb, d, port) ||
	    nla_put_string(skb, ROCEPATH_A_DEV_DRIVER, driver_name(ibdev)) ||
	    nla_put_u8(skb, ROCEPATH_A_DEV_SOFT,
		       ibdev->ops.driver_id == RDMA_DRIVER_RXE))
		goto cancel;
	if (full && rdma_protocol_roce(ibdev, port) &&
	    put_port_netdev(skb, ibdev, port, &roce_v2))
		goto cancel;
	if (nla_put_u8(skb, ROCEPATH_A_DEV_ROCE_V2, roce_v2))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* One message of the port's GIDs, from slot @first; none: skipped. */
static int fill_gids(struct sk_buff *skb, const struct rocepath_dev *d,
		     u32 port, unsigned int first)
{
	struct nlattr *nest;
	unsigned int n = 0;

	nest = nla_nest_start(skb, ROCEPATH_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (put_port_id(skb, d, port) ||
	    put_gids(skb, d->ibdev, port, first, &n)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	if (!n) {
		nla_nest_cancel(skb, nest);
		return ROCEPATH_DUMP_SKIP;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* What fill() puts without @full: sizes device notifications exactly. */
static size_t ntf_size(void)
{
	return nla_total_size(0) +				/* DEV */
	       nla_total_size(IB_DEVICE_NAME_MAX) +		/* IBDEV */
	       2 * nla_total_size(sizeof(u32)) +		/* INDEX, PORT */
	       nla_total_size(sizeof("bnxt_re")) +		/* DRIVER, longest */
	       2 * nla_total_size(sizeof(u8));			/* SOFT, ROCE_V2 */
}

void rocepath_nl_dev_notify(const struct rocepath_dev *d, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	u32 port;

	rdma_for_each_port(d->ibdev, port) {
		skb = rocepath_nl_ntf_new(cmd, ntf_size(), GFP_KERNEL, &hdr);
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

/* A dump object: a port's own message, or one slice of its GID table. */
struct dev_port {
	const struct rocepath_dev *d;
	u32 port;
	int first_gid;		/* -1: the port's own message */
};

static int dump_fill(struct sk_buff *skb, const void *obj,
		     const struct rocepath_dump *dump)
{
	const struct dev_port *dp = obj;

	if (dp->first_gid < 0)
		return fill(skb, dp->d, dp->port, true);
	return fill_gids(skb, dp->d, dp->port, dp->first_gid);
}

/*
 * A list is a table of one device per bucket. Its objects, in order: each
 * port, then the slices of that port's GID table. Slices are fixed ranges
 * of slots, so a dump resumed after a full buffer finds the same objects
 * at the same places however the GIDs changed in between.
 */
static bool dump_walk(struct rocepath_dump *dump, unsigned long b)
{
	struct rocepath_dev *d = rocepath_dev_nth(b);
	struct dev_port dp;
	int len;

	if (!d)
		return false;
	if (dump->ibdev) {
		char name[IB_DEVICE_NAME_MAX];

		rocepath_dev_copy_name(d, name);
		if (strcmp(dump->ibdev, name))
			return true;
	}
	dp.d = d;
	rdma_for_each_port(d->ibdev, dp.port) {
		dp.first_gid = -1;
		if (!rocepath_dump_obj(dump, &dp))
			break;
		if (!rdma_protocol_roce(d->ibdev, dp.port))
			continue;
		len = d->ibdev->port_data[dp.port].immutable.gid_tbl_len;
		for (dp.first_gid = 0; dp.first_gid < len;
		     dp.first_gid += GID_SLOTS_PER_MSG)
			if (!rocepath_dump_obj(dump, &dp))
				return true;
	}
	return true;
}

/* One message per device port; dev_generation flags a racing change. */
int rocepath_nl_dev_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	return rocepath_dev_dump(skb, cb, dump_walk, dump_fill);
}
