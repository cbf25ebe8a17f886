/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath: load-time check of the probed RDMA core functions against the
 * running kernel's BTF.
 */
#ifndef _ROCEPATH_BTF_CHECK_H
#define _ROCEPATH_BTF_CHECK_H

int rocepath_btf_check(void);

#endif /* _ROCEPATH_BTF_CHECK_H */
