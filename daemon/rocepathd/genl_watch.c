// SPDX-License-Identifier: GPL-2.0
/* nlctrl family notifications and the rocepath monitor group. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/rocepath.h>

#include "genl_watch.h"
#include "rpd_log.h"
#include "rp_netlink.h"

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int rpd_genl_open(struct rpd_genl *g)
{
	int ret;

	memset(g, 0, sizeof(*g));
	ret = rp_nl_open_ctrl_watch(&g->ctrl);
	if (ret)
		return ret;
	ret = nonblock(rp_nl_fd(g->ctrl));
	if (ret) {
		rp_nl_close(g->ctrl);
		g->ctrl = NULL;
	}
	return ret;
}

void rpd_genl_mon_close(struct rpd_genl *g)
{
	rp_nl_close(g->mon);
	g->mon = NULL;
}

void rpd_genl_close(struct rpd_genl *g)
{
	rpd_genl_mon_close(g);
	rp_nl_close(g->ctrl);
	g->ctrl = NULL;
}

int rpd_genl_mon_open(struct rpd_genl *g)
{
	int ret;

	rpd_genl_mon_close(g);
	ret = rp_nl_open(&g->mon);
	if (ret)
		return ret;
	ret = rp_nl_join(g->mon, ROCEPATH_MCGRP_MONITOR);
	if (!ret)
		ret = nonblock(rp_nl_fd(g->mon));
	if (ret) {
		rpd_err("monitor group: %s", rp_nl_errmsg(g->mon) ?: strerror(-ret));
		rpd_genl_mon_close(g);
	}
	return ret;
}

int rpd_genl_ctrl_fd(const struct rpd_genl *g)
{
	return g->ctrl ? rp_nl_fd(g->ctrl) : -1;
}

int rpd_genl_mon_fd(const struct rpd_genl *g)
{
	return g->mon ? rp_nl_fd(g->mon) : -1;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	int *ev = data;

	switch (rp_nl_ctrl_event(nlh)) {
	case 1:
		*ev |= RPD_EV_FAMILY_NEW;
		*ev &= ~RPD_EV_FAMILY_DEL;
		break;
	case -1:
		*ev |= RPD_EV_FAMILY_DEL;
		*ev &= ~RPD_EV_FAMILY_NEW;
		break;
	}
	return 0;
}

/* Receive until EAGAIN; cb gets @data; overruns set RPD_EV_RESYNC in *ev. */
static int drain(struct rp_nl *nl, rp_nl_cb cb, void *data, int *ev,
		 const char *what)
{
	for (int i = 0; i < 1024; i++) {
		int ret = rp_nl_recv_events(nl, cb, data);

		if (ret == -EAGAIN || ret == -EWOULDBLOCK)
			return 0;
		if (ret == -ENOBUFS) {
			rpd_warn("%s: socket overrun, events lost: full resync", what);
			*ev |= RPD_EV_RESYNC;
			continue;
		}
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
	}
	return 0;
}

int rpd_genl_ctrl_read(struct rpd_genl *g)
{
	int ev = 0, ret;

	ret = drain(g->ctrl, ctrl_cb, &ev, &ev, "nlctrl notify");
	if (ret)
		return ret;
	/*
	 * A lost nlctrl event may have been the family coming or going: the
	 * caller then re-probes (RESYNC), which covers both.
	 */
	return ev;
}

struct mon_ctx {
	struct rpd_genl *g;
	int ev;
};

static void dev_name(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlattr *a = rp_nl_attr(nlh, ROCEPATH_A_DEV);
	struct rp_dev d;

	buf[0] = '\0';
	memset(&d, 0, sizeof(d));
	if (a && !rp_dev_parse(a, &d))
		snprintf(buf, len, "%s", d.ibdev);
	rp_dev_release(&d);
}

static int mon_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mon_ctx *c = data;
	const struct nlattr *a;
	char name[64];

	if (nlh->nlmsg_type != rp_nl_family_id(c->g->mon))
		return 0;
	switch (rp_nl_cmd(nlh)) {
	case ROCEPATH_CMD_DEV_ADD_NTF:
		dev_name(nlh, name, sizeof(name));
		rpd_info("monitor: RDMA device %s appeared", name[0] ? name : "?");
		snprintf(c->g->dev_added, sizeof(c->g->dev_added), "%s", name);
		c->ev |= RPD_EV_DEV_ADD;
		break;
	case ROCEPATH_CMD_DEV_DEL_NTF:
		dev_name(nlh, name, sizeof(name));
		rpd_info("monitor: RDMA device %s went away", name[0] ? name : "?");
		c->ev |= RPD_EV_DEV_DEL;
		break;
	case ROCEPATH_CMD_PINS_REPLACED_NTF:
		a = rp_nl_attr(nlh, ROCEPATH_A_GENERATION);
		if (a && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			c->g->pins_gen = mnl_attr_get_u32(a);
		c->ev |= RPD_EV_PINS;
		break;
	}
	return 0;
}

int rpd_genl_mon_read(struct rpd_genl *g)
{
	struct mon_ctx c = { .g = g };
	int ret;

	if (!g->mon)
		return 0;
	ret = drain(g->mon, mon_cb, &c, &c.ev, "monitor");
	return ret ? ret : c.ev;
}
