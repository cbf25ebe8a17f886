// SPDX-License-Identifier: GPL-2.0
/*
 * pin_qp_churn: create an RC QP, move it RESET->INIT->RTR with a RoCEv2
 * address vector to REMOTE, destroy it; N times. Prints the mean time of
 * each step, so it serves both the stale-entry test (10,000 cycles leave
 * nothing behind) and the modify-QP cost benchmark.
 *
 *   pin_qp_churn -d IBDEV -g GID_INDEX -a REMOTE_IP [-n N] [-r RQPN] [-k] [-f]
 *   -k keeps the QPs (created and moved to RTR, destroyed only at exit,
 *      after a newline on stdin), to look at them with qp-get.
 *   -f makes modifies fail in the driver, after the module's hook ran:
 *      before the RTR of each QP an INIT->RTR with a path MTU above the
 *      port's maximum (rxe, and every device: 4096 is the largest), and
 *      after it the same bad modify again with another RQPN. Both must
 *      fail; each prints a "rtr-fail"/"re-rtr-fail" line. With -k it
 *      waits for a newline on stdin after the first failure of each QP.
 *
 * Built in the guest at test time: gcc -O2 -o X pin_qp_churn.c -libverbs
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* Largest MTU of the verbs API; one above it is invalid everywhere. */
#define BAD_MTU		((enum ibv_mtu)(IBV_MTU_4096 + 1))

static int to_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, int gidx,
		  unsigned int rqpn, enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = rqpn,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = *dgid,
				.sgid_index = gidx,
				.hop_limit = 64,
			},
		},
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* An RTR the driver must reject; 0 when it did. */
static int bad_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, int gidx,
		   unsigned int rqpn, const char *what, unsigned int i)
{
	int err = to_rtr(qp, dgid, gidx, rqpn, BAD_MTU);

	if (!err) {
		fprintf(stderr, "pin_qp_churn: %s %u: RTR with path MTU %d succeeded\n",
			what, i, BAD_MTU);
		return -1;
	}
	printf("%s %u lqpn %u rqpn %u: %s (expected)\n", what, i, qp->qp_num,
	       rqpn, strerror(err));
	return 0;
}

int main(int argc, char **argv)
{
	const char *devname = NULL, *remote = NULL;
	double t_create = 0, t_init = 0, t_rtr = 0, t_destroy = 0, t;
	unsigned int n = 1000, rqpn = 0x1234, i;
	struct ibv_device **list, *dev = NULL;
	struct ibv_qp_init_attr qia = {};
	struct ibv_context *ctx;
	struct ibv_qp **keep = NULL;
	int gidx = -1, c, k = 0, f = 0;
	union ibv_gid dgid = {};
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	while ((c = getopt(argc, argv, "d:g:a:n:r:kf")) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'a': remote = optarg; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'r': rqpn = strtoul(optarg, NULL, 0); break;
		case 'k': k = 1; break;
		case 'f': f = 1; break;
		default: goto usage;
		}
	}
	if (!devname || gidx < 0 || !remote)
		goto usage;
	if (inet_pton(AF_INET6, remote, dgid.raw) != 1) {
		struct in_addr a4;

		if (inet_pton(AF_INET, remote, &a4) != 1) {
			fprintf(stderr, "pin_qp_churn: bad address %s\n", remote);
			return 1;
		}
		dgid.raw[10] = dgid.raw[11] = 0xff;
		memcpy(&dgid.raw[12], &a4, 4);
	}

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "pin_qp_churn: no device %s\n", devname);
		return 1;
	}
	ctx = ibv_open_device(dev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "pin_qp_churn: cannot open %s: %s\n", devname,
			strerror(errno));
		return 1;
	}
	if (k)
		keep = calloc(n, sizeof(*keep));

	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_RC;
	qia.cap.max_send_wr = 1;
	qia.cap.max_recv_wr = 1;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;

	for (i = 0; i < n; i++) {
		struct ibv_qp *qp;

		t = now_ns();
		qp = ibv_create_qp(pd, &qia);
		t_create += now_ns() - t;
		if (!qp) {
			fprintf(stderr, "pin_qp_churn: create QP %u: %s\n", i,
				strerror(errno));
			return 1;
		}
		t = now_ns();
		if (to_init(qp)) {
			fprintf(stderr, "pin_qp_churn: INIT: %s\n", strerror(errno));
			return 1;
		}
		t_init += now_ns() - t;
		if (f) {
			if (bad_rtr(qp, &dgid, gidx, rqpn + i, "rtr-fail", i))
				return 1;
			if (k) {
				fflush(stdout);
				getchar();
			}
		}
		t = now_ns();
		if (to_rtr(qp, &dgid, gidx, rqpn + i, IBV_MTU_1024)) {
			fprintf(stderr, "pin_qp_churn: RTR: %s\n", strerror(errno));
			return 1;
		}
		t_rtr += now_ns() - t;
		if (f && bad_rtr(qp, &dgid, gidx, rqpn + i + 0x100000,
				 "re-rtr-fail", i))
			return 1;
		if (k) {
			keep[i] = qp;
			printf("qp %u lqpn %u rqpn %u\n", i, qp->qp_num, rqpn + i);
			continue;
		}
		t = now_ns();
		if (ibv_destroy_qp(qp)) {
			fprintf(stderr, "pin_qp_churn: destroy: %s\n", strerror(errno));
			return 1;
		}
		t_destroy += now_ns() - t;
	}
	if (k) {
		fflush(stdout);
		getchar();
		for (i = 0; i < n; i++)
			ibv_destroy_qp(keep[i]);
	}
	printf("cycles %u create_us %.1f init_us %.1f rtr_us %.1f destroy_us %.1f\n",
	       n, t_create / n / 1e3, t_init / n / 1e3, t_rtr / n / 1e3,
	       k ? 0 : t_destroy / n / 1e3);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;

usage:
	fprintf(stderr, "usage: pin_qp_churn -d IBDEV -g GID_INDEX -a REMOTE_IP [-n N] [-r RQPN] [-k] [-f]\n");
	return 1;
}
