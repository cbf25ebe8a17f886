/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-side events rocepathd follows over generic netlink:
 *  - nlctrl's "notify" group: the rocepath family appearing
 *    (CTRL_CMD_NEWFAMILY: module loaded) and going away (DELFAMILY);
 *  - the family's "monitor" group: dev-add-ntf (an RDMA device appeared),
 *    pins-replaced-ntf (somebody else changed the pin set), and socket
 *    overruns (ENOBUFS: events lost, resync everything).
 */
#ifndef ROCEPATHD_GENL_WATCH_H
#define ROCEPATHD_GENL_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct rp_nl;

enum {
	RPD_EV_FAMILY_NEW = 1 << 0,	/* module (re)loaded */
	RPD_EV_FAMILY_DEL = 1 << 1,	/* module unloaded */
	RPD_EV_DEV_ADD = 1 << 2,	/* RDMA device appeared */
	RPD_EV_DEV_DEL = 1 << 3,
	RPD_EV_PINS = 1 << 4,		/* pin set changed (see pins_gen) */
	RPD_EV_RESYNC = 1 << 5,		/* events were lost: resync all */
};

struct rpd_genl {
	struct rp_nl *ctrl;	/* nlctrl notify, always open */
	struct rp_nl *mon;	/* rocepath monitor, open while the module is */
	uint32_t pins_gen;	/* generation of the last pins-replaced-ntf */
	char dev_added[64];	/* last device named by a dev-add-ntf */
};

int rpd_genl_open(struct rpd_genl *g);
void rpd_genl_close(struct rpd_genl *g);
/* Open the monitor socket and join "monitor"; -ENOENT: module absent. */
int rpd_genl_mon_open(struct rpd_genl *g);
void rpd_genl_mon_close(struct rpd_genl *g);
int rpd_genl_ctrl_fd(const struct rpd_genl *g);
int rpd_genl_mon_fd(const struct rpd_genl *g);	/* -1 when closed */
/* Drain a socket; return RPD_EV_* bits (or -errno on a hard error). */
int rpd_genl_ctrl_read(struct rpd_genl *g);
int rpd_genl_mon_read(struct rpd_genl *g);

#endif
