// SPDX-License-Identifier: GPL-2.0
/* Link up/down of this host's RoCE net devices via libnl-3's cache manager. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/if.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "linkmon.h"
#include "rpd_log.h"

/* Up = administratively up with carrier (operstate up, or lower up). */
static int link_up(struct rtnl_link *link)
{
	unsigned int flags = rtnl_link_get_flags(link);
	uint8_t oper = rtnl_link_get_operstate(link);

	if (!(flags & IFF_UP))
		return 0;
	if (oper == IF_OPER_UP || oper == IF_OPER_UNKNOWN)
		return !!(flags & IFF_LOWER_UP) || oper == IF_OPER_UP;
	return 0;
}

static void update(struct rpd_linkmon *lm, struct rtnl_link *link, bool gone)
{
	const char *name = rtnl_link_get_name(link);

	if (!name)
		return;
	for (size_t i = 0; i < lm->n; i++) {
		int up;

		if (strcmp(lm->l[i].netdev, name))
			continue;
		up = gone ? 0 : link_up(link);
		if (up == lm->l[i].up)
			return;
		if (gone)
			rpd_warn("link %s (%s) removed", name, lm->l[i].ibdev);
		else
			rpd_info("link %s (%s) is %s", name, lm->l[i].ibdev,
				 up ? "up" : "down");
		if (up && lm->l[i].up == 0) {
			lm->came_up = 1;
			lm->l[i].came_up = true;
		}
		lm->l[i].up = up;
		return;
	}
}

static void change_cb(struct nl_cache *cache, struct nl_object *obj, int action,
		      void *data)
{
	(void)cache;
	update(data, (struct rtnl_link *)obj, action == NL_ACT_DEL);
}

int rpd_linkmon_open(struct rpd_linkmon *lm)
{
	int ret, fl;

	memset(lm, 0, sizeof(*lm));
	ret = nl_cache_mngr_alloc(NULL, NETLINK_ROUTE, NL_AUTO_PROVIDE, &lm->mngr);
	if (ret < 0) {
		rpd_warn("link monitor: cannot allocate the libnl cache manager: %s",
			 nl_geterror(ret));
		lm->mngr = NULL;
		return -ENOMEM;
	}
	/* Never block in nl_cache_mngr_data_ready(), whatever libnl defaults to. */
	fl = fcntl(nl_cache_mngr_get_fd(lm->mngr), F_GETFL);
	if (fl < 0 || fcntl(nl_cache_mngr_get_fd(lm->mngr), F_SETFL, fl | O_NONBLOCK) < 0)
		rpd_warn("link monitor: cannot make its socket non-blocking: %s",
			 strerror(errno));
	ret = nl_cache_mngr_add(lm->mngr, "route/link", change_cb, lm, &lm->links);
	if (ret < 0) {
		rpd_warn("link monitor: cannot follow route/link: %s", nl_geterror(ret));
		nl_cache_mngr_free(lm->mngr);
		lm->mngr = NULL;
		return -EIO;
	}
	return 0;
}

void rpd_linkmon_close(struct rpd_linkmon *lm)
{
	if (lm->mngr)
		nl_cache_mngr_free(lm->mngr);	/* frees its caches too */
	lm->mngr = NULL;
	lm->links = NULL;
}

int rpd_linkmon_fd(const struct rpd_linkmon *lm)
{
	return lm->mngr ? nl_cache_mngr_get_fd(lm->mngr) : -1;
}

void rpd_linkmon_set(struct rpd_linkmon *lm, const char *const *netdevs,
		     const char *const *ibdevs, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n && m < RPD_LINKMON_MAX; i++) {
		int up = -1;
		bool dup = false;

		if (!netdevs[i] || !netdevs[i][0])
			continue;
		for (size_t j = 0; j < m; j++)
			if (!strcmp(lm->l[j].netdev, netdevs[i]))
				dup = true;
		if (dup)
			continue;
		/* Keep the known state of links we already follow. */
		for (size_t j = 0; j < lm->n; j++)
			if (!strcmp(lm->l[j].netdev, netdevs[i]))
				up = lm->l[j].up;
		snprintf(lm->l[m].netdev, sizeof(lm->l[m].netdev), "%s", netdevs[i]);
		snprintf(lm->l[m].ibdev, sizeof(lm->l[m].ibdev), "%s",
			 ibdevs && ibdevs[i] ? ibdevs[i] : "");
		lm->l[m].up = up;
		lm->l[m].came_up = false;
		m++;
	}
	lm->n = m;
	if (!lm->links)
		return;
	for (size_t i = 0; i < lm->n; i++) {
		struct rtnl_link *link;

		if (lm->l[i].up >= 0)
			continue;
		link = rtnl_link_get_by_name(lm->links, lm->l[i].netdev);
		if (!link) {
			rpd_warn("link %s (%s) not found", lm->l[i].netdev, lm->l[i].ibdev);
			lm->l[i].up = 0;
			continue;
		}
		lm->l[i].up = link_up(link);
		rpd_info("link %s (%s) is %s", lm->l[i].netdev, lm->l[i].ibdev,
			 lm->l[i].up ? "up" : "down");
		rtnl_link_put(link);
	}
}

int rpd_linkmon_process(struct rpd_linkmon *lm)
{
	int ret;

	if (!lm->mngr)
		return 0;
	lm->came_up = 0;
	for (size_t i = 0; i < lm->n; i++)
		lm->l[i].came_up = false;
	ret = nl_cache_mngr_data_ready(lm->mngr);
	if (ret < 0 && ret != -NLE_AGAIN) {
		rpd_warn("link monitor: %s", nl_geterror(ret));
		/* Overrun: the cache manager resyncs itself on the next call. */
		if (ret == -NLE_NOMEM || ret == -NLE_DUMP_INTR)
			return 0;
	}
	return lm->came_up;
}
