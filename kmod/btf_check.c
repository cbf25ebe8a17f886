// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath: check, before any hook is armed, that the RDMA core functions
 * the hooks read and write through have the signature and the structure
 * layout this module was compiled for.
 *
 * The hooks take their arguments from registers by position and write the
 * flow label through the second one. A kernel whose
 * _ib_modify_qp() differs (a backport, a distribution patch, a DKMS build
 * against mismatched headers) would have the module write into the wrong
 * object. The running kernel describes itself in BTF: vmlinux in
 * /sys/kernel/btf/vmlinux and ib_core as split BTF on top of it in
 * /sys/kernel/btf/ib_core (or vmlinux alone when ib_core is built in).
 * Only btf_type_by_id() of the kernel's BTF code
 * is exported, and it needs a struct btf we cannot get, so the two blobs
 * are read and walked here; every offset and length in them is checked
 * before use.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/btf.h>

#include "btf_check.h"

static bool btf_check = true;
module_param(btf_check, bool, 0444);
MODULE_PARM_DESC(btf_check,
		 "Refuse to load unless BTF shows the hooked RDMA core functions as compiled for (default 1)");

#define BTF_FILE_MAX	SZ_64M

struct bt_blob {
	void *data;
	size_t size;
	const struct btf_header *hdr;
	const u8 *types;
	u32 types_len;
	const char *strs;
	u32 strs_len;
	u32 first_id;		/* id of the blob's first type */
	u32 nr_types;
	u32 str_base;		/* string offsets below this are the base's */
};

struct bt_ctx {
	struct bt_blob base;	/* vmlinux */
	struct bt_blob mod;	/* ib_core, split on top of base */
};

/* Bytes of data that follow a type's common header; -1 if unknown. */
static long bt_extra(const struct btf_type *t)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/* Validate the header and count the types; the walk checks every record. */
static int bt_blob_init(struct bt_blob *b, u32 first_id, u32 str_base)
{
	const struct btf_header *h = b->data;
	u32 off = 0, n = 0;

	if (b->size < sizeof(*h) || h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > b->size)
		return -EINVAL;
	if (h->type_off > b->size - h->hdr_len ||
	    h->type_len > b->size - h->hdr_len - h->type_off ||
	    h->str_off > b->size - h->hdr_len ||
	    h->str_len > b->size - h->hdr_len - h->str_off || !h->str_len)
		return -EINVAL;
	b->hdr = h;
	b->types = (const u8 *)b->data + h->hdr_len + h->type_off;
	b->types_len = h->type_len;
	b->strs = (const char *)b->data + h->hdr_len + h->str_off;
	b->strs_len = h->str_len;
	if (b->strs[b->strs_len - 1])
		return -EINVAL;
	while (off < b->types_len) {
		const struct btf_type *t = (const void *)(b->types + off);
		long extra;

		if (b->types_len - off < sizeof(*t))
			return -EINVAL;
		extra = bt_extra(t);
		if (extra < 0 || extra > b->types_len - off - sizeof(*t))
			return -EINVAL;
		off += sizeof(*t) + extra;
		n++;
	}
	b->first_id = first_id;
	b->nr_types = n;
	b->str_base = str_base;
	return 0;
}

static const char *bt_str(const struct bt_ctx *c, u32 off)
{
	if (off < c->base.strs_len)
		return c->base.strs + off;
	off -= c->mod.str_base;
	if (c->mod.strs && off < c->mod.strs_len)
		return c->mod.strs + off;
	return NULL;
}

static const struct btf_type *bt_blob_type(const struct bt_blob *b, u32 id)
{
	u32 off = 0, i;

	if (id < b->first_id || id - b->first_id >= b->nr_types)
		return NULL;
	/* bt_blob_init() checked every record, so the walk stays in bounds */
	for (i = b->first_id; i < id; i++) {
		const struct btf_type *t = (const void *)(b->types + off);

		off += sizeof(*t) + bt_extra(t);
	}
	return (const void *)(b->types + off);
}

