// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the dcqcn-get and dcqcn-set requests. The parameters are part
 * of each device's entry in the device registry (dev.c, dcqcn.c); dumps
 * and writers hold the registry lock.
 */
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "netlink.h"

static int dcqcn_fill(struct sk_buff *skb, const void *obj,
		      const struct rocepath_dump *d)
{
	const struct rocepath_dcqcn_dev *dd = obj;
	char name[IB_DEVICE_NAME_MAX];
	struct net_device *ndev;
	struct nlattr *nest;
	bool fq;
	int i;

	nest = nla_nest_start(skb, ROCEPATH_A_DCQCN);
	if (!nest)
		return -EMSGSIZE;
	rocepath_dcqcn_dev_name(dd, name);
	if (nla_put_string(skb, ROCEPATH_A_DCQCN_IBDEV, name))
		goto cancel;
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		if (nla_put_u32(skb, ROCEPATH_DCQCN_ATTR(i), rocepath_dcqcn_param(dd, i)))
			goto cancel;
	if (nla_put_u8(skb, ROCEPATH_A_DCQCN_SOFT, dd->soft))
		goto cancel;
	if (dd->soft && rocepath_dcqcn_param(dd, ROCEPATH_DCQCN_RP_ENABLE)) {
		ndev = rocepath_dcqcn_netdev(dd);
		fq = ndev && rocepath_dcqcn_fq_ok(ndev);
		dev_put(ndev);
		if (nla_put_u8(skb, ROCEPATH_A_DCQCN_FQ_MISSING, !fq))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* A list is a table of one device per bucket: bucket @b is the b-th. */
static bool dcqcn_walk(struct rocepath_dump *d, unsigned long b)
{
	struct rocepath_dcqcn_dev *dd = rocepath_dev_dcqcn_nth(b);
	char name[IB_DEVICE_NAME_MAX];

	if (!dd)
		return false;
	rocepath_dcqcn_dev_name(dd, name);
	if (!d->ibdev || !strcmp(name, d->ibdev))
		rocepath_dump_obj(d, dd);
	return true;
}

/*
 * One message per device. The helper resumes at the device that did not
 * fit (the old loop ended the dump there instead when it was the first of
 * a later pass, and failed it when it was the very first).
 */
int rocepath_nl_dcqcn_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return rocepath_dev_dump(skb, cb, dcqcn_walk, dcqcn_fill);
}

int rocepath_nl_dcqcn_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[ROCEPATH_A_DCQCN_MAX + 1];
	struct rocepath_dcqcn_dev *dd;
	u32 val[ROCEPATH_DCQCN_NPARAMS];
	int err, i;

	if (GENL_REQ_ATTR_CHECK(info, ROCEPATH_A_DCQCN))
		return -EINVAL;
	/* Ranges are the policy's (from the spec): out of range never gets here. */
	err = nla_parse_nested(tb, ROCEPATH_A_DCQCN_MAX, info->attrs[ROCEPATH_A_DCQCN],
			       rocepath_dcqcn_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[ROCEPATH_A_DCQCN_IBDEV]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ROCEPATH_A_DCQCN],
				    "dcqcn set needs the device name");
		return -EINVAL;
	}
	for (i = ROCEPATH_A_DCQCN_SOFT; i <= ROCEPATH_A_DCQCN_FQ_MISSING; i++) {
		if (tb[i]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[i],
					    "attribute is output only");
			return -EINVAL;
		}
	}

	rocepath_dev_lock();
	dd = rocepath_dev_dcqcn_by_name(nla_data(tb[ROCEPATH_A_DCQCN_IBDEV]));
	if (!dd) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[ROCEPATH_A_DCQCN_IBDEV],
				    "no such rdma device");
		err = -ENODEV;
		goto unlock;
	}
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		val[i] = tb[ROCEPATH_DCQCN_ATTR(i)] ? nla_get_u32(tb[ROCEPATH_DCQCN_ATTR(i)]) :
					     dd->p[i];
	/*
	 * Cross-field: the policy checks each value on its own. Userspace
	 * has the same rule in rp_dcqcn_check() (daemon/lib/objs.c).
	 */
	if (val[ROCEPATH_DCQCN_RP_MAX_RATE] &&
	    val[ROCEPATH_DCQCN_RP_MIN_RATE] > val[ROCEPATH_DCQCN_RP_MAX_RATE]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[ROCEPATH_DCQCN_ATTR(ROCEPATH_DCQCN_RP_MIN_RATE)] ?:
				    tb[ROCEPATH_DCQCN_ATTR(ROCEPATH_DCQCN_RP_MAX_RATE)],
				    "rp_min_rate above rp_max_rate");
		err = -ERANGE;
		goto unlock;
	}
	for (i = 0; i < ROCEPATH_DCQCN_NPARAMS; i++)
		WRITE_ONCE(dd->p[i], val[i]);
	rocepath_dev_changed();
	/* an operator tuning the device may just have set its speed */
	rocepath_dcqcn_link_changed(dd);
	if (dd->soft && val[ROCEPATH_DCQCN_RP_ENABLE]) {
		struct net_device *ndev = rocepath_dcqcn_netdev(dd);

		if (ndev && !rocepath_dcqcn_fq_ok(ndev))
			pr_warn_once("%s: rp_enable set but %s has no fq qdisc on every queue: rates are not enforced (tc qdisc replace dev %s root fq)\n",
				     (char *)nla_data(tb[ROCEPATH_A_DCQCN_IBDEV]), ndev->name,
				     ndev->name);
		dev_put(ndev);
	}
unlock:
	rocepath_dev_unlock();
	return err;
}
