// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath monitor: print the family's multicast events as they come.
 *
 * Text: one line per event, "EVENT fields...". JSON (-j): one JSON object
 * per line (JSON Lines), {"event": "qp-add", <the qp show keys>}, with
 * event one of qp-add, qp-del (qp show keys), dev-add, dev-del (dev show
 * keys), pins-replaced ("generation"), lost (the socket overran and
 * events were dropped; a warning also goes to stderr), module-unloaded and
 * module-loaded (the family went away / came back; monitoring resumes).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "cli.h"
#include "rp_netlink.h"

struct mon {
	const struct rp_cli *cli;
	struct rp_nl *ev;
	bool loaded;
	bool reload;
};

static void event_start(struct rp_out *o, const char *name)
{
	rp_out_open_object(o, NULL);
	rp_out_string(o, "event", "%s ", name);
}

static void event_end(struct rp_out *o)
{
	rp_out_close_object(o);
	rp_out_nl(o);
	rp_out_flush(o);
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mon *m = data;
	struct rp_out *o = m->cli->out;
	uint8_t cmd = rp_nl_cmd(nlh);
	const struct nlattr *a;

	switch (cmd) {
	case ROCEPATH_CMD_QP_ADD_NTF:
	case ROCEPATH_CMD_QP_DEL_NTF: {
		struct rp_qp q;

		a = rp_nl_attr(nlh, ROCEPATH_A_QP);
		if (!a || rp_qp_parse(a, &q))
			break;
		event_start(o, cmd == ROCEPATH_CMD_QP_ADD_NTF ? "qp-add" :
								"qp-del");
		cli_qp_fields(o, &q);
		event_end(o);
		break;
	}
	case ROCEPATH_CMD_DEV_ADD_NTF:
	case ROCEPATH_CMD_DEV_DEL_NTF: {
		struct rp_dev d;

		a = rp_nl_attr(nlh, ROCEPATH_A_DEV);
		if (!a || rp_dev_parse(a, &d))
			break;
		event_start(o, cmd == ROCEPATH_CMD_DEV_ADD_NTF ? "dev-add" :
								 "dev-del");
		cli_dev_fields(o, &d);
		event_end(o);
		rp_dev_release(&d);
		break;
	}
	case ROCEPATH_CMD_PINS_REPLACED_NTF:
		a = rp_nl_attr(nlh, ROCEPATH_A_GENERATION);
		event_start(o, "pins-replaced");
		if (a && mnl_attr_get_payload_len(a) >= 4)
			rp_out_uint(o, "generation", "generation %llu",
				    mnl_attr_get_u32(a));
		event_end(o);
		break;
	}
	return 0;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mon *m = data;
	int ev = rp_nl_ctrl_event(nlh);

	if (ev < 0 && m->loaded) {
		m->loaded = false;
		event_start(m->cli->out, "module-unloaded");
		event_end(m->cli->out);
	} else if (ev > 0 && !m->loaded) {
		m->reload = true;
	}
	return 0;
}

static int rejoin(struct mon *m)
{
	int ret = rp_nl_resolve(m->ev);

	if (!ret)
		ret = rp_nl_join(m->ev, ROCEPATH_MCGRP_MONITOR);
	if (ret)
		return ret;
	m->loaded = true;
	event_start(m->cli->out, "module-loaded");
	event_end(m->cli->out);
	return 0;
}

int cmd_monitor(int argc, char **argv, const struct rp_cli *cli)
{
	struct mon m = { .cli = cli, .loaded = true };
	struct rp_nl *ctrl = NULL;
	struct pollfd pfd[2];
	int ret;

	if (argc && rp_matches(argv[0], "help")) {
		printf("Usage: rocepath monitor\n");
		return 0;
	}
	if (argc)
		return cli_unknown("monitor", argv[0]);
	ret = cli_nl_open(cli, &m.ev);
	if (ret)
		return ret;
	ret = rp_nl_join(m.ev, ROCEPATH_MCGRP_MONITOR);
	if (ret) {
		cli_nl_err(m.ev, ret, "monitor");
		goto out;
	}
	/* Best effort: without it the module's unload is not reported. */
	if (!rp_nl_open_ctrl_watch(&ctrl) && cli->debug)
		rp_nl_set_debug(ctrl, stderr);

	pfd[0].fd = rp_nl_fd(m.ev);
	pfd[0].events = POLLIN;
	pfd[1].fd = ctrl ? rp_nl_fd(ctrl) : -1;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = rp_error_ret(-errno, "monitor: poll: %s",
					   strerror(errno));
			break;
		}
		if (pfd[1].revents & POLLIN) {
			ret = rp_nl_recv_events(ctrl, ctrl_cb, &m);
			if (ret && ret != -ENOBUFS && ret != -EINTR)
				break;
			if (m.reload) {
				m.reload = false;
				if (rejoin(&m))
					fprintf(stderr,
						"Warning: rocepath family is back but its monitor group could not be joined.\n");
			}
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		ret = rp_nl_recv_events(m.ev, event_cb, &m);
		if (ret == -ENOBUFS) {
			fflush(stdout);
			fprintf(stderr,
				"Warning: events were lost (receive buffer overrun); state may have changed unseen.\n");
			event_start(cli->out, "lost");
			event_end(cli->out);
			continue;
		}
		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret) {
			cli_nl_err(m.ev, ret, "monitor");
			break;
		}
	}
out:
	rp_nl_close(ctrl);
	rp_nl_close(m.ev);
	return ret;
}
