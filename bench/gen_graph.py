#!/usr/bin/env python3
"""Writes a synthetic evidence graph for benchmarks: the committed graph with
its levers replaced by N levers in the Metal envelope, each depending on up
to three random earlier levers (about 3N edges), plus the same edges as a
tsort(1) input.  usage: gen_graph.py N GRAPH.json EDGES.txt [--chain]"""
import json, os, random, sys

n, out, edges = int(sys.argv[1]), sys.argv[2], sys.argv[3]
chain = "--chain" in sys.argv
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
g = json.load(open(os.path.join(root, "data/native-performance-graph.json")))
env = g["envelopes"][0]["id"]
head = json.dumps({k: v for k, v in g.items() if k not in ("levers", "criteria")}, separators=(",", ":"))[:-1]
rnd = random.Random(8324)
with open(out, "w") as f, open(edges, "w") as t:
    f.write(head + ',"levers":[')
    for i in range(n):
        if chain:
            deps = [i - 1] if i else []
        else:
            deps = sorted({rnd.randrange(i) for _ in range(3)}) if i else []
        for d in deps:
            t.write("l%d l%d\n" % (d, i))
        if not deps:
            t.write("l%d l%d\n" % (i, i))
        f.write(("," if i else "") + json.dumps({
            "id": "l%d" % i, "name": "", "applicability": {"envelope_id": env, "platform": "darwin/arm64", "backend": "metal"},
            "enabled": i == 0, "status": "present" if i == 0 else "absent",
            "dependency_ids": ["l%d" % d for d in deps] or None, "conflict_ids": None,
            "expected": {"summary": "s", "classification": "hypothesis", "provenance": "p"}, "witnessed": None,
            "owning_issue": {"number": 1, "url": "u"}, "next_witness": "w"}, separators=(",", ":")))
    f.write('],"criteria":' + json.dumps(g["criteria"], separators=(",", ":")) + "}")
