#!/usr/bin/env python3
"""Fits the frontage reverse geocoder's weights on a city's own records.

    locus eval --truth TREES.csv.gz --only reverse --frontage-features features.csv
    python3 scripts/fit_frontage.py features.csv --truth TREES.csv.gz --group-column neighborhood

The features file has, for every record whose address is among the index's points, each address
the frontage method weighs there (`FrontageChooser.Features`) and whether it is the recorded one.
The score is linear in the features plus "bends" (a length's weight changing past fixed knots);
the weights are those of a conditional logit: the likelihood that the recorded address is the one
chosen among a record's candidates. The fit is checked on halves of the groups (neighbourhoods):
fitted on one half, measured on the other, for three ways of halving. Prints the share right
(the top-scoring candidate is the recorded one, among records where it is a candidate) for the
weights in the features file's build (`--current`), then the constants to paste into
`FrontageChooser.Weight` and `FrontageChooser.Bend`.

Needs numpy and scipy (python3 -m pip install numpy scipy).
"""
import argparse
import csv
import gzip
import sys
import zlib

import numpy as np
from scipy.optimize import minimize

LINEAR = ["distance", "has_direction", "along", "in_front", "overshoot", "along_angle", "across_own_street",
          "end_lots", "streets_between", "streets_between_depth"]
# Swift names of the linear weights, in LINEAR's order.
WEIGHT_NAMES = ["distance", "hasDirection", "along", "inFront", "overshoot", "alongAngle", "acrossOwnStreet",
                "endLot", "streetsBetween", "streetsBetweenDepth"]
# The bends: feature, Swift name, knots (as in FrontageChooser.Bend).
BENDS = [("distance", "distance", (5.0, 10.0)),
         ("along", "along", (3.0, 6.0)),
         ("overshoot", "overshoot", (2.0,)),
         ("across_own_street", "acrossOwnStreet", (2.0, 5.0)),
         ("along_angle", "alongAngle", (0.3, 0.6, 0.8))]
# The weights before the bends (FrontageChooser at 24f3737), to compare against.
BEFORE = [-0.0648, 0.5804, -0.1387, -0.2046, -0.0484, -2.5300, -0.4547, 0.1671, -0.5535, -0.0638]


def read(features_path, truth_path, group_column):
    groups = None
    if truth_path:
        opener = gzip.open if truth_path.endswith(".gz") else open
        with opener(truth_path, "rt", newline="") as f:
            groups = [r.get(group_column, "") for r in csv.DictReader(f)]
    rows = {}
    with open(features_path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(r["row"]), []).append(([float(r[k]) for k in LINEAR], r["recorded"] == "1"))
    keys = sorted(rows)
    width = max(len(v) for v in rows.values())
    n = len(keys)
    x = np.zeros((n, width, len(LINEAR)))
    mask = np.zeros((n, width), bool)
    y = np.zeros((n, width), bool)
    group = []
    for t, k in enumerate(keys):
        for j, (v, recorded) in enumerate(rows[k]):
            x[t, j] = v
            mask[t, j] = True
            y[t, j] = recorded
        group.append(groups[k - 1] if groups and k - 1 < len(groups) else str(k))
    return x, mask, y, group


def design(x):
    """The linear features, then each bend's max(0, feature - knot)."""
    cols = [x]
    for name, _, knots in BENDS:
        v = x[:, :, LINEAR.index(name)]
        cols.append(np.stack([np.maximum(0, v - k) for k in knots], 2))
    return np.concatenate(cols, 2)


def fit(x, mask, y, l2=1e-6):
    xs, m, ys = x, mask, y
    count = len(xs)

    def loss(w):
        s = np.where(m, xs @ w, -1e30)
        top = s.max(1, keepdims=True)
        e = np.where(m, np.exp(s - top), 0)
        z = e.sum(1)
        share = ys / ys.sum(1, keepdims=True)
        ll = ((share * np.where(ys, s, 0)).sum(1) - top[:, 0] - np.log(z)).sum()
        p = e / z[:, None]
        grad = np.einsum("tk,tkf->f", share, xs) - np.einsum("tk,tkf->f", p, xs)
        return -ll + l2 * count * (w @ w), -grad + 2 * l2 * count * w

    return minimize(loss, np.zeros(xs.shape[2]), jac=True, method="L-BFGS-B", options={"maxiter": 5000}).x


def right(x, mask, y, w):
    s = np.where(mask, x @ w, -np.inf)
    return y[np.arange(len(x)), s.argmax(1)]


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("features")
    a.add_argument("--truth", help="the truth file given to locus eval, for the group column")
    a.add_argument("--group-column", default="neighborhood")
    args = a.parse_args()
    x, mask, y, group = read(args.features, args.truth, args.group_column)
    has = y.any(1)
    x, mask, y = x[has], mask[has], y[has]
    group = [g for g, h in zip(group, has) if h]
    X = design(x)
    print(f"{len(x)} records with the recorded address among their candidates, {mask.sum()} candidates")
    before = np.zeros(X.shape[2])
    before[:len(BEFORE)] = BEFORE
    print(f"right with the weights before the bends: {right(X, mask, y, before).mean():.4f}")
    nearest = -np.ones(1)
    print(f"right with the nearest: {right(x[:, :, :1], mask, y, nearest).mean():.4f}")
    for salt in range(3):
        half = np.array([zlib.crc32(f"{salt}:{g}".encode()) % 2 for g in group])
        for a_half in (0, 1):
            train, test = half == a_half, half != a_half
            w = fit(X[train], mask[train], y[train])
            wl = fit(x[train], mask[train], y[train])
            print(f"split {salt}, fitted on half {a_half} ({train.sum()} records), measured on the other ({test.sum()}): "
                  f"before {right(X[test], mask[test], y[test], before).mean():.4f}, "
                  f"linear refitted {right(x[test], mask[test], y[test], wl).mean():.4f}, "
                  f"with bends {right(X[test], mask[test], y[test], w).mean():.4f}", flush=True)
    w = fit(X, mask, y)
    print(f"fitted on all: right {right(X, mask, y, w).mean():.4f}")
    print("\n    enum Weight {")
    for name, v in zip(WEIGHT_NAMES, w[:len(LINEAR)]):
        print(f"        static let {name} = {v:.4f}")
    print("    }\n    enum Bend {")
    i = len(LINEAR)
    for _, name, knots in BENDS:
        bends = [f"(at: {k}, slope: {v:.4f})" for k, v in zip(knots, w[i:i + len(knots)])]
        print(f"        static let {name} = " + (bends[0] if len(bends) == 1 else f"({', '.join(bends)})"))
        i += len(knots)
    print("    }")


if __name__ == "__main__":
    sys.exit(main())
