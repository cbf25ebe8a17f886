// SPDX-License-Identifier: GPL-2.0
/*
 * qp_modify_flood: what any local user can do to a QP hook that depends on
 * a pool of per-call slots. THREADS threads share QPS RC QPs and loop
 * RESET->INIT->RTR on each, with a RoCEv2 address vector to REMOTE, for
 * SECONDS seconds. Aimed at an address nobody answers, every RTR sleeps in
 * the RDMA core while the neighbour is resolved (up to 1 s), holding
 * whatever the hook took for the call.
 *
 *   qp_modify_flood -d IBDEV -g GID_INDEX -a REMOTE_IP [-q QPS] [-t THREADS]
 *                   [-s SECONDS]
 *
 * Prints "ready" once every QP exists, then "modifies N" at the end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct flood {
	struct ibv_qp **qps;
	unsigned int nqps, nthreads;
	union ibv_gid dgid;
	int gidx;
	time_t end;
	atomic_ulong modifies;
};

struct worker {
	struct flood *f;
	unsigned int id;
};

static int cycle(struct ibv_qp *qp, const union ibv_gid *dgid, int gidx,
		 unsigned int rqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	ibv_modify_qp(qp, &a, IBV_QP_STATE);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	/* The verdict does not matter: the call itself is the load. */
	ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	return 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct flood *f = w->f;
	unsigned int i, rqpn = 0x100 + w->id;

	while (time(NULL) < f->end) {
		for (i = w->id; i < f->nqps; i += f->nthreads) {
			if (cycle(f->qps[i], &f->dgid, f->gidx, rqpn++ & 0xffffff))
				return NULL;
			atomic_fetch_add(&f->modifies, 3);
			if (time(NULL) >= f->end)
				break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct flood f = { .nqps = 2048, .nthreads = 128 };
	const char *dev = NULL, *remote = NULL;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct worker *workers;
	pthread_t *threads;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned int i;
	int secs = 30, opt, n;

	while ((opt = getopt(argc, argv, "d:g:a:q:t:s:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': f.gidx = atoi(optarg); break;
		case 'a': remote = optarg; break;
		case 'q': f.nqps = strtoul(optarg, NULL, 0); break;
		case 't': f.nthreads = strtoul(optarg, NULL, 0); break;
		case 's': secs = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!dev || !remote || !f.nqps || !f.nthreads)
		goto usage;
	memset(&f.dgid, 0, sizeof(f.dgid));
	if (inet_pton(AF_INET, remote, &f.dgid.raw[12]) == 1) {
		f.dgid.raw[10] = 0xff;
		f.dgid.raw[11] = 0xff;
	} else if (inet_pton(AF_INET6, remote, f.dgid.raw) != 1) {
		fprintf(stderr, "qp_modify_flood: bad address %s\n", remote);
		return 1;
	}

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < (unsigned int)n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "qp_modify_flood: cannot open %s\n", dev);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	f.qps = calloc(f.nqps, sizeof(*f.qps));
	if (!cq || !f.qps) {
		fprintf(stderr, "qp_modify_flood: no PD, CQ or memory\n");
		return 1;
	}
	for (i = 0; i < f.nqps; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		f.qps[i] = ibv_create_qp(pd, &ia);
		if (!f.qps[i]) {
			fprintf(stderr, "qp_modify_flood: QP %u: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("ready %u qps %u threads\n", f.nqps, f.nthreads);
	fflush(stdout);

	f.end = time(NULL) + secs;
	threads = calloc(f.nthreads, sizeof(*threads));
	workers = calloc(f.nthreads, sizeof(*workers));
	if (!threads || !workers)
		return 1;
	for (i = 0; i < f.nthreads; i++) {
		workers[i] = (struct worker){ .f = &f, .id = i };
		if (pthread_create(&threads[i], NULL, work, &workers[i])) {
			fprintf(stderr, "qp_modify_flood: thread %u\n", i);
			f.nthreads = i;
			break;
		}
	}
	for (i = 0; i < f.nthreads; i++)
		pthread_join(threads[i], NULL);
	printf("modifies %lu\n", (unsigned long)atomic_load(&f.modifies));

	for (i = 0; i < f.nqps; i++)
		ibv_destroy_qp(f.qps[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(f.qps);
	free(threads);
	free(workers);
	return 0;

usage:
	fprintf(stderr, "usage: qp_modify_flood -d IBDEV -g GID_INDEX -a REMOTE_IP [-q QPS] [-t THREADS] [-s SECONDS]\n");
	return 2;
}
