/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link state of this host's RoCE net devices, followed with libnl-3's
 * route/link cache (nl_cache_mngr). Transitions are logged; a link coming
 * up is reported to the caller, which resynchronises and, when the plan
 * probes, probes that link's flows again.
 */
#ifndef ROCEPATHD_LINKMON_H
#define ROCEPATHD_LINKMON_H

#include <stdbool.h>
#include <stddef.h>

#define RPD_LINKMON_MAX 32

struct nl_cache_mngr;
struct nl_cache;

struct rpd_linkmon {
	struct nl_cache_mngr *mngr;
	struct nl_cache *links;
	size_t n;
	struct {
		char netdev[64];
		char ibdev[64];
		int up;		/* -1 unknown, 0 down, 1 up */
		bool came_up;	/* in the last rpd_linkmon_process() */
	} l[RPD_LINKMON_MAX];
	int came_up;	/* set by the callback */
};

int rpd_linkmon_open(struct rpd_linkmon *lm);
void rpd_linkmon_close(struct rpd_linkmon *lm);
int rpd_linkmon_fd(const struct rpd_linkmon *lm);	/* -1 when closed */
/* Follow these net devices (from the dev dump); logs their current state. */
void rpd_linkmon_set(struct rpd_linkmon *lm, const char *const *netdevs,
		     const char *const *ibdevs, size_t n);
/*
 * Process pending notifications; returns 1 if a followed link came up
 * (the links that did have came_up set until the next call).
 */
int rpd_linkmon_process(struct rpd_linkmon *lm);

#endif