static const struct btf_type *bt_type(const struct bt_ctx *c, u32 id)
{
	return bt_blob_type(id < c->mod.first_id ? &c->base : &c->mod, id);
}

/* Follow typedefs and qualifiers. */
static const struct btf_type *bt_skip_mods(const struct bt_ctx *c, u32 id)
{
	const struct btf_type *t;
	int depth;

	for (depth = 0; depth < 16; depth++) {
		t = bt_type(c, id);
		if (!t)
			return NULL;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return t;
		}
	}
	return NULL;
}

static bool bt_named(const struct bt_ctx *c, const struct btf_type *t,
		     u32 kind, const char *name)
{
	const char *s;

	if (!t || BTF_INFO_KIND(t->info) != kind)
		return false;
	s = bt_str(c, t->name_off);
	return s && !strcmp(s, name);
}

/* The named type of @kind in ib_core's BTF (or vmlinux's). */
static const struct btf_type *bt_find(const struct bt_ctx *c, u32 kind,
				      const char *name)
{
	const struct bt_blob *blobs[] = { &c->mod, &c->base };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(blobs); i++) {
		const struct bt_blob *b = blobs[i];
		u32 off = 0, n;

		for (n = 0; n < b->nr_types; n++) {
			const struct btf_type *t = (const void *)(b->types + off);

			if (bt_named(c, t, kind, name))
				return t;
			off += sizeof(*t) + bt_extra(t);
		}
	}
	return NULL;
}

/* Parameter types a probed function must have, "*name" for struct name *. */
struct probed_sig {
	const char *func;
	unsigned int nparams;
	const char *params[4];
};

static bool param_ok(const struct bt_ctx *c, u32 type, const char *want)
{
	const struct btf_type *t = bt_skip_mods(c, type);

	if (want[0] == '*') {
		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
			return false;
		t = bt_skip_mods(c, t->type);
		return bt_named(c, t, BTF_KIND_STRUCT, want + 1);
	}
	return bt_named(c, t, BTF_KIND_INT, want);
}

