#!/usr/bin/env python3
"""Every text of a file (one per line, as `locus-bench suggest --write-prefixes` writes them) suggested
by two servers: prints the texts whose suggestions differ (the first 15) and how many did.

    python3 scripts/suggest_diff.py /tmp/old.sock /tmp/new.sock prefixes.txt
"""
import json
import socket
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: suggest_diff.py SOCKET_A SOCKET_B TEXTS")

    def conn(path):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        return s.makefile("rwb")

    a, b = conn(sys.argv[1]), conn(sys.argv[2])

    def ask(f, i, text):
        f.write((json.dumps({"id": i, "op": "suggest", "text": text}) + "\n").encode())
        f.flush()
        return [x["text"] for x in (json.loads(f.readline()).get("result") or {}).get("suggestions", [])]

    differ = 0
    for i, line in enumerate(open(sys.argv[3])):
        text = line.rstrip("\n")
        ra, rb = ask(a, i, text), ask(b, i, text)
        if ra != rb:
            differ += 1
            if differ <= 15:
                print(repr(text), ra[:2], "->", rb[:2])
    print("differ", differ)


if __name__ == "__main__":
    main()
