#!/usr/bin/env python3
"""Addresses as a records office typed them, typed whole into a search box: a seeded sample of the
distinct addresses of a ground-truth file's `address` column (the street trees' "6132 NE 34TH AVE",
"4562 NE 36TH AVE, UN A", "1332 WI/ N SKIDMORE ST"), each geocoded and suggested. Counts how often
suggest shows nothing, and how often geocode's top answer (its text before the first comma) is
among the suggestions and first; lists those where it is not. The set behind EVALUATION.md's
"addresses typed whole into suggest".

    locus serve --listen unix:/tmp/locus.sock &
    python3 scripts/recorded_suggestions.py /tmp/locus.sock ../shared/data/portland/street_trees_dev.csv.gz [SAMPLE]
"""
import csv
import gzip
import random
import sys

from locus_line import connect


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: recorded_suggestions.py SOCKET TRUTH.csv[.gz] [SAMPLE (default 2000)]")
    sample_size = int(sys.argv[3]) if len(sys.argv) == 4 else 2000
    opener = gzip.open if sys.argv[2].endswith(".gz") else open
    seen, texts = set(), []
    with opener(sys.argv[2], "rt", newline="") as f:
        for row in csv.DictReader(f):
            text = (row.get("address") or "").strip()
            if text and text not in seen:
                seen.add(text)
                texts.append(text)
    random.seed(7)
    sample = random.sample(texts, min(sample_size, len(texts)))

    ask = connect(sys.argv[1])

    counts = {"typed": len(sample), "no_geocode": 0, "nothing_suggested": 0, "among": 0, "first": 0, "not_among": 0}
    missed = []
    for i, text in enumerate(sample):
        candidates = (ask({"id": i, "op": "geocode", "text": text, "max_results": 1}).get("result") or {}).get("candidates") or []
        suggestions = [x["text"] for x in (ask({"id": i, "op": "suggest", "text": text}).get("result") or {}).get("suggestions", [])]
        if not candidates:
            counts["no_geocode"] += 1
            continue
        top = candidates[0]["address"].split(",")[0]
        heads = [x.split(",")[0] for x in suggestions]
        if not suggestions:
            counts["nothing_suggested"] += 1
            missed.append(("nothing", text, top, candidates[0]["match_type"]))
        elif top in heads:
            counts["among"] += 1
            counts["first"] += heads[0] == top
        else:
            counts["not_among"] += 1
            missed.append(("other", text, top, candidates[0]["match_type"], heads[:3]))
    print(" · ".join(f"{k} {v}" for k, v in counts.items()))
    for m in missed:
        print(*m, sep="\t")


if __name__ == "__main__":
    main()
