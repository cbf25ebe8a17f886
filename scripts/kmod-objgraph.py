#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's object-level call graph, from a build's objects.

An object depends on another when it uses (nm: U) a symbol the other
defines. Prints each edge with one of its symbols, then the objects that
call each other in a cycle (strongly connected components of more than
one object), then the layers: each object one above the highest it
depends on (Documentation/architecture.rst, "Rules between layers").

Usage: scripts/kmod-objgraph.py [--check] BUILD_DIR...
  BUILD_DIR  a module build: the top directory (its rocepath.mod names
             the objects, found under BUILD_DIR/kmod/) or a directory of
             .o files
  --check    print only the cycles, as layers-check.sh's violations
             ("BUILD_DIR: ..."), and exit 1 when there is one

ynl-gen's netlink-gen.c, besides the policies the handlers parse with,
defines an ops table (rocepath_nl_ops) that the module never registers
(nl_family.c registers netlink-ops-gen.h's). While no object uses it, its
references to the handlers are not edges: they would tie every handler to
the policies below it in a cycle that no code can run.
"""

import os
import re
import subprocess
import sys

# object -> (its dead table, what only that table references)
DEAD_TABLES = {
    "netlink-gen": ("rocepath_nl_ops",
                    re.compile(r"^rocepath_nl_\w+_(doit|dumpit)$")),
}


def objects(build):
    """The module's objects in @build: {name: path}."""
    mod = os.path.join(build, "rocepath.mod")
    paths = []
    if os.path.isfile(mod):
        with open(mod) as f:
            for line in f.read().split():
                base = os.path.basename(line)
                for cand in (os.path.join(build, "kmod", base),
                             os.path.join(build, base), line):
                    if os.path.isfile(cand):
                        paths.append(cand)
                        break
    else:
        d = os.path.join(build, "kmod")
        if not os.path.isdir(d):
            d = build
        paths = [os.path.join(d, n) for n in sorted(os.listdir(d))
                 if n.endswith(".o") and not n.endswith(".mod.o")
                 and n != "rocepath.o"]
    return {os.path.basename(p)[:-2]: p for p in paths}


def symbols(path):
    """(defined global symbols, undefined symbols) of one object."""
    out = subprocess.run(["nm", path], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "ABCDGRSTVW":
            defined.add(f[2])
    return defined, undefined


def graph(objs):
    """{object: {object it depends on: one symbol}}"""
    syms = {n: symbols(p) for n, p in objs.items()}
    owner = {}
    for n, (defined, _) in sorted(syms.items()):
        for s in defined:
            owner.setdefault(s, n)
    used = set().union(*(u for _, u in syms.values())) if syms else set()
    edges = {n: {} for n in objs}
    for n, (_, undefined) in syms.items():
        dead = DEAD_TABLES.get(n)
        for s in sorted(undefined):
            if dead and dead[0] not in used and dead[1].match(s):
                continue
            m = owner.get(s)
            if m and m != n:
                edges[n].setdefault(m, s)
    return edges


def sccs(edges):
    """Tarjan: the strongly connected components, each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def layers(edges, comps):
    """Each object's layer: 0 for none below it, else one above the top one."""
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    level = {}

    def lv(i):
        if i not in level:
            level[i] = 0
            deps = {comp_of[w] for v in comps[i] for w in edges[v]} - {i}
            level[i] = 1 + max((lv(j) for j in deps), default=-1)
        return level[i]

    return {v: lv(comp_of[v]) for v in edges}


def main(argv):
    check = "--check" in argv
    dirs = [a for a in argv if a != "--check"]
    if not dirs:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    rc = 0
    for build in dirs:
        objs = objects(build)
        if not objs:
            print(f"{build}: no objects", file=sys.stderr)
            return 2
        edges = graph(objs)
        cycles = [c for c in sccs(edges) if len(c) > 1]
        if check:
            for c in cycles:
                rc = 1
                print(f"{build}: objects call each other in a cycle: "
                      + " ".join(c))
                for v in c:
                    for w, s in sorted(edges[v].items()):
                        if w in c:
                            print(f"{build}:   {v}.o -> {w}.o ({s})")
            continue
        print(f"# {build}")
        for v in sorted(edges):
            for w, s in sorted(edges[v].items()):
                print(f"{v} -> {w} ({s})")
        for c in cycles:
            rc = 1
            print("cycle: " + " ".join(c))
        lvl = layers(edges, sccs(edges))
        for n in range(max(lvl.values()) + 1):
            print(f"layer {n}: " + " ".join(sorted(v for v in lvl
                                                  if lvl[v] == n)))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