static int check_sig(const struct bt_ctx *c, const struct probed_sig *sig,
		     const char **why)
{
	const struct btf_param *p;
	const struct btf_type *f;
	unsigned int i;

	f = bt_find(c, BTF_KIND_FUNC, sig->func);
	if (!f) {
		*why = "function not described in BTF";
		return -ENOENT;
	}
	f = bt_type(c, f->type);
	if (!f || BTF_INFO_KIND(f->info) != BTF_KIND_FUNC_PROTO) {
		*why = "function has no prototype in BTF";
		return -EINVAL;
	}
	if (BTF_INFO_VLEN(f->info) != sig->nparams) {
		*why = "parameter count differs";
		return -EINVAL;
	}
	p = (const struct btf_param *)(f + 1);
	for (i = 0; i < sig->nparams; i++) {
		if (!param_ok(c, p[i].type, sig->params[i])) {
			*why = "parameter type differs";
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Members the hooks read or write, at their compiled offsets, also through
 * the RDMA core's inline helpers (rdma_is_port_valid(),
 * rdma_protocol_roce(), rdma_read_gid_attr_ndev_rcu()).
 */
struct probed_field {
	const char *type;
	const char *member;
	size_t offset;
};

#define FIELD(_t, _m) { #_t, #_m, offsetof(struct _t, _m) }

static const struct probed_field fields[] = {
	FIELD(ib_qp, device),
	FIELD(ib_qp, qp_num),
	FIELD(ib_qp, qp_type),
	FIELD(ib_qp, av_sgid_attr),
	FIELD(ib_qp_attr, ah_attr),
	FIELD(ib_qp_attr, dest_qp_num),
	FIELD(rdma_ah_attr, grh),
	FIELD(rdma_ah_attr, port_num),
	FIELD(rdma_ah_attr, ah_flags),
	FIELD(rdma_ah_attr, type),
	FIELD(ib_global_route, dgid),
	FIELD(ib_global_route, flow_label),
	FIELD(ib_global_route, sgid_attr),
	FIELD(ib_global_route, sgid_index),
	FIELD(ib_device, index),
	FIELD(ib_device, phys_port_cnt),
	FIELD(ib_device, port_data),
	FIELD(ib_port_data, immutable),
	FIELD(ib_port_immutable, core_cap_flags),
	FIELD(ib_gid_attr, ndev),
	FIELD(ib_gid_attr, gid_type),
	FIELD(ib_gid_attr, gid),
	FIELD(net_device, ifindex),
};

/*
 * Whole sizes: a member's offset can match while the structure around it
 * grew, and port_data[] is indexed by the compiled size of an element.
 */
struct probed_size {
	const char *type;
	size_t size;
};

#define SIZE(_t) { #_t, sizeof(struct _t) }

static const struct probed_size sizes[] = {
	SIZE(ib_qp),
	SIZE(ib_qp_attr),
	SIZE(rdma_ah_attr),
	SIZE(ib_global_route),
	SIZE(ib_device),
	SIZE(ib_port_data),
	SIZE(ib_port_immutable),
	SIZE(ib_gid_attr),
	SIZE(net_device),
};

/* The member named @member of struct @type, or NULL with @why set. */
static const struct btf_member *bt_member(const struct bt_ctx *c,
					  const char *type, const char *member,
					  const struct btf_type **st,
					  const char **why)
{
	const struct btf_member *m;
	const struct btf_type *t;
	unsigned int i, vlen;

	t = bt_find(c, BTF_KIND_STRUCT, type);
	if (!t) {
		*why = "structure not described in BTF";
		return NULL;
	}
	vlen = BTF_INFO_VLEN(t->info);
	m = (const struct btf_member *)(t + 1);
	for (i = 0; i < vlen; i++) {
		const char *s = bt_str(c, m[i].name_off);

		if (s && !strcmp(s, member)) {
			*st = t;
			return &m[i];
		}
	}
	*why = "member missing";
	return NULL;
}

static u32 bt_bit_offset(const struct btf_type *t, const struct btf_member *m)
{
	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) :
					 m->offset;
}

static int check_field(const struct bt_ctx *c, const struct probed_field *fd,
		       const char **why)
{
	const struct btf_member *m;
	const struct btf_type *t;

	m = bt_member(c, fd->type, fd->member, &t, why);
	if (!m)
		return -EINVAL;
	if (bt_bit_offset(t, m) != fd->offset * BITS_PER_BYTE) {
		*why = "member offset differs";
		return -EINVAL;
	}
	return 0;
}

static int check_size(const struct bt_ctx *c, const struct probed_size *sz,
		      const char **why)
{
	const struct btf_type *t = bt_find(c, BTF_KIND_STRUCT, sz->type);

	if (!t) {
		*why = "structure not described in BTF";
		return -EINVAL;
	}
	if (t->size != sz->size) {
		*why = "structure size differs";
		return -EINVAL;
	}
	return 0;
}

/*
 * ib_device.is_switch, a one-bit field that rdma_is_port_valid() reads:
 * offsetof() cannot name it, so find the bit the compiler gave it by
 * setting it in a zeroed structure.
 */
static int check_is_switch(const struct bt_ctx *c, const char **why)
{
	const struct btf_member *m;
	const struct btf_type *t;
	struct ib_device *d;
	const u8 *b;
	long bit = -1;
	size_t i;

	m = bt_member(c, "ib_device", "is_switch", &t, why);
	if (!m)
		return -EINVAL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->is_switch = 1;
	b = (const u8 *)d;
	for (i = 0; i < sizeof(*d) && bit < 0; i++)
		if (b[i])
			bit = i * BITS_PER_BYTE + __ffs(b[i]);
	kfree(d);
	/* Little-endian bit numbering, as BTF's on x86-64 and arm64. */
	if (!BTF_INFO_KFLAG(t->info) || BTF_MEMBER_BITFIELD_SIZE(m->offset) != 1 ||
	    bit != bt_bit_offset(t, m)) {
		*why = "bit-field position differs";
		return -EINVAL;
	}
	return 0;
}

/*
 * Read a whole BTF file. Not kernel_read_file(): that asks the LSMs about
 * a "kernel read" of an unknown kind, which IPE answers with a WARN.
 */
static int bt_read(const char *path, struct bt_blob *b)
{
	struct file *f;
	loff_t size, pos = 0;
	ssize_t n;
	int err = 0;

	b->data = NULL;
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > BTF_FILE_MAX) {
		err = -EFBIG;
		goto out;
	}
	b->data = vmalloc(size);
	if (!b->data) {
		err = -ENOMEM;
		goto out;
	}
	while (pos < size) {
		n = kernel_read(f, b->data + pos, size - pos, &pos);
		if (n <= 0) {
			err = n ? n : -EIO;
			goto out;
		}
	}
	b->size = size;
out:
	fput(f);
	return err;
}

