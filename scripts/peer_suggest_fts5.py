#!/usr/bin/env python3
"""The naive peer for `locus-bench suggest`: SQLite FTS5 prefix search, ORDER BY rank.

Builds an FTS5 table of every formatted address from a Locus index, then times the same
keystrokes `locus-bench suggest --write-prefixes FILE` wrote: every typed word must match,
the last one as a prefix, best rank first, 5 results.

    python3 scripts/peer_suggest_fts5.py --index Index/portland.locus --prefixes /tmp/prefixes.txt
"""
import argparse
import re
import sqlite3
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    ap.add_argument("--prefixes", required=True)
    ap.add_argument("--limit", type=int, default=5)
    args = ap.parse_args()

    db = sqlite3.connect(":memory:")
    db.execute(f"ATTACH DATABASE 'file:{args.index}?mode=ro' AS idx")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(address, tokenize='unicode61 remove_diacritics 2')")
    db.execute("""
        INSERT INTO fts(rowid, address)
        SELECT a.id, a.number || CASE WHEN x.suffix = '' THEN '' ELSE ' ' || x.suffix END || ' ' || s.display || ' '
               || s.name || ' ' || p.city || ' ' || p.state || ' ' || p.postcode
        FROM idx.addresses a JOIN idx.streets s ON s.id = a.street_id JOIN idx.places p ON p.id = a.place_id
        JOIN idx.number_suffixes x ON x.id = a.suffix_id
    """)
    db.commit()
    prefixes = [line.rstrip("\n") for line in open(args.prefixes)]
    latencies = []
    found = 0
    for text in prefixes:
        words = re.findall(r"\w+", text.lower())
        if not words:
            latencies.append(0.0)
            continue
        match = " ".join(f'"{w}"' for w in words[:-1]) + (" " if len(words) > 1 else "") + f'"{words[-1]}"*'
        t0 = time.perf_counter()
        rows = db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (match, args.limit)).fetchall()
        latencies.append((time.perf_counter() - t0) * 1e6)
        if rows:
            found += 1
    latencies.sort()
    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))]
    print(f"fts5 ORDER BY rank: {len(latencies)} keystrokes: p50 {pct(0.5):.0f} µs, p90 {pct(0.9):.0f} µs, "
          f"p99 {pct(0.99):.0f} µs, max {latencies[-1]:.0f} µs; {found} with suggestions")


if __name__ == "__main__":
    main()
