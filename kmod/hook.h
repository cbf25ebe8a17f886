/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: kprobes on the RDMA core's modify-QP and destroy-QP paths.
 */
#ifndef _ROCEPATH_HOOK_H
#define _ROCEPATH_HOOK_H

int rocepath_hook_init(void);
void rocepath_hook_exit(void);

#endif /* _ROCEPATH_HOOK_H */
