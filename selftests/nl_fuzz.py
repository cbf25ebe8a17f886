#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Netlink fuzzer for a generic netlink family, derived from its YNL spec.

usage: nl_fuzz.py [--spec YAML] [--seed N] [--count N] [--unpriv-count N]
                  [--start I] [--phase both|root|unpriv] [--index I] [--timeout S]
                  [--sockets N] [--ibdev NAME]... [--addr IP]...
                  [--dry-run] [--verbose]

For every request of every operation in the spec (do and dump) it builds
messages from the spec's attribute sets: valid ones (values inside any
`checks:` of the spec, often at the edges) and mutated ones (wrong
types and lengths, out-of-range values, wrong nesting, unknown, missing
and repeated attributes, truncated attributes and headers, wrong
nlmsg_len, odd flags, random bytes, wrong commands and versions).

Message I of a phase is generated from (seed, phase, I) alone, so the
same seed and count replay the same messages, --index I --phase P
replays one message, and --start S sends messages S..S+count-1, so that
a long run can be done in parts that together equal the whole. As root first; then, in a forked child that drops
to uid/gid 65534, as an unprivileged user (the same count unless
--unpriv-count says otherwise).

Assertions (exit 1 on any violation, one "FAIL ..." line each naming
phase, op, mutation, seed and index, plus the message in hex):
  - every request that netlink must answer (NLM_F_ACK, a dump request,
    an error) is answered (ack, error or NLMSG_DONE) within --timeout;
  - unprivileged, every state-changing or admin-only operation
    (admin-perm do or dump, or any do that is not a *-get) that reaches
    the family is refused, with EPERM when its headers pass genetlink's
    checks (reserved 0, plain flags), or EOPNOTSUPP for a kind (do or
    dump) the command has no handler for: 6.12 looks the handler up
    before the permission, 6.1 after;
  - every socket still answers a valid request afterwards.
