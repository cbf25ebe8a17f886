// SPDX-License-Identifier: GPL-2.0
/*
 * pin_load: install, dump and flush many rocepath pin rules with raw
 * generic netlink (libmnl), timing the kernel side of each operation.
 *
 *   pin_load replace N    one pin-replace transaction (begin ... commit),
 *                         as many messages as the rules need
 *   pin_load add N        N pin-add requests, one rule each
 *   pin_load dump         dump the rules, print how many
 *   pin_load flush        pin-flush
 *
 * Rule i is remote 10.x.y.z (i + 1) with one port 49152 + i % 16384. Prints
 * "<op> <rules> <seconds>". Built in the guest by pin_bench.sh:
 * gcc -O2 -I include/uapi -o X pin_load.c -lmnl
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/rocepath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MSG_BYTES	(60 * 1024)
#define PIN_BYTES	40	/* upper bound of one pin nest */

static struct mnl_socket *nl;
static unsigned int portid, seq;
static int family;
static unsigned long dumped;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct nlmsghdr *start(char *buf, int type, int cmd, int flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

static int family_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		family = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_cb, NULL);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	dumped++;
	return MNL_CB_OK;
}

static int talk(struct nlmsghdr *nlh, mnl_cb_t cb)
{
	static char buf[1 << 16];
	int n;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		n = mnl_cb_run(buf, n, nlh->nlmsg_seq, portid, cb, NULL);
		if (n <= MNL_CB_STOP)
			return n < 0 ? -errno : 0;
	}
}

static void put_pin(struct nlmsghdr *nlh, unsigned long i)
{
	unsigned int addr = htonl(0x0a000000 + i + 1);
	struct nlattr *nest;

	nest = mnl_attr_nest_start(nlh, ROCEPATH_A_PIN);
	mnl_attr_put(nlh, ROCEPATH_A_PIN_REMOTE, 4, &addr);
	mnl_attr_put_u16(nlh, ROCEPATH_A_PIN_SPORT, 49152 + i % 16384);
	mnl_attr_nest_end(nlh, nest);
}

int main(int argc, char **argv)
{
	static char buf[MSG_BYTES + 4096];
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0, i = 0;
	struct nlmsghdr *nlh;
	double t;
	int err;

	if (argc < 2)
		goto usage;
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("pin_load: netlink");
		return 1;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = start(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ROCEPATH_FAMILY_NAME);
	err = talk(nlh, ctrl_cb);
	if (err || !family) {
		fprintf(stderr, "pin_load: family rocepath: %s\n", strerror(-err));
		return 1;
	}

	t = now();
	if (!strcmp(argv[1], "replace")) {
		unsigned int flags = ROCEPATH_REPLACE_FLAGS_BEGIN;

		do {
			nlh = start(buf, family, ROCEPATH_CMD_PIN_REPLACE, NLM_F_ACK);
			for (; i < n && nlh->nlmsg_len + PIN_BYTES < MSG_BYTES; i++)
				put_pin(nlh, i);
			if (i == n)
				flags |= ROCEPATH_REPLACE_FLAGS_COMMIT;
			mnl_attr_put_u32(nlh, ROCEPATH_A_REPLACE_FLAGS, flags);
			err = talk(nlh, NULL);
			flags = 0;
		} while (!err && i < n);
	} else if (!strcmp(argv[1], "add")) {
		for (err = 0; !err && i < n; i++) {
			nlh = start(buf, family, ROCEPATH_CMD_PIN_ADD, NLM_F_ACK);
			put_pin(nlh, i);
			err = talk(nlh, NULL);
		}
	} else if (!strcmp(argv[1], "dump")) {
		nlh = start(buf, family, ROCEPATH_CMD_PIN_GET, NLM_F_DUMP);
		err = talk(nlh, count_cb);
		n = dumped;
	} else if (!strcmp(argv[1], "flush")) {
		nlh = start(buf, family, ROCEPATH_CMD_PIN_FLUSH, NLM_F_ACK);
		err = talk(nlh, NULL);
	} else {
		goto usage;
	}
	t = now() - t;
	if (err) {
		fprintf(stderr, "pin_load: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	printf("%s %lu %.3f\n", argv[1], n, t);
	mnl_socket_close(nl);
	return 0;

usage:
	fprintf(stderr, "usage: pin_load replace|add N | dump | flush\n");
	return 1;
}
