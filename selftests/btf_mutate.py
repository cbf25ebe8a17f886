#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a copy of a module's split BTF with one deliberate difference, for
module_btf.sh: bind-mounted over /sys/kernel/btf/ib_core it makes the
running kernel look like one whose RDMA core differs from the headers
rocepath.ko was built with.

  btf_mutate.py MODE OUT [BASE] [MODULE]
  Prints which file OUT stands for: "ib_core" or "vmlinux" (the RDMA
  structures may be described in either, wherever pahole's dedup put them).

  btf_mutate.py -d DIR MODE...
  Each MODE to DIR/MODE.btf, a "MODE FILE" line each ("MODE -" and the
  reason on stderr for one that cannot be made), from the running
  kernel's files: they are parsed once (seconds under TCG), not per MODE.
  MODE: swap     swap _ib_modify_qp's first two parameter types
        nparams  drop _ib_modify_qp's last parameter
        offset   move struct ib_qp_attr's dest_qp_num by 4 bytes
        offset:STRUCT.MEMBER
                 move that member by 4 bytes instead (a bit-field by 32 bits)
        size:STRUCT
                 grow that structure by 8 bytes
        nofunc   rename _ib_modify_qp so it is not found
        garbage  truncate the type section mid-record
"""
import struct
import sys

KIND_STRUCT, KIND_FUNC, KIND_FUNC_PROTO = 4, 12, 13
# bytes that follow the 12-byte common header, per kind (vlen-scaled ones
# are (per-item, True))
EXTRA = {1: (4, False), 3: (12, False), 4: (12, True), 5: (12, True),
         6: (8, True), 13: (8, True), 14: (4, False), 15: (12, True),
         17: (4, False), 19: (12, True)}


def parse(data):
    hdr = struct.unpack_from("<HBBIIIII", data)
    magic, _, _, hdr_len, type_off, type_len, str_off, str_len = hdr
    if magic != 0xEB9F:
        sys.exit("not BTF")
    tbase = hdr_len + type_off
    types, off = [], 0
    while off < type_len:
        name_off, info, size = struct.unpack_from("<III", data, tbase + off)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        per, scaled = EXTRA.get(kind, (0, False))
        extra = per * vlen if scaled else per
        types.append((tbase + off, name_off, kind, vlen, size))
        off += 12 + extra
    sbase = hdr_len + str_off
    return types, data[sbase:sbase + str_len], hdr


class Unmakeable(Exception):
    pass


def mutate(mode, base, bparsed, orig, parsed, bindex):
    """(which file, its mutated bytes) for MODE; BINDEX caches vmlinux's
    (kind, name) -> type across calls."""
    btypes, bstrs, _ = bparsed
    types, strs, hdr = parsed
    data = bytearray(orig)
    first_id = len(btypes) + 1

    def name(off):
        # Not a slice to the end: that copies megabytes for each name.
        if off < len(bstrs):
            s = bstrs
        else:
            s, off = strs, off - len(bstrs)
        return s[off:s.index(b"\0", off)].decode()

    def find(kind, nm, where=None):
        where = where or types
        # vmlinux has some 125,000 types: its index, once, of the kinds
        # looked up (under TCG a scan for each MODE took seconds).
        if where is btypes:
            if not bindex:
                for t in btypes:
                    if t[2] in (KIND_STRUCT, KIND_FUNC):
                        bindex.setdefault((t[2], name(t[1])), t)
            return None, bindex.get((kind, nm))
        for i, t in enumerate(where):
            if t[2] == kind and name(t[1]) == nm:
                return i, t
        return None, None

    target = "ib_core"
    if mode == "garbage":
        hdr_len, type_off, type_len = hdr[3], hdr[4], hdr[5]
        data = data[:hdr_len + type_off + type_len // 2 + 3]
    elif mode in ("swap", "nparams", "nofunc"):
        _, f = find(KIND_FUNC, "_ib_modify_qp")
        if not f:
            raise Unmakeable("_ib_modify_qp not in the module's BTF")
        if mode == "nofunc":
            # the name is in the module's strings: change its first letter
            soff = len(data) - len(strs) + f[1] - len(bstrs)
            assert data[soff:soff + 13] == b"_ib_modify_qp"
            data[soff] = ord("X")
        else:
            proto = types[f[4] - first_id]
            assert proto[2] == KIND_FUNC_PROTO and proto[3] == 4
            p0 = proto[0] + 12
            if mode == "swap":
                a = data[p0 + 4:p0 + 8]
                data[p0 + 4:p0 + 8] = data[p0 + 12:p0 + 16]
                data[p0 + 12:p0 + 16] = a
            else:
                info = struct.unpack_from("<I", data, proto[0] + 4)[0]
                struct.pack_into("<I", data, proto[0] + 4, info - 1)
                # keep the record length: turn the dropped param into padding
                # by shrinking vlen only is not enough, so shift the rest
                start = p0 + 3 * 8
                del data[start:start + 8]
                struct.pack_into("<I", data, 12, hdr[5] - 8)   # type_len
                struct.pack_into("<I", data, 16, hdr[6] - 8)   # str_off
    elif mode == "offset" or mode.startswith(("offset:", "size:")):
        if mode.startswith("size:"):
            sname, member = mode[5:], None
        else:
            sname, member = (mode[7:] or "ib_qp_attr.dest_qp_num").split(".")
        _, s = find(KIND_STRUCT, sname)
        if not s:
            _, s = find(KIND_STRUCT, sname, btypes)
            if not s:
                raise Unmakeable(f"struct {sname} in neither BTF")
            data, target = bytearray(base), "vmlinux"
        if member is None:
            size = struct.unpack_from("<I", data, s[0] + 8)[0]
            struct.pack_into("<I", data, s[0] + 8, size + 8)
            return target, data
        for m in range(s[3]):
            moff = s[0] + 12 + 12 * m
            n_off, _, bits = struct.unpack_from("<III", data, moff)
            if name(n_off) == member:
                struct.pack_into("<I", data, moff + 8, bits + 32)
                break
        else:
            raise Unmakeable(f"no {member} in {sname}")
    else:
        raise Unmakeable("unknown mode " + mode)
    return target, data


def main():
    if sys.argv[1:2] == ["-d"] and len(sys.argv) > 3:
        outdir, modes = sys.argv[2], sys.argv[3:]
        base_path, mod_path = "/sys/kernel/btf/vmlinux", "/sys/kernel/btf/ib_core"
    elif len(sys.argv) in (3, 4, 5):
        outdir, modes = None, sys.argv[1:2]
        base_path = sys.argv[3] if len(sys.argv) > 3 else "/sys/kernel/btf/vmlinux"
        mod_path = sys.argv[4] if len(sys.argv) > 4 else "/sys/kernel/btf/ib_core"
    else:
        sys.exit(__doc__)
    base = open(base_path, "rb").read()
    bparsed = parse(base)
    orig = open(mod_path, "rb").read()
    parsed = parse(orig)
    failed = False
    bindex = {}
    for mode in modes:
        out = sys.argv[2] if outdir is None else "%s/%s.btf" % (outdir, mode)
        try:
            target, data = mutate(mode, base, bparsed, orig, parsed, bindex)
        except Unmakeable as e:
            if outdir is None:
                sys.exit(str(e))
            print("btf_mutate.py: %s: %s" % (mode, e), file=sys.stderr)
            print(mode, "-")
            failed = True
            continue
        with open(out, "wb") as f:
            f.write(data)
        print(target if outdir is None else "%s %s" % (mode, target))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