Messages are spread over --sockets sockets, one of them reopened about
every 256 messages (the choice also follows from the index).
Statistics at the end as "# " lines: seed, count, messages per operation
and mutation, an errno histogram and messages per second.
"""
import argparse
import errno
import ipaddress
import os
import random
import select
import socket
import struct
import sys
import threading
import time

import yaml

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE = 1, 2, 3
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 1, 2, 4, 8
NLM_F_ROOT, NLM_F_MATCH = 0x100, 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2

NLMSGHDR = struct.Struct('=IHHII')
GENLHDR = struct.Struct('=BBH')
NLAHDR = struct.Struct('=HH')
RXHDR = struct.Struct('=IHHI')
I32 = struct.Struct('=i')

INT_TYPES = {
    'u8': ('B', 0, 0xff), 'u16': ('H', 0, 0xffff),
    'u32': ('I', 0, 0xffffffff), 'u64': ('Q', 0, (1 << 64) - 1),
    'uint': ('Q', 0, (1 << 64) - 1),
    's8': ('b', -0x80, 0x7f), 's16': ('h', -0x8000, 0x7fff),
    's32': ('i', -(1 << 31), (1 << 31) - 1), 's64': ('q', -(1 << 63), (1 << 63) - 1),
    'sint': ('q', -(1 << 63), (1 << 63) - 1),
}

# Names the YNL schema allows for checks (u32-max, s16-min, ...).
TYPE_LIMITS = {}
for _t, (_f, _lo, _hi) in INT_TYPES.items():
    TYPE_LIMITS[_t + '-min'], TYPE_LIMITS[_t + '-max'] = _lo, _hi

TOP = os.environ.get('ROCEPATH_TOP',
                     os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SPEC = os.path.join(TOP, 'Documentation/netlink/specs/rocepath.yaml')

# Printable ASCII to cut random strings from (cheaper than building them).
PRINTABLE = bytes(0x21 + (i * 37 + (i >> 3) * 11) % 94 for i in range(1024))

# Mutations and their weights (valid messages are a good share: they are
# what reaches the handlers' deeper paths).
MUTATIONS = [
    ('valid', 30), ('wrong-len', 6), ('wrong-type', 4), ('range', 8),
    ('nesting', 5), ('unknown-attr', 5), ('missing', 4), ('repeat', 5),
    ('trunc-attr', 5), ('trunc-hdr', 3), ('nlmsg-len', 4), ('flags', 6),
    ('random', 4), ('cmd', 4), ('version', 3), ('nla-flags', 4),
]


class FastRandom(random.Random):
    """random.Random with cheaper integer and choice helpers (randrange is
    pure Python and dominates the cost of a message otherwise)."""

    def ri(self, a, b=None):
        """a <= x < b, or 0 <= x < a."""
        if b is None:
            return int(self.random() * a)
        return a + int(self.random() * (b - a))

    def rint(self, a, b):
        """a <= x <= b."""
        x = a + int(self.random() * (b - a + 1))
        return b if x > b else x

    def ch(self, seq):
        return seq[int(self.random() * len(seq))]


class Attr:
    __slots__ = ('name', 'id', 'type', 'st', 'lo', 'hi', 'tlo', 'thi',
                 'nested', 'multi', 'minlen', 'maxlen', 'exactlen', 'enum',
                 'flagmask', 'checked')


class Req:
    __slots__ = ('op', 'mode', 'cmd', 'attrs', 'state', 'label', 'aset')


def fail_line(msg):
    sys.stdout.write('FAIL ' + msg + '\n')
    sys.stdout.flush()


class Spec:
    def __init__(self, path):
        loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
        with open(path) as f:
            y = yaml.load(f, Loader=loader)
        self.name = y['name']
        self.version = int(y.get('version', 1))
        self.consts = {}
        self.enums = {}
        for d in y.get('definitions', []):
            if d.get('type') == 'const':
                self.consts[d['name']] = int(d['value'])
            elif d.get('type') in ('enum', 'flags'):
                start = int(d.get('value-start', 0))
                vals = []
                for k, e in enumerate(d.get('entries', [])):
                    v = e.get('value', start + k) if isinstance(e, dict) else start + k
                    vals.append(int(v))
                if d['type'] == 'flags':
                    vals = [1 << v for v in vals]
                self.enums[d['name']] = (d['type'] == 'flags', vals)
        self.sets = {}
        for s in y.get('attribute-sets', []):
            attrs = []
            val = 1
            for e in s['attributes']:
                if 'value' in e:
                    val = int(e['value'])
                attrs.append(self._attr(e, val))
                val += 1
            self.sets[s['name']] = [a for a in attrs if a.type not in ('unused', 'pad')]
        for attrs in self.sets.values():
            for a in attrs:
                if a.nested and a.nested not in self.sets:
                    a.nested = None
        self.maxattr = {n: max([a.id for a in v] or [0]) for n, v in self.sets.items()}
        self.reqs = []
        # cmd -> (modes with a handler, modes an unprivileged caller is
        # refused): a do of an admin-perm dump-only command is refused
        # too, with EPERM up to 6.1 and EOPNOTSUPP from the split-ops
        # genetlink on (the missing handler is found before the perm check)
        self.state_cmds = {}
        self.ops = []
        val = 1
        ops = y.get('operations', {})
        if ops.get('fixed-header') or ops.get('msg-id-model', 'unified') != 'unified':
            raise SystemExit('nl_fuzz: fixed headers and directional ids are not supported')
        for op in ops.get('list', []):
            if 'value' in op:
                val = int(op['value'])
            cmd = val
            val += 1
            if 'do' not in op and 'dump' not in op:
                continue
            admin = 'admin-perm' in op.get('flags', [])
            state = admin or ('do' in op and not op['name'].endswith('-get'))
            modes = {m for m in ('do', 'dump') if m in op}
            if admin:
                self.state_cmds[cmd] = (modes, {'do', 'dump'})
            elif state:
                self.state_cmds[cmd] = (modes, {'do'})
            self.ops.append((op['name'], cmd, admin, state))
            aset = op.get('attribute-set')
            for mode in ('do', 'dump'):
                if mode not in op:
                    continue
                r = Req()
                r.op, r.mode, r.cmd, r.state = op['name'], mode, cmd, state
                r.label = '%s/%s' % (op['name'], mode)
                r.aset = aset
                names = ((op[mode] or {}).get('request') or {}).get('attributes', [])
                r.attrs = [a for a in self.sets.get(aset, []) if a.name in names]
                self.reqs.append(r)
        self.allcmds = sorted({c for _, c, _, _ in self.ops})
        self.maxcmd = val - 1

    def _num(self, v):
        if isinstance(v, int):
            return v
        if isinstance(v, str) and v in self.consts:
            return self.consts[v]
        if isinstance(v, str) and v in TYPE_LIMITS:
            return TYPE_LIMITS[v]
        try:
            return int(str(v), 0)
        except ValueError:
            return None

    def _attr(self, e, val):
        a = Attr()
        a.name, a.id, a.type = e['name'], val, e['type']
        a.nested = e.get('nested-attributes') if a.type in ('nest', 'indexed-array') else None
        if a.type == 'indexed-array':
            a.type = 'nest'
        a.multi = bool(e.get('multi-attr'))
        checks = e.get('checks') or {}
        a.checked = bool(checks)
        a.minlen = self._num(checks.get('min-len'))
        a.maxlen = self._num(checks.get('max-len'))
        a.exactlen = self._num(checks.get('exact-len'))
        a.st = None
        a.enum = None
        a.flagmask = None
        if a.type in INT_TYPES:
            fmt, a.tlo, a.thi = INT_TYPES[a.type]
            order = '>' if e.get('byte-order') == 'big-endian' else '='
            a.st = struct.Struct(order + fmt)
            lo, hi = self._num(checks.get('min')), self._num(checks.get('max'))
            a.lo = a.tlo if lo is None else max(lo, a.tlo)
            a.hi = a.thi if hi is None else min(hi, a.thi)
            if e.get('enum') in self.enums:
                isflags, vals = self.enums[e['enum']]
                if isflags or e.get('enum-as-flags'):
                    m = 0
                    for v in vals:
                        m |= v if isflags else (1 << v)
                    a.flagmask = m
                else:
                    a.enum = vals
        else:
            a.tlo = a.thi = a.lo = a.hi = None
        return a


class Gen:
    """Builds message I of a phase; everything random comes from one
    random.Random seeded with (seed, phase, I)."""

    def __init__(self, spec, famid, ibdevs, addrs):
        self.s = spec
        self.famid = famid
        self.ibdevs = [d.encode() for d in ibdevs]
        self.addrs = addrs
        self.r = FastRandom()
        self.nest_p = 0.5
        self.top_set = None
        muts = []
        for name, w in MUTATIONS:
            muts += [name] * w
        self.muts = muts
        self.setnames = sorted(spec.sets)
        self.allattrs = [a for n in self.setnames for a in spec.sets[n]]
        self.cmd_pool = list(range(0, spec.maxcmd + 3)) + [0x7f, 0x80, 0xff]

    # ---- values -------------------------------------------------------
    def int_valid(self, a, r):
        if a.enum is not None and a.enum:
            return r.ch(a.enum)
        if a.flagmask is not None:
            return r.ri(0, a.flagmask + 1) & a.flagmask
        x = r.random()
        if x < 0.2:
            return a.lo
        if x < 0.4:
            return a.hi
        if x < 0.55 and a.lo <= 1 <= a.hi:
            return 1
        return r.rint(a.lo, a.hi)

    def int_bad(self, a, r):
        c = []
        if a.lo > a.tlo:
            c += [a.lo - 1, a.tlo, r.rint(a.tlo, a.lo - 1)]
        if a.hi < a.thi:
            c += [a.hi + 1, a.thi, r.rint(a.hi + 1, a.thi)]
        if a.enum:
            bad = [v for v in (max(a.enum) + 1, a.thi, a.tlo) if v not in a.enum]
            c += bad
        if a.flagmask is not None and a.flagmask != a.thi:
            c += [a.flagmask + 1, a.thi, (a.flagmask + 1) | 1]
        if not c:       # no range in the spec: the type's edges
            c = [a.tlo, a.thi, a.tlo + 1, a.thi - 1, 0]
        return r.ch(c)

    def str_valid(self, a, r):
        if a.name.endswith('ibdev') or a.name.endswith('netdev') or a.name == 'name':
            if r.random() < 0.75:
                return r.ch(self.ibdevs) + b'\0'
        mx = a.maxlen if a.maxlen is not None else 32
        mn = a.minlen or 0
        x = r.random()
        n = mx if x < 0.2 else (mn if x < 0.3 else r.rint(mn, mx))
        k = r.ri(0, len(PRINTABLE) - n) if n < len(PRINTABLE) else 0
        return PRINTABLE[k:k + n] + b'\0'

    def bin_valid(self, a, r):
        if a.exactlen is not None:
            n = a.exactlen
        elif a.minlen is not None or a.maxlen is not None:
            mn, mx = a.minlen or 0, a.maxlen if a.maxlen is not None else 64
            n = r.ch((mn, mx, r.rint(mn, mx)))
        else:   # no length in the spec: addresses mostly
            if self.addrs and r.random() < 0.4:
                return r.ch(self.addrs)
            n = r.ch((4, 16, 4, 16, 6, 8, r.ri(0, 40)))
        return r.randbytes(n)

    def payload(self, a, r, depth=0):
        t = a.type
        if a.st is not None:
            return a.st.pack(self.int_valid(a, r))
        if t == 'string':
            return self.str_valid(a, r)
        if t == 'binary':
            return self.bin_valid(a, r)
        if t == 'flag':
            return b''
        if t == 'bitfield32':
            return struct.pack('=II', r.getrandbits(32), r.getrandbits(32))
        if t == 'nest':
            if a.nested is None or depth > 6:
                return []
            return self.attrs(self.s.sets[a.nested], r, self.nest_p, depth + 1)
        return r.randbytes(r.ri(0, 16))

    def node(self, a, r, depth=0):
        p = self.payload(a, r, depth)
        return [a.id | (NLA_F_NESTED if isinstance(p, list) else 0), p, a]

    def attrs(self, alist, r, prob, depth=0):
        out = []
        for a in alist:
            if r.random() < prob:
                k = r.ch((1, 1, 2, 3)) if a.multi else 1
                for _ in range(k):
                    out.append(self.node(a, r, depth))
        return out

    # ---- serialisation ------------------------------------------------
    def ser(self, nodes):
        out = []
        for t, p, _ in nodes:
            if isinstance(p, list):
                p = self.ser(p)
            n = len(p)
            out.append(NLAHDR.pack(4 + n, t))
            out.append(p)
            if n & 3:
                out.append(b'\0' * (4 - (n & 3)))
        return b''.join(out)

    @staticmethod
    def walk(nodes, acc):
        for nd in nodes:
            acc.append((nd, nodes))
            if isinstance(nd[1], list):
                Gen.walk(nd[1], acc)
        return acc

    # ---- mutations on the attribute tree --------------------------------
    def m_wrong_len(self, tree, r):
        acc = self.walk(tree, [])
        if not acc:
            tree.append([r.ri(1, 8), r.randbytes(r.ri(0, 9)), None])
            return
        nd, _ = r.ch(acc)
        a = nd[2]
        if a is not None and a.st is not None:
            sz = a.st.size
            n = r.ch([x for x in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16) if x != sz])
            nd[1] = r.randbytes(n)
        elif a is not None and a.type == 'string':
            mx = a.maxlen if a.maxlen is not None else 32
            nd[1] = r.ch((
                b'', b'\0', b'rxe0',                        # empty, bare NUL, no NUL
                b'x' * (mx + 1) + b'\0', b'x' * mx + b'\0',  # just over / at max-len
                b'x' * (mx + r.ri(2, 300)) + b'\0',
                b'rx\0e0\0', b'x' * (mx + 1)))
        elif a is not None and a.type == 'binary':
            c = [0, 1, 3, 5, 15, 17, 64, 255, r.ri(0, 600)]
            if a.exactlen is not None:
                c += [a.exactlen - 1, a.exactlen + 1]
            if a.maxlen is not None:
                c += [a.maxlen + 1]
            if a.minlen:
                c += [a.minlen - 1]
            nd[1] = r.randbytes(max(0, r.ch(c)))
        else:
            nd[1] = r.randbytes(r.ri(0, 12))
            nd[0] &= ~NLA_F_NESTED

    def m_wrong_type(self, tree, r):
        acc = self.walk(tree, [])
        if not acc:
            return self.m_unknown(tree, r)
        nd, _ = r.ch(acc)
        other = r.ch(self.allattrs)
        p = self.payload(other, r, 5)
        nd[0] = (nd[0] & 0x3fff) | (NLA_F_NESTED if isinstance(p, list) else 0)
        nd[1] = p

    def m_range(self, tree, r):
        acc = [x for x in self.walk(tree, []) if x[0][2] is not None and x[0][2].st is not None]
        checked = [x for x in acc if x[0][2].checked or x[0][2].enum or x[0][2].flagmask]
        pool = checked or acc
        if not pool:
            return self.m_wrong_len(tree, r)
        for _ in range(r.ch((1, 1, 2))):
            nd, _ = r.ch(pool)
            nd[1] = nd[2].st.pack(self.int_bad(nd[2], r))

    def m_nesting(self, tree, r):
        acc = self.walk(tree, [])
        x = r.random()
        nests = [n for n in acc if isinstance(n[0][1], list)]
        if x < 0.3 and nests:       # a nest holding another set's attributes
            nd, _ = r.ch(nests)
            other = self.s.sets[r.ch(self.setnames)]
            nd[1] = self.attrs(other, r, 0.4, 3)
        elif x < 0.5 and nests:     # a nest holding a scalar payload
            nd, _ = r.ch(nests)
            nd[1] = r.randbytes(r.ch((0, 1, 4, 8)))
        elif x < 0.7 and acc:       # a scalar holding nested attributes
            nd, _ = r.ch(acc)
            nd[0] |= NLA_F_NESTED
            nd[1] = self.attrs(self.allattrs[:8], r, 0.5, 3) or [[1, b'\0\0\0\0', None]]
        elif x < 0.85:              # deep nesting
            d = r.ri(2, 40)
            inner = [[r.ri(1, 8), r.randbytes(4), None]]
            for _ in range(d):
                inner = [[r.ri(1, 8) | NLA_F_NESTED, inner, None]]
            (r.ch(nests)[0][1] if nests and r.random() < 0.5 else tree).extend(inner)
        else:                       # a nested set's attribute at the top level
            a = r.ch(self.allattrs)
            tree.append(self.node(a, r, 3))

    def m_unknown(self, tree, r):
        acc = [n for n in self.walk(tree, []) if isinstance(n[0][1], list)]
        target, setname = tree, None
        if acc and r.random() < 0.5:
            nd = r.ch(acc)[0]
            target = nd[1]
            setname = nd[2].nested if nd[2] is not None else None
        mx = self.s.maxattr.get(setname or self.top_set, 0)
        t = r.ch((mx + 1, mx + 2, mx + r.ri(1, 64), 0, 0x3fff,
                      r.ri(0, 0x4000)))
        p = r.ch((b'', r.randbytes(4), r.randbytes(r.ri(0, 40))))
        target.insert(r.ri(0, len(target) + 1), [t, p, None])

    def m_missing(self, tree, r):
        acc = self.walk(tree, [])
        if not acc or r.random() < 0.3:
            tree.clear()
            return
        for _ in range(r.ri(1, 4)):
            acc = self.walk(tree, [])
            if not acc:
                break
            nd, parent = r.ch(acc)
            parent.remove(nd)

    def m_repeat(self, tree, r):
        acc = self.walk(tree, [])
        if not acc:
            return self.m_unknown(tree, r)
        single = [x for x in acc if x[0][2] is not None and not x[0][2].multi]
        nd, parent = r.ch(single or acc)
        for _ in range(r.ch((1, 1, 2, 5, 30))):
            cp = list(nd)
            if nd[2] is not None and r.random() < 0.5 and not isinstance(nd[1], list):
                cp[1] = self.payload(nd[2], r, 5)
            parent.insert(r.ri(0, len(parent) + 1), cp)

    def m_nla_flags(self, tree, r):
        acc = self.walk(tree, [])
        if not acc:
            return self.m_unknown(tree, r)
        for _ in range(r.ri(1, 3)):
            nd, _ = r.ch(acc)
            nd[0] ^= r.ch((NLA_F_NESTED, NLA_F_NET_BYTEORDER,
                               NLA_F_NESTED | NLA_F_NET_BYTEORDER))

    # ---- the message -------------------------------------------------------
    def build(self, seed, phase, i):
        """-> (bytes, Req, mutation) for message i; seq = i + 1."""
        r = self.r
        r.seed((((seed & 0xffffffff) * 2 + phase) << 32) | i)
        req = r.ch(self.s.reqs)
        self.nest_p = r.ch((0.15, 0.5, 0.9))    # how full nests are
        self.top_set = req.aset
        mut = r.ch(self.muts)
        tree = self.attrs(req.attrs, r, 0.8)
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if req.mode == 'dump' else 0)
        cmd, ver = req.cmd, self.s.version
        seq = i + 1
        if mut == 'wrong-len':
            self.m_wrong_len(tree, r)
        elif mut == 'wrong-type':
            self.m_wrong_type(tree, r)
        elif mut == 'range':
            self.m_range(tree, r)
        elif mut == 'nesting':
            self.m_nesting(tree, r)
        elif mut == 'unknown-attr':
            self.m_unknown(tree, r)
        elif mut == 'missing':
            self.m_missing(tree, r)
        elif mut == 'repeat':
            self.m_repeat(tree, r)
        elif mut == 'nla-flags':
            self.m_nla_flags(tree, r)
        elif mut == 'flags':
            flags = r.ch((
                flags ^ NLM_F_DUMP,                 # do as dump, dump as do
                flags | NLM_F_DUMP,
                flags & ~NLM_F_DUMP | NLM_F_ROOT,   # half a dump flag
                flags & ~NLM_F_DUMP | NLM_F_MATCH,
                flags & ~NLM_F_REQUEST,
                flags & ~NLM_F_ACK,
                flags | NLM_F_ECHO, flags | 0x400 | 0x800 | 0x1000,
                flags | 0x10 | 0x20,                # NLM_F_DUMP_INTR/FILTERED
                r.getrandbits(16), 0))
        elif mut == 'cmd':
            cmd = r.ch(self.cmd_pool)
        elif mut == 'version':
            ver = r.ch((0, 2, 0x7f, 0xff, r.ri(0, 256)))
        payload = self.ser(tree)
        rsv = r.ch((0, 0, 0, 1, 0xffff)) if mut == 'version' else 0
        if mut == 'random':
            k = r.random()
            if k < 0.4:
                payload = r.randbytes(r.ri(0, 300))
            elif k < 0.7 and payload:   # flip bytes of a real message
                b = bytearray(payload)
                for _ in range(r.ri(1, 6)):
                    b[r.ri(len(b))] = r.ri(256)
                payload = bytes(b)
            else:                       # random genl header and payload
                cmd, ver, rsv = r.ri(256), r.ri(256), r.getrandbits(16)
                payload = r.randbytes(r.ri(0, 64))
        if mut == 'trunc-attr':
            if payload:
                k = r.random()
                if k < 0.5:     # cut inside the last attribute
                    payload = payload[:r.ri(1, len(payload))]
                elif k < 0.8:   # an nla_len longer than what follows
                    payload = payload + NLAHDR.pack(r.ri(8, 0xffff), 1)
                else:           # an nla_len below the header size
                    payload = payload + NLAHDR.pack(r.ri(0, 4), r.ri(1, 8))
            else:
                payload = NLAHDR.pack(r.ri(5, 64), 1) + b'\0' * r.ri(0, 3)
        body = GENLHDR.pack(cmd & 0xff, ver & 0xff, rsv) + payload
        ln = 16 + len(body)
        nl_len = ln
        if mut == 'nlmsg-len':
            nl_len = r.ch((0, 1, 15, 16, 17, 19, 20, ln - 1, ln - 4, ln + 1, ln + 4,
                               ln + 4096, 0xffffffff, r.ri(16, max(17, ln))))
            nl_len &= 0xffffffff
        msg = NLMSGHDR.pack(nl_len, self.famid, flags & 0xffff, seq, 0) + body
        if mut == 'trunc-hdr':
            k = r.ri(0, 20)
            msg = msg[:k]
            if k >= 4 and r.random() < 0.7:   # consistent nlmsg_len
                msg = struct.pack('=I', k) + msg[4:]
        return msg, req, mut


def classify(msg, famid, state_cmds, unpriv):
    """-> (must_answer, refuse, allowed, cmd) from the bytes alone, as
    netlink_rcv_skb() and genetlink see them. must_answer: netlink owes an
    answer (None: bytes follow nlmsg_len, netlink parses them as further
    messages, whose replies are drained after the first one's answer).
    refuse: an unprivileged request for a state-changing command that
    reaches the family, which must fail; allowed: and its headers pass
    genetlink's checks (genlmsghdr.reserved 0, no nlmsg_flags beyond
    REQUEST, ACK, ECHO and a whole DUMP), so the failure must be one of
    these errnos: EPERM, or EOPNOTSUPP too where the command has no handler
    of that kind (split-ops genetlink looks the handler up first)."""
    n = len(msg)
    if n < 16:
        return False, False, None, None
    ln, typ, flags, _, _ = NLMSGHDR.unpack_from(msg, 0)
    if ln < 16 or ln > n:
        return False, False, None, None    # netlink drops it silently
    more = ((ln + 3) & ~3) + 16 <= n
    if not flags & NLM_F_REQUEST or typ != famid:
        return bool(flags & NLM_F_ACK) and (None if more else True), False, None, None
    if ln < 20:
        return (None if more else True), False, None, None    # EINVAL
    cmd = msg[16]
    isdump = (flags & NLM_F_DUMP) == NLM_F_DUMP
    mode = 'dump' if isdump else 'do'
    fl = flags & ~NLM_F_DUMP if isdump else flags
    hdr_ok = msg[18] == 0 and msg[19] == 0 and \
        not fl & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)
    handled, refused = state_cmds.get(cmd, (set(), set()))
    refuse = unpriv and mode in refused
    allowed = None
    if refuse and hdr_ok:
        allowed = {errno.EPERM}
        if mode not in handled:
            allowed.add(errno.EOPNOTSUPP)
    must = refuse or not hdr_ok or isdump or bool(flags & NLM_F_ACK)
    return must and (None if more else True), refuse, allowed, cmd


class Conn:
    def __init__(self):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        s.bind((0, 0))
        s.setblocking(False)
        self.sock = s
        self.buf = bytearray(1 << 17)
        self.view = memoryview(self.buf)
        self.enobufs = 0

    def close(self):
        self.sock.close()

    def wait(self, seq, timeout):
        """Read until the answer to seq (NLMSG_ERROR or NLMSG_DONE).
        -> (errno, None) / ('done', None) / (None, 'timeout')."""
        sock, buf = self.sock, self.buf
        end = None
        while True:
            try:
                n = sock.recv_into(buf)
            except BlockingIOError:
                now = time.monotonic()
                if end is None:
                    end = now + timeout
                elif now >= end:
                    return None, 'timeout'
                select.select((sock,), (), (), end - now)
                continue
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    self.enobufs += 1
                    continue
                raise
            off = 0
            res = None
            while off + 16 <= n:
                ln, typ, _, sq = RXHDR.unpack_from(buf, off)
                if ln < 16:
                    break
                if sq == seq and res is None:
                    if typ == NLMSG_ERROR:
                        res = -I32.unpack_from(buf, off + 16)[0]
                    elif typ == NLMSG_DONE:
                        res = 'done'
                off += (ln + 3) & ~3
            if res is not None:
                return res, None

    def drain(self):
        """Read whatever is queued (replies netlink may or may not send)."""
        sock, buf = self.sock, self.buf
        n = 0
        while True:
            try:
                sock.recv_into(buf)
                n += 1
            except BlockingIOError:
                return n
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                self.enobufs += 1

    def send(self, msg):
        self.sock.sendto(msg, (0, 0))


def resolve_family(name):
    c = Conn()
    try:
        nm = name.encode() + b'\0'
        attr = NLAHDR.pack(4 + len(nm), CTRL_ATTR_FAMILY_NAME) + nm
        attr += b'\0' * (-len(attr) & 3)
        body = GENLHDR.pack(CTRL_CMD_GETFAMILY, 1, 0) + attr
        c.send(NLMSGHDR.pack(16 + len(body), GENL_ID_CTRL, NLM_F_REQUEST, 1, 0) + body)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            select.select((c.sock,), (), (), 1)
            try:
                n = c.sock.recv_into(c.buf)
            except BlockingIOError:
                continue
            ln, typ, _, _ = RXHDR.unpack_from(c.buf, 0)
            if typ == NLMSG_ERROR:
                err = -I32.unpack_from(c.buf, 16)[0]
                raise SystemExit('nl_fuzz: family %s not found: %s' % (name, os.strerror(err)))
            off = 20
            while off + 4 <= min(ln, n):
                alen, atype = NLAHDR.unpack_from(c.buf, off)
                if alen < 4:
                    break
                if atype & 0x3fff == CTRL_ATTR_FAMILY_ID:
                    return struct.unpack_from('=H', c.buf, off + 4)[0]
                off += (alen + 3) & ~3
        raise SystemExit('nl_fuzz: no answer resolving family %s' % name)
    finally:
        c.close()


def ename(e):
    if e == 'done':
        return 'dump-done'
    if e == 0:
        return 'ok'
    if e is None:
        return 'unanswered'
    return errno.errorcode.get(e, str(e))


class Phase:
    def __init__(self, spec, gen, famid, args, phase):
        self.spec, self.gen, self.famid, self.args = spec, gen, famid, args
        self.phase = phase
        self.pname = 'unpriv' if phase else 'root'
        self.fails = 0
        self.cur = [None, 0.0, None]     # index being sent, since, in send

    def report(self, i, req, mut, msg, what):
        self.fails += 1
        if self.fails > 20:
            if self.fails == 21:
                fail_line('%s: more failures, not shown' % self.pname)
            return
        fail_line('%s op=%s mutation=%s seed=%d index=%d: %s '
                  '(replay: nl_fuzz.py --seed %d --phase %s --index %d)' %
                  (self.pname, req.label if req else '?', mut, self.args.seed, i, what,
                   self.args.seed, self.pname, i))
        sys.stdout.write('#   msg %s\n' % msg[:512].hex())
        sys.stdout.flush()

    def watchdog(self):
        t = self.args.timeout + 5
        while True:
            time.sleep(1)
            i, since, info = self.cur
            if i is None:
                continue
            if i == 'end':
                return
            if time.monotonic() - since > t:
                req, mut, msg = info
                self.report(i, req, mut, msg, 'sendmsg blocked for %ds (hang)' % t)
                os._exit(3)

    def run(self, indices):
        spec, gen, args = self.spec, self.gen, self.args
        nsock = max(1, args.sockets)
        conns = [Conn() for _ in range(nsock)]
        reopened = 0
        famid, state_cmds = self.famid, spec.state_cmds
        unpriv = self.phase == 1
        per_op = {}
        per_mut = {}
        per_t = {}
        hist = {}
        now = time.monotonic
        cur = self.cur
        threading.Thread(target=self.watchdog, daemon=True).start()
        t0 = time.monotonic()
        build, classify_ = gen.build, classify
        seed, phase, timeout = args.seed, self.phase, args.timeout
        n = timeouts = 0
        for i in indices:
            msg, req, mut = build(seed, phase, i)
            # The socket, and whether it is closed and opened anew after
            # this message (what a socket owned, a staging set, goes),
            # follow from the index too.
            k = (i * 0x9E3779B1) & 0xffffffff
            conn = conns[k % nsock]
            wait, drain, send = conn.wait, conn.drain, conn.send
            must, refuse, allowed, cmd = classify_(msg, famid, state_cmds, unpriv)
            t1 = now()
            cur[0], cur[1], cur[2] = i, t1, (req, mut, msg)
            try:
                send(msg)
            except OSError as e:
                res = 'send:' + (errno.errorcode.get(e.errno) or str(e.errno))
                hist[res] = hist.get(res, 0) + 1
                if allowed or must:
                    self.report(i, req, mut, msg, 'sendmsg failed: %s' % e)
                continue
            finally:
                cur[0] = None
            n += 1
            per_op[req.label] = per_op.get(req.label, 0) + 1
            per_mut[mut] = per_mut.get(mut, 0) + 1
            if must is not False:
                res, why = wait(i + 1, timeout)
                if why:
                    self.report(i, req, mut, msg, 'no answer within %gs' % timeout)
                    timeouts += 1
                    if timeouts >= 5:
                        fail_line('%s: %d requests unanswered, giving up' %
                                  (self.pname, timeouts))
                        break
                elif allowed and res not in allowed:
                    self.report(i, req, mut, msg,
                                'state-changing cmd %d answered %s, not %s' %
                                (cmd, ename(res),
                                 ' or '.join(sorted(ename(e) for e in allowed))))
                elif refuse and res in (0, 'done'):
                    self.report(i, req, mut, msg,
                                'state-changing cmd %d answered %s, not refused' %
                                (cmd, ename(res)))
                if must is None:
                    drain()     # netlink parses what follows nlmsg_len too
                ans = ename(res) if not why else 'unanswered'
            else:
                drain()
                ans = 'not-required'
            hist[ans] = hist.get(ans, 0) + 1
            per_t[req.label] = per_t.get(req.label, 0.0) + (now() - t1)
            if (k >> 12) % 256 == 0:
                conn.close()
                conns[conns.index(conn)] = Conn()
                reopened += 1
            if args.verbose:
                print('# %s %d %s %s -> %s %s' % (self.pname, i, req.label, mut, ans,
                                                  msg[:64].hex()))
        dt = time.monotonic() - t0
        cur[0] = 'end'
        # The socket still works: a valid request of a non-state op answers.
        enobufs = 0
        for j, conn in enumerate(conns):
            if not self.probe(conn):
                fail_line('%s seed=%d: socket %d no longer answers a valid request '
                          'after %d messages' % (self.pname, seed, j, n))
                self.fails += 1
            enobufs += conn.enobufs
            conn.close()
        p = self.pname
        print('# %s: seed %d, %d messages in %.1fs: %.0f msgs/s (%d sockets, %d reopened%s)' %
              (p, seed, n, dt, n / dt if dt > 0 else 0, nsock, reopened,
               ', %d ENOBUFS' % enobufs if enobufs else ''))
        print('# %s per op: %s' % (p, ' '.join('%s=%d' % kv for kv in sorted(per_op.items()))))
        print('# %s us per message in the kernel and back, per op: %s' %
              (p, ' '.join('%s=%d' % (k, 1e6 * v / per_op[k]) for k, v in sorted(per_t.items()))))
        print('# %s per mutation: %s' %
              (p, ' '.join('%s=%d' % kv for kv in sorted(per_mut.items()))))
        print('# %s answers: %s' %
              (p, ' '.join('%s=%d' % kv for kv in sorted(hist.items(), key=lambda x: -x[1]))))
        sys.stdout.flush()
        return self.fails == 0

    def probe(self, conn):
        reqs = [r for r in self.spec.reqs if not r.state and r.mode == 'do'] or \
               [r for r in self.spec.reqs if not r.state]
        if not reqs:
            return True
        req = reqs[0]
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if req.mode == 'dump' else 0)
        body = GENLHDR.pack(req.cmd, self.spec.version, 0)
        seq = 0x7fffffff
        conn.drain()
        conn.send(NLMSGHDR.pack(16 + len(body), self.famid, flags, seq, 0) + body)
        res, why = conn.wait(seq, self.args.timeout)
        if why or res not in (0, 'done'):
            print('# probe %s: %s' % (req.label, why or ename(res)))
            return False
        return True


def drop_privileges():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--spec', default=DEFAULT_SPEC)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=10000)
    ap.add_argument('--unpriv-count', type=int, default=None)
    ap.add_argument('--start', type=int, default=0,
                    help='index of the first message of each phase (default 0)')
    ap.add_argument('--phase', choices=('both', 'root', 'unpriv'), default='both')
    ap.add_argument('--index', type=int, default=None,
                    help='send only message INDEX of the phase (replay)')
    ap.add_argument('--sockets', type=int, default=3,
                    help='sockets to spread the messages over (default 3); '
                    'each is closed and opened anew now and then')
    ap.add_argument('--timeout', type=float, default=10.0,
                    help='seconds to wait for an answer (default 10)')
    ap.add_argument('--ibdev', action='append', default=None,
                    help='device names used in valid requests (default rxe0)')
    ap.add_argument('--addr', action='append', default=[],
                    help='an address binary attributes without a length check '
                    'often take (4 or 16 bytes, e.g. the peer, so rules match QPs)')
    ap.add_argument('--dry-run', action='store_true',
                    help='generate (and classify) without sending; no root needed')
    ap.add_argument('--verbose', action='store_true')
    args = ap.parse_args()
    ucount = args.count if args.unpriv_count is None else args.unpriv_count

    spec = Spec(args.spec)
    famid = 0x7ff0 if args.dry_run else resolve_family(spec.name)
    gen = Gen(spec, famid, args.ibdev or ['rxe0'],
              [ipaddress.ip_address(a).packed for a in args.addr])
    print('# nl_fuzz: family %s id %d, %d requests (%s), state-changing cmds %s' %
          (spec.name, famid, len(spec.reqs), ' '.join(r.label for r in spec.reqs),
           sorted(spec.state_cmds)))
    print('# nl_fuzz: seed %d, count %d root + %d unprivileged, from index %d' %
          (args.seed, args.count if args.phase != 'unpriv' else 0,
           ucount if args.phase != 'root' else 0, args.start))
    sys.stdout.flush()

    if args.dry_run:
        t0 = time.monotonic()
        h = {}
        for i in range(args.start, args.start + args.count):
            msg, req, mut = gen.build(args.seed, 0, i)
            k = classify(msg, famid, spec.state_cmds, True)
            h[mut] = h.get(mut, 0) + 1
        dt = time.monotonic() - t0
        print('# dry run: %d messages built in %.2fs (%.0f/s): %s' %
              (args.count, dt, args.count / dt, h))
        return 0

    if os.geteuid() != 0 and args.phase != 'unpriv':
        print('# nl_fuzz: needs root (the unprivileged phase runs in a child that drops to 65534)')
        return 4

    ok = True
    one = [args.index] if args.index is not None else None
    if args.phase in ('both', 'root'):
        ok &= Phase(spec, gen, famid, args, 0).run(
            one or range(args.start, args.start + args.count))
    if args.phase in ('both', 'unpriv'):
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            rc = 1
            try:
                if os.geteuid() == 0:
                    drop_privileges()
                rc = 0 if Phase(spec, gen, famid, args, 1).run(
                    one or range(args.start, args.start + ucount)) else 1
            except BaseException as e:   # noqa: B902 (report anything, then exit)
                fail_line('unpriv: %r' % e)
            sys.stdout.flush()
            os._exit(rc)
        _, st = os.waitpid(pid, 0)
        if not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 0:
            ok = False
            if not os.WIFEXITED(st):
                fail_line('unpriv: child died (status %#x)' % st)
    print('# nl_fuzz: %s' % ('pass' if ok else 'FAIL'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
