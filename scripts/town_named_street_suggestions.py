#!/usr/bin/env python3
"""Streets named like a town of the region ("SE Milwaukie Ave", "NE Sandy Blvd", "SW Tualatin Ave",
"SE Gladstone St"), typed whole into a search box: every distinct address a street-tree file records
whose street name has a word of a town's name (the towns of the address file), geocoded and
suggested. Prints how many have geocode's answer among the 5 suggestions, first, nothing suggested,
or something else, with a few of the last. A class check on the city's own records.

    locus serve --listen unix:/tmp/locus.sock &
    python3 scripts/town_named_street_suggestions.py /tmp/locus.sock ../shared/data/portland/street_trees_dev.csv.gz \\
        ../shared/data/portland/addresses.csv.gz
"""
import csv
import gzip
import re
import sys

from locus_line import connect

DIRECTIONALS = {"N", "S", "E", "W", "NE", "NW", "SE", "SW"}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: town_named_street_suggestions.py SOCKET TREES.csv.gz ADDRESSES.csv.gz")
    ask = connect(sys.argv[1])
    with gzip.open(sys.argv[3], "rt", newline="") as g:
        towns = {w for row in csv.DictReader(g) for w in (row.get("city") or "").upper().split()}
    texts = set()
    with gzip.open(sys.argv[2], "rt", newline="") as g:
        for row in csv.DictReader(g):
            m = re.fullmatch(r"(\d+) ([A-Z0-9 ]+)", row["address"].strip())
            if not m:
                continue
            name = [w for w in m.group(2).split()[:-1] if w not in DIRECTIONALS]
            if any(w in towns for w in name):
                texts.add(m.group(0))
    first = among = nothing = other = 0
    others = []
    for text in sorted(texts):
        c = (ask({"id": 1, "op": "geocode", "text": text}).get("result") or {}).get("candidates") or []
        if not c:
            continue
        got = ask({"id": 2, "op": "suggest", "text": text, "max_results": 5})["result"]["suggestions"]
        hits = [x["text"] == c[0]["address"] or x["key"] == c[0]["key"] for x in got]
        if not got:
            nothing += 1
        elif any(hits):
            among += 1
            first += hits[0]
        else:
            other += 1
            others.append((text, c[0]["address"], [x["text"] for x in got[:2]]))
    print(f"typed {len(texts)}: geocode's answer suggested {among} (first {first}), nothing suggested {nothing}, "
          f"something else {other}")
    for o in others[:10]:
        print(*o, sep="\t")


if __name__ == "__main__":
    main()
