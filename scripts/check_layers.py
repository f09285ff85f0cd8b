#!/usr/bin/python3
"""Checks that the code's folders form layers: libraries mirror folders, with no cycles.

A *unit* is a folder under sim/, emu/, real/ or apps/ with its own CMakeLists.txt; a source file
belongs to the nearest such folder above it (emu/net/linktest/ is part of emu/net). From the
sources' `#include "..."` lines and the CMake files' add_library / add_executable /
target_link_libraries calls it rejects, one line each:

  - an include cycle between units (A includes B, ..., B includes A), with the files involved
    (one cycle per group of units that reach each other);
  - a cycle among the units' link edges;
  - a unit including another unit whose library it does not link (directly or through the
    libraries it links), i.e. the include works only because the include path is shared;
  - a unit linking another unit's library without including anything from it.

Usage: check_layers.py [REPO_ROOT]   (default: the folder above this script)
Exit status 0 when the layers hold, 1 otherwise. tests/layers/ checks this script itself.
"""
import os
import re
import sys

UNIT_ROOTS = ("sim", "emu", "real", "apps")
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
CALL = re.compile(r"\b(add_library|add_executable|target_link_libraries)\s*\(([^)]*)\)", re.S)
WORD = re.compile(r"[A-Za-z0-9_.+-]+")


def find_units(root):
    units = []
    for top in UNIT_ROOTS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            if "CMakeLists.txt" in files:
                units.append(os.path.relpath(folder, root))
    return sorted(units)


def unit_of(path, units):
    """The deepest unit containing `path` (relative to the root), or None."""
    best = None
    for u in units:
        if path == u or path.startswith(u + "/"):
            if best is None or len(u) > len(best):
                best = u
    return best


def read_cmake(root, units):
    """targets: unit -> set of targets it declares; links: unit -> set of names it links."""
    targets, links = {u: set() for u in units}, {u: set() for u in units}
    for u in units:
        text = open(os.path.join(root, u, "CMakeLists.txt"), encoding="utf-8").read()
        text = re.sub(r"#[^\n]*", "", text)
        for kind, args in CALL.findall(text):
            words = WORD.findall(args)
            if not words:
                continue
            if kind == "target_link_libraries":
                links[u].update(words[1:])
            else:
                targets[u].add(words[0])
    return targets, links


def read_includes(root, units):
    """unit -> {included unit -> first 'file:line' that includes it}."""
    edges = {u: {} for u in units}
    for u in units:
        for folder, _, files in os.walk(os.path.join(root, u)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                if unit_of(path, units) != u:
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = unit_of(os.path.dirname(m.group(1)), units)
                        if target and target != u:
                            edges[u].setdefault(target, f"{path}:{number}")
    return edges


def strongly_connected(graph):
    """The strongly connected components of `graph` with more than one node (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


def find_cycles(graph):
    """Per strongly connected component of `graph`: (its nodes, one cycle through some of them
    as a list of nodes, first = last)."""
    cycles = []
    for component in strongly_connected(graph):
        inside = set(component)
        path, seen = [component[0]], {component[0]}
        while True:
            nxt = next(n for n in sorted(graph[path[-1]]) if n in inside)
            if nxt in seen:
                cycles.append((component, path[path.index(nxt):] + [nxt]))
                break
            path.append(nxt)
            seen.add(nxt)
    return cycles


def reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def check(root):
    units = find_units(root)
    targets, links = read_cmake(root, units)
    includes = read_includes(root, units)
    owner = {t: u for u in units for t in targets[u]}
    link_units = {u: {owner[n] for n in links[u] if n in owner and owner[n] != u} for u in units}
    problems = []

    for component, cycle in find_cycles({u: includes[u].keys() for u in units}):
        steps = [f"{a} -> {b} ({includes[a][b]})" for a, b in zip(cycle, cycle[1:])]
        problems.append(f"include cycle among {{{', '.join(component)}}}: " + "; ".join(steps))
    for component, cycle in find_cycles(link_units):
        problems.append(f"link cycle among {{{', '.join(component)}}}: " + " -> ".join(cycle))
    for u in units:
        linked = reachable(link_units, u)
        for v, where in sorted(includes[u].items()):
            if v not in linked:
                problems.append(f"{where}: {u} includes {v} but links none of its libraries "
                                f"({', '.join(sorted(targets[v])) or 'none declared'})")
        for v in sorted(link_units[u]):
            if v not in includes[u]:
                problems.append(f"{u}/CMakeLists.txt: {u} links {v} "
                                f"({', '.join(sorted(targets[v] & links[u]))}) "
                                "but includes nothing from it")
    return units, link_units, problems


def targets_of(root, unit):
    return read_cmake(root, [unit])[0][unit]


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    units, link_units, problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s) in {root}")
        return 1
    edges = sum(len(v) for v in link_units.values())
    folders = [u for u in units if targets_of(root, u)]
    print(f"check_layers: {len(folders)} folders with targets, {edges} link edges between them, "
          "no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