static const struct probed_sig sigs[] = {
	{ "_ib_modify_qp", 4,
	  { "*ib_qp", "*ib_qp_attr", "int", "*ib_udata" } },
	{ "ib_destroy_qp_user", 2, { "*ib_qp", "*ib_udata" } },
};

/**
 * rocepath_btf_check - verify the hooked functions against the kernel's BTF
 *
 * Returns 0 when every signature, field and size matches (or btf_check=0),
 * else -EOPNOTSUPP (this kernel is not one the module can run on) after
 * logging which check failed and what the kernel lacks.
 */
int rocepath_btf_check(void)
{
	struct bt_ctx c = {};
	const char *why = NULL, *what = NULL;
	unsigned int i;
	int err;

	if (!btf_check) {
		pr_warn("btf_check=0: the hooked functions' signatures and layouts are not verified\n");
		return 0;
	}
	err = bt_read("/sys/kernel/btf/vmlinux", &c.base);
	if (err) {
		pr_err("refusing to load: no kernel BTF (/sys/kernel/btf/vmlinux: %d); the module needs CONFIG_DEBUG_INFO_BTF to verify the RDMA core it hooks\n",
		       err);
		goto out;
	}
	err = bt_blob_init(&c.base, 1, 0);
	if (err) {
		pr_err("refusing to load: malformed BTF in /sys/kernel/btf/vmlinux: %d\n",
		       err);
		goto out;
	}
	/* Built-in ib_core is described by vmlinux's BTF, with no split part. */
	if (IS_MODULE(CONFIG_INFINIBAND)) {
		err = bt_read("/sys/kernel/btf/ib_core", &c.mod);
		if (err) {
			pr_err("refusing to load: no BTF for ib_core (/sys/kernel/btf/ib_core: %d); the module needs CONFIG_DEBUG_INFO_BTF_MODULES to verify the RDMA core it hooks\n",
			       err);
			goto out;
		}
		err = bt_blob_init(&c.mod, c.base.nr_types + 1, c.base.strs_len);
		if (err) {
			pr_err("refusing to load: malformed BTF in /sys/kernel/btf/ib_core: %d\n",
			       err);
			goto out;
		}
	} else {
		c.mod.first_id = c.base.nr_types + 1;
	}
	for (i = 0; i < ARRAY_SIZE(sigs) && !err; i++) {
		err = check_sig(&c, &sigs[i], &why);
		what = sigs[i].func;
	}
	for (i = 0; i < ARRAY_SIZE(fields) && !err; i++) {
		err = check_field(&c, &fields[i], &why);
		what = fields[i].member;
	}
	for (i = 0; i < ARRAY_SIZE(sizes) && !err; i++) {
		err = check_size(&c, &sizes[i], &why);
		what = sizes[i].type;
	}
	if (!err) {
		err = check_is_switch(&c, &why);
		what = "is_switch";
	}
	if (err)
		pr_err("refusing to load: this kernel's RDMA core differs from the headers the module was built with (%s: %s); rebuild the module against this kernel's headers\n",
		       what, why);
out:
	vfree(c.mod.data);
	vfree(c.base.data);
	return err ? -EOPNOTSUPP : 0;
}
