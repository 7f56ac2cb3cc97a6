#!/usr/bin/env python3
"""Crossings typed into a search box, key by key: the distinct crossings a street-tree file records
("SEC/ 122ND & E BURNSIDE ST", the corner qualifier cut), each geocoded, and where geocode answers a
crossing, typed into `suggest` from the "&" on until that crossing is suggested (its key, or a key
that geocodes to the same place). Prints how many were suggested by the end of the text and after
how many letters of the second street; the set behind EVALUATION.md's "crossings in suggest".

    locus serve --listen unix:/tmp/locus.sock &
    python3 scripts/crossing_suggestions.py /tmp/locus.sock ../shared/data/portland/street_trees_dev.csv.gz
"""
import csv
import gzip
import math
import re
import sys

from locus_line import connect


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: crossing_suggestions.py SOCKET TREES.csv.gz")
    ask = connect(sys.argv[1])

    texts = set()
    with gzip.open(sys.argv[2], "rt", newline="") as g:
        for row in csv.DictReader(g):
            a = row["address"]
            if "&" in a:
                texts.add(re.sub(r"^[A-Z ]+/\s*", "", a).strip())
    answered, letters, missed = 0, [], []
    for t in sorted(texts):
        c = (ask({"id": 1, "op": "geocode", "text": t}).get("result") or {}).get("candidates") or []
        if not c or c[0]["match_type"] != "intersection":
            continue
        answered += 1
        target, amp, hit = c[0], t.index("&"), None
        for end in range(amp + 3, len(t) + 1):
            for x in ask({"id": 2, "op": "suggest", "text": t[:end], "max_results": 5})["result"]["suggestions"]:
                if x["type"] != "intersection":
                    continue
                same = x["key"] == target["key"]
                if not same:
                    g2 = ask({"id": 3, "op": "geocode", "key": x["key"]})["result"]["candidates"]
                    same = bool(g2) and math.hypot(g2[0]["location"]["x"] - target["location"]["x"],
                                                   g2[0]["location"]["y"] - target["location"]["y"]) < 1e-5
                if same:
                    hit = end - amp - 2
                    break
            if hit is not None:
                break
        if hit is None:
            missed.append((t, target["address"]))
        else:
            letters.append(hit)
    letters.sort()
    print(f"distinct crossings {len(texts)}; geocoded as a crossing {answered}; suggested by the end {len(letters)};"
          f" median letters of the second street typed {letters[len(letters) // 2] if letters else '-'}")
    for t, a in missed:
        print(f"not suggested: {t}  (geocode: {a})")


if __name__ == "__main__":
    main()
