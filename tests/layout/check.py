#!/usr/bin/env python3
"""The map (docs/architecture.md) against the tree (ctest layout).

Checks, each independently of how the build happens to work today:
  - every .c/.h under base/, lcp/ and compiler/ is a module the map names,
    and every module the map names exists (module = file name without
    .c/.h; a .c without a header is its own module);
  - every folder's sources.cmake lists exactly the .c files in that folder
    (the build leaves none out);
  - an #include "x.h" points only into the folder itself or a folder the
    map's "may include" column allows;
  - the module include graph has no cycle (a.c or a.h including b.h is an
    edge a -> b);
  - README.md's layout names every folder of the map and links every page
    of docs/.
Usage: check.py SOURCE_DIR
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
doc = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
bad = []

# Folders and their allowed includes: the table under "Folders".
folders = {}
sec = doc.split("## Folders", 1)[1].split("\n## ", 1)[0]
for line in sec.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith("/`"):
        name = cells[0].strip("`").rstrip("/")
        allowed = cells[2]
        if allowed.startswith("every folder above"):
            deps = set(folders)
        else:
            deps = {m.rstrip("/") for m in re.findall(r"`([^`]+/)`", allowed)}
        folders[name] = deps
if not folders:
    sys.exit("layout: no folder table in docs/architecture.md")

# Modules the map names: first cell of the tables under "### FOLDER".
named = {}
for m in re.finditer(r"^### (\S+)/.*?\n(.*?)(?=^### |^## |\Z)", doc, re.S | re.M):
    folder = m.group(1)
    for line in m.group(2).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`[a-z0-9_]+`", cells[0]):
            named.setdefault(folder, set()).add(cells[0].strip("`"))
            # A module's job may name further files of it, e.g. (`ydoc_scalar.c`: ...).
            for extra in re.findall(r"`([a-z0-9_]+)\.[ch]`", cells[1]):
                named[folder].add(extra)

where = {}  # header file name -> folder
modules = {}  # folder -> set of modules on disk
for folder in folders:
    path = os.path.join(root, folder)
    if not os.path.isdir(path):
        bad.append(f"the map names folder {folder}/, which does not exist")
        continue
    for f in sorted(os.listdir(path)):
        if f.endswith((".c", ".h")):
            modules.setdefault(folder, set()).add(f[:-2])
            if f.endswith(".h"):
                where[f] = folder
    if folder not in named:
        bad.append(f"{folder}/: no module table in the map")
for folder, mods in modules.items():
    for m in sorted(mods - named.get(folder, set())):
        bad.append(f"{folder}/{m}: not named in docs/architecture.md")
    for m in sorted(named.get(folder, set()) - mods):
        bad.append(f"docs/architecture.md names {folder}/{m}, which does not exist")
for folder in named:
    if folder not in folders:
        bad.append(f"docs/architecture.md has modules of {folder}/, a folder missing from its folder table")
# Any source folder the map does not know at all.
for top in ("base", "lcp", "compiler"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        rel = os.path.relpath(dirpath, root)
        if any(f.endswith((".c", ".h")) for f in files) and rel not in folders:
            bad.append(f"{rel}/ holds sources but is not in the map's folder table")

# sources.cmake lists exactly the folder's .c files.
for folder in folders:
    path = os.path.join(root, folder, "sources.cmake")
    if not os.path.exists(path):
        bad.append(f"{folder}/sources.cmake is missing")
        continue
    listed = set(re.findall(r"^\s*(\S+\.c)\s*$", open(path).read(), re.M))
    on_disk = {f"{folder}/{f}" for f in os.listdir(os.path.join(root, folder)) if f.endswith(".c")}
    if folder == "compiler/cli":
        on_disk.discard("compiler/cli/main.c")  # the program, not the library
    for f in sorted(on_disk - listed):
        bad.append(f"{f}: not in {folder}/sources.cmake (it would not be built)")
    for f in sorted(listed - on_disk):
        bad.append(f"{folder}/sources.cmake lists {f}, which does not exist")

# Includes: direction, and cycles between modules.
edges = {}
for folder in folders:
    for f in sorted(os.listdir(os.path.join(root, folder))) if os.path.isdir(os.path.join(root, folder)) else []:
        if not f.endswith((".c", ".h")):
            continue
        src = open(os.path.join(root, folder, f), encoding="utf-8").read()
        me = (folder, f[:-2])
        for n, line in enumerate(src.splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            if inc not in where:
                continue  # generated files (lcp_*_u16.inc, templates_data) and system headers
            to = where[inc]
            if to != folder and to not in folders[folder]:
                bad.append(f"{folder}/{f}:{n}: includes {to}/{inc}; {folder}/ may include only "
                           f"{', '.join(sorted(folders[folder])) or 'nothing outside itself'}")
            them = (to, inc[:-2])
            if them != me:
                edges.setdefault(me, set()).add(them)

state = {}
def visit(u, stack):
    state[u] = 1
    stack.append(u)
    for v in sorted(edges.get(u, ())):
        if state.get(v) == 1:
            loop = stack[stack.index(v):] + [v]
            bad.append("include cycle: " + " -> ".join(f"{a}/{b}" for a, b in loop))
        elif v not in state:
            visit(v, stack)
    stack.pop()
    state[u] = 2
for u in sorted(edges):
    if u not in state:
        visit(u, [])

# README's layout (what readers look at first) names every folder of the
# map and links every page of docs/.
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0] if "## Layout" in readme else ""
if not layout:
    bad.append("README.md has no '## Layout' section")
for folder in folders:
    leaf = folder.split("/")[-1]
    if f"`{folder}/`" not in layout and f"`{leaf}/`" not in layout:
        bad.append(f"README.md's layout does not name {folder}/")
for page in sorted(os.listdir(os.path.join(root, "docs"))):
    if page.endswith(".md") and f"docs/{page}" not in layout:
        bad.append(f"README.md's layout does not link docs/{page}")

# templates/README.md's table names every template.
tdir = os.path.join(root, "templates")
treadme = open(os.path.join(tdir, "README.md"), encoding="utf-8").read()
for t in sorted(os.listdir(tdir)):
    if t != "README.md" and f"`{t}`" not in treadme:
        bad.append(f"templates/README.md does not name templates/{t}")

n_mods = sum(len(v) for v in modules.values())
if bad:
    for b in bad:
        print("layout:", b)
    sys.exit(1)
print(f"layout: {len(folders)} folders, {n_mods} modules, all named in docs/architecture.md; "
      f"includes point down the data flow; no include cycles")
