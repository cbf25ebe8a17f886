// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: the ib_client that follows RDMA devices. A new device gets
 * its registry entry (dev.c) and is announced on the monitor group; when
 * a device goes away, its pin rules, QP records and flows go first, then
 * its entry.
 */
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>

#include "dcqcn.h"
#include "dev.h"
#include "dev_client.h"
#include "flow.h"
#include "netlink.h"
#include "nl_dev.h"
#include "pin.h"
#include "qp.h"

static struct ib_client rocepath_dev_client;

static int dev_add(struct ib_device *ibdev)
{
	struct rocepath_dev *d;

	d = rocepath_dev_add(ibdev);
	if (!d)
		return -ENOMEM;
	ib_set_client_data(ibdev, &rocepath_dev_client, d);
	rocepath_dcqcn_link_changed(&d->dcqcn);
	rocepath_nl_dev_notify(d, ROCEPATH_CMD_DEV_ADD_NTF);
	return 0;
}

static void dev_remove(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;

	if (!d)
		return;
	rocepath_nl_dev_notify(d, ROCEPATH_CMD_DEV_DEL_NTF);
	/*
	 * The probes record no new QP, and packets create no new flow, for
	 * this device once they see gone; after the grace period every
	 * handler and packet that did not see it is done, so the sweeps
	 * below leave nothing behind.
	 */
	rocepath_dev_del(d);
	rocepath_pin_dev_gone(d->index);
	rocepath_dcqcn_dev_stop(&d->dcqcn);
	synchronize_rcu();
	rocepath_qp_del_device(ibdev);
	rocepath_flow_forget_dev(&d->dcqcn);
	rocepath_dev_free(d);
}

static void dev_rename(struct ib_device *ibdev, void *data)
{
	struct rocepath_dev *d = data;

	if (!d)
		return;
	rocepath_dev_rename(d, ibdev);
}

static struct ib_client rocepath_dev_client = {
	.name	= "rocepath",
	.add	= dev_add,
	.remove	= dev_remove,
	.rename	= dev_rename,
};

int rocepath_dev_client_init(void)
{
	rocepath_dev_init(&rocepath_dev_client);
	return ib_register_client(&rocepath_dev_client);
}

void rocepath_dev_client_exit(void)
{
	ib_unregister_client(&rocepath_dev_client);
	rocepath_dev_exit();
}
