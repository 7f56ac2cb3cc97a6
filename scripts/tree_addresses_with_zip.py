#!/usr/bin/env python3
"""The distinct addresses of a street-tree file, each with "Portland, OR" and the ZIP code a person
standing at its trees would write: that of the address point nearest the trees' centroid (any
street). Forward geocoding with a city and ZIP code cannot be measured on the tree records alone
(they have neither); this is the set behind EVALUATION.md's "a ZIP code line" figures.

    python3 scripts/tree_addresses_with_zip.py ../shared/data/portland/street_trees_dev.csv.gz \
        ../shared/data/portland/addresses.csv.gz > addresses-zip.csv
    locus enrich addresses-zip.csv --output out.csv --allow-failures
"""
import collections
import csv
import gzip
import math
import sys

CELL = 0.002  # degrees: about 150 m by 220 m at Portland's latitude


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        yield from csv.DictReader(f)


def main(trees_path, points_path):
    cells = collections.defaultdict(list)
    for r in rows(points_path):
        if r.get("postcode"):
            x, y = float(r["lon"]), float(r["lat"])
            cells[(math.floor(x / CELL), math.floor(y / CELL))].append((x, y, r["postcode"]))
    trees = collections.defaultdict(list)
    for r in rows(trees_path):
        trees[r["address"]].append((float(r["lon"]), float(r["lat"])))
    out = csv.writer(sys.stdout)
    out.writerow(["address", "city", "state", "zip"])
    for address, at in trees.items():
        x = sum(p[0] for p in at) / len(at)
        y = sum(p[1] for p in at) / len(at)
        kx = math.cos(math.radians(y))
        cx, cy = math.floor(x / CELL), math.floor(y / CELL)
        best = None
        for ring in range(0, 20):
            for i in range(cx - ring, cx + ring + 1):
                for j in range(cy - ring, cy + ring + 1):
                    if max(abs(i - cx), abs(j - cy)) != ring:
                        continue
                    for px, py, zip_code in cells.get((i, j), ()):
                        d = ((px - x) * kx) ** 2 + (py - y) ** 2
                        if best is None or d < best[0]:
                            best = (d, zip_code)
            # A point in a ring further out is at least `ring` cells away.
            if best is not None and math.sqrt(best[0]) <= ring * CELL * kx:
                break
        out.writerow([address, "Portland", "OR", best[1] if best else ""])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tree_addresses_with_zip.py TREES.csv[.gz] ADDRESSES.csv[.gz]")
    main(sys.argv[1], sys.argv[2])
