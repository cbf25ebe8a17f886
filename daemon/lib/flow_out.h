/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One flow record as `rocepath flow show` prints it, text or JSON, kept in
 * the library so that the unit tests can print records the kernel gives.
 */
#ifndef ROCEPATH_FLOW_OUT_H
#define ROCEPATH_FLOW_OUT_H

#include "objs.h"
#include "out.h"

/*
 * The record as one object (one text line): the key fields, then the
 * counters. dqpn only when the kernel sent it: an rx-only record has none
 * (Documentation/flows-dcqcn.rst), and 0 is a valid QPN to print.
 */
void rp_flow_print(struct rp_out *o, const struct rp_flow *f);

#endif /* ROCEPATH_FLOW_OUT_H */
