#!/usr/bin/env python3
"""Match rate and accuracy of a `locus enrich` run over `locus-bench typed-addresses` output:
how many rows matched, and how many landed within 25 m of the address's true position.

    python3 scripts/check_enrich.py enriched.csv
"""
import csv
import math
import sys
from collections import Counter


def main() -> None:
    rows = matched = near = 0
    types = Counter()
    with open(sys.argv[1], newline="", encoding="utf-8-sig") as f:
        for r in csv.DictReader(f):
            rows += 1
            if r["status"] != "matched":
                continue
            matched += 1
            types[r["match_type"]] += 1
            dx = (float(r["longitude"]) - float(r["true_lon"])) * math.cos(math.radians(float(r["true_lat"]))) * 111_320
            dy = (float(r["latitude"]) - float(r["true_lat"])) * 110_540
            if math.hypot(dx, dy) < 25:
                near += 1
    print(f"{rows} rows: matched {matched} ({matched / rows:.4%}), within 25 m of the true position {near} ({near / rows:.4%}); "
          + ", ".join(f"{k} {v}" for k, v in types.most_common()))


if __name__ == "__main__":
    main()
