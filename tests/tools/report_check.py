#!/usr/bin/env python3
"""Real consumers read every report format fak writes (tests/cli/scripts/report-consumers.sh).

- Markdown: cmark-gfm parses each page; every table is read back cell by cell
  (text, code spans, <br> as a line break; any other markup in a cell fails) and
  compared with what the JSON documents, the graph and the files say.
- CSV: Python's csv module reads each file back; the header must be the
  documented one and every cell must equal the value it stands for.
- SVG: xmllint parses each chart, rsvg-convert renders it to PNG, the
  hostile names must come back as text exactly (line breaks as spaces), and
  no label overlaps another, a point or a floor line (svg_geometry.py).

Expected values come from the JSON forms (--json), the receipts and the graph,
read here with the json module; numbers shown in Markdown are formatted here
from those values by the documented rules (docs/reports.md).
"""
import csv
import hashlib
import io
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import svg_geometry

FAK = os.environ["FAK"]
FIX = os.environ["FIX"]
ROOT = os.environ["ROOT"]
REP = os.path.join(FIX, "reports")
CM = "{http://commonmark.org/xml/1.0}"
SVG = "{http://www.w3.org/2000/svg}"
failures = []
checked = {"md": 0, "csv": 0, "svg": 0, "cells": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def run(args, ok=(0,)):
    p = subprocess.run([FAK] + args, capture_output=True)
    if p.returncode not in ok:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def np(args, ok=(0,)):
    return run(["native-performance"] + args, ok)


def load(path):
    with open(path) as f:
        return json.load(f)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---- number formats (docs/reports.md) ---------------------------------------

def value(v):
    a = abs(v)
    if a == 0:
        return "0"
    if 1e-3 <= a < 1e7:
        return "%.*f" % (max(0, 3 - math.floor(math.log10(a))), v)
    return "%.3e" % v


def arm(median, noise):
    return "%s \u00b1%.*f%%" % (value(median), 1 if noise < 0.95 else 0, noise)


def pct(v):
    return "%+.1f%%" % v if abs(v) < 1e4 else "%+.2e%%" % v


def level(x):
    x = math.floor(x * 1000 + 1e-9) / 10
    return "%.0f%%" % x if x == int(x) else "%.1f%%" % x


def pval(p):
    return "%.3f" % p if p >= 0.0005 else "%.1e" % p


def verdict(v):
    return v


# ---- Markdown ------------------------------------------------------------------

def cell_text(cell, where):
    """The text of a table cell as a reader sees it."""
    out = []

    def walk(n):
        tag = n.tag.replace(CM, "")
        if tag in ("text", "code"):
            out.append(n.text or "")
        elif tag == "html_inline":
            if n.text != "<br>":
                fail("%s: HTML in a cell: %r" % (where, n.text))
            out.append("\n")
        elif tag == "strong":
            for c in n:
                walk(c)
        else:
            fail("%s: markup <%s> in a cell" % (where, tag))
    for c in cell:
        walk(c)
    return "".join(out)


def tables(md, where):
    """Every table of the page: a list of rows, each a list of cell texts
    (the header row first)."""
    checked["md"] += 1
    p = subprocess.run(["cmark-gfm", "-e", "table", "-t", "xml"], input=md.encode(), capture_output=True)
    if p.returncode:
        fail("%s: cmark-gfm failed" % where)
        return []
    doc = ET.fromstring(p.stdout)
    out = []
    for t in doc.iter(CM + "table"):
        rows = []
        for r in t:
            cells = [cell_text(c, where) for c in r]
            checked["cells"] += len(cells)
            rows.append(cells)
        width = len(rows[0])
        for r in rows:
            if len(r) != width:
                fail("%s: a row of %d cells under a header of %d" % (where, len(r), width))
        out.append(rows)
    return out


def kv(table):
    return {r[0]: r[1] for r in table[1:]}


def check_ab_md(md, where, cmp=None, gate=None, arms=None, files=None):
    """Tables of an A/B report against its documents."""
    ts = tables(md, where)
    k = 0
    if cmp:
        st = cmp["statistics"]
        t = ts[k]
        k += 1
        expect(where + " metric header", t[0],
               ["metric", "baseline " + cmp["baseline_revision"], "candidate " + cmp["candidate_revision"],
                "shift [interval]", "level", "p", "n", "verdict"])
        for row, key in zip(t[1:], ("tokens_per_second", "end_to_end_milliseconds")):
            m = st[key]
            ip = m["interval_percent"]
            expect(where + " " + key, row, [
                m["unit"], arm(m["baseline"]["median"], m["baseline"]["noise_percent"]),
                arm(m["candidate"]["median"], m["candidate"]["noise_percent"]),
                "%s [%s, %s]" % (pct(m["shift_percent"]), pct(ip["lower"]), pct(ip["upper"])),
                level(m["confidence_level"]), pval(m["p_value"]),
                "%d+%d" % (m["baseline"]["repetitions"], m["candidate"]["repetitions"]), verdict(m["verdict"])])
        expect(where + " rows", len(t), 3)
    if gate and not cmp:
        t = ts[k]
        k += 1
        pop = gate["decision"]["population"]
        expect(where + " decision header", t[0][1:4],
               ["last accepted " + gate["accepted_revision"], "candidate " + gate["candidate_revision"],
                "decision"])
        expect(where + " accepted median", float(t[1][1]),
               gate["accepted_samples"][pop]["median_tokens_per_second"])
        expect(where + " candidate median", float(t[1][2]),
               gate["candidate_samples"][pop]["median_tokens_per_second"])
        expect(where + " decision", t[1][3], gate["decision"]["summary"])
        t = ts[k]
        k += 1
        expect(where + " checks", t[1:], [[c["name"], c["status"], c["detail"]] for c in gate["checks"]])
        if gate.get("suspect_modules"):
            t = ts[k]
            k += 1
            expect(where + " suspects", t[1:], [[s["module"], s["accepted_revision"], s["candidate_revision"]]
                                                for s in gate["suspect_modules"]])
    ev = kv(ts[k])
    doc = cmp or gate
    expect(where + " envelope", ev.get("envelope"), arms[0]["envelope_id"])
    expect(where + " lever", ev.get("lever"), arms[0]["changed_lever_id"])
    expect(where + " criterion", ev.get("criterion"), doc["criterion_digest"])
    for name, path in files:
        expect(where + " " + name, ev.get(name), "sha256:" + sha256(path))
    bound = sum(sum(v) for v in doc["metrics_bound"].values())
    total = sum(len(v) for v in doc["metrics_bound"].values())
    expect(where + " metrics", ev.get("metrics"),
           "%d of %d repetitions sealed by their attestation" % (bound, total))


def lever_rows(l):
    deps = ", ".join(l["dependency_ids"] or []) or "none"
    conf = ", ".join(l["conflict_ids"] or []) or "none"
    w = l["witnessed"]
    return {
        "lever": l["id"], "name": l["name"], "envelope": l["applicability"]["envelope_id"],
        "platform, backend": l["applicability"]["platform"] + ", " + l["applicability"]["backend"],
        "state": ("enabled" if l["enabled"] else "disabled") + ", " + l["status"],
        "dependencies": deps, "conflicts": conf,
        "expected (%s)" % l["expected"]["classification"]: l["expected"]["summary"],
        "expected provenance": l["expected"]["provenance"],
        "witnessed": w["summary"] if w else "pending",
        "owning issue": "#%d %s" % (l["owning_issue"]["number"], l["owning_issue"]["url"]),
        "required witness": l["next_witness"],
        "experiment": ("toggle this lever ON with its conflicting levers OFF; keep dependencies fixed ON."
                       if l["conflict_ids"] else "toggle exactly this lever OFF/ON; keep dependencies fixed ON."),
    }


# ---- CSV ---------------------------------------------------------------------------

AB_COLUMNS = ["envelope_id", "lever_id", "arm", "revision", "repetition", "run", "started_at_utc",
              "tokens_per_second", "end_to_end_milliseconds", "ttft_milliseconds", "prefill_milliseconds",
              "decode_milliseconds", "metrics_bound", "attestation_digest"]
NEXT_COLUMNS = ["lever_id", "name", "envelope_id", "platform", "backend", "enabled", "status",
                "dependency_ids", "conflict_ids", "expected_classification", "expected_summary",
                "expected_provenance", "owning_issue", "owning_issue_url", "next_witness", "experiment"]
PROFILE_COLUMNS = ["envelope_id", "class", "confidence", "evidence", "recommended_lever_id", "next_lever_id",
                   "next_witness", "selection_override_issue", "selection_override_reason"]


def read_csv(text, where, columns):
    checked["csv"] += 1
    rows = list(csv.reader(io.StringIO(text, newline="")))
    expect(where + " header", rows[0] if rows else None, columns)
    for r in rows[1:]:
        expect(where + " width", len(r), len(columns))
    return [dict(zip(columns, r)) for r in rows[1:]]


def num(cell):
    return float(cell) if cell != "" else None


def check_ab_csv(text, where, arms):
    """arms: (name, receipt, bound list or None)."""
    rows = read_csv(text, where, AB_COLUMNS)
    want = sum(len(r["repetitions"]) for _, r, _ in arms)
    expect(where + " rows", len(rows), want)
    i = 0
    for name, r, bound in arms:
        sched = (r.get("experiment") or {}).get("schedule")
        for k, rep in enumerate(r["repetitions"]):
            if i >= len(rows):
                return
            row = rows[i]
            i += 1
            w = "%s row %d" % (where, i)
            expect(w + " ids", (row["envelope_id"], row["lever_id"], row["arm"], row["revision"], row["repetition"]),
                   (r["envelope_id"], r["changed_lever_id"], name, r["revision"], str(k + 1)))
            expect(w + " tok/s", num(row["tokens_per_second"]), rep["tokens_per_second"])
            expect(w + " ms", num(row["end_to_end_milliseconds"]), rep["end_to_end_milliseconds"])
            for m in ("ttft", "prefill", "decode"):
                expect(w + " " + m, num(row[m + "_milliseconds"]), rep.get(m + "_milliseconds"))
            expect(w + " digest", row["attestation_digest"], rep.get("system_baseline_digest") or "")
            if bound is not None:
                expect(w + " bound", row["metrics_bound"], "true" if bound[k] else "false")
            run_at = ""
            started = ""
            for j, u in enumerate(sched or []):
                if u["arm"] == r["role"] and u["kind"] == "repetition" and u["index"] == k:
                    run_at, started = str(j + 1), u["started_at_utc"]
            expect(w + " run", (row["run"], row["started_at_utc"]), (run_at, started))


# ---- SVG -------------------------------------------------------------------------

def check_svg(path, where, names=()):
    checked["svg"] += 1
    if subprocess.run(["xmllint", "--noout", path]).returncode:
        fail(where + ": xmllint refused it")
        return
    png = path + ".png"
    if subprocess.run(["rsvg-convert", "-o", png, path]).returncode or os.path.getsize(png) < 1000:
        fail(where + ": rsvg-convert did not render it")
    texts = set()
    for n in ET.parse(path).getroot().iter():
        if n.tag in (SVG + "text", SVG + "title") and n.text:
            texts.add(n.text)
    for problem in svg_geometry.check(path):
        fail("%s: %s" % (where, problem))
    for name in names:
        shown = name.replace("\n", " ")
        if not any(shown in t for t in texts):
            fail("%s: %r is not drawn as text" % (where, shown))


# ---- the cases -----------------------------------------------------------------

def main():
    os.makedirs("out", exist_ok=True)
    hostile_graph = os.path.join(REP, "hostile-graph.json")
    hg = load(hostile_graph)
    hostile_names = [e["id"] for e in hg["envelopes"]] + [l["id"] for l in hg["levers"] if '"' in l["id"]] + \
        [r["id"] for r in hg["rungs"] if '"' in r["id"]]

    # comparisons: plain, hostile, ordered and sealed
    pairs = [
        ("metal", None, os.path.join(FIX, "receipts", "metal-baseline-attested.json"),
         os.path.join(FIX, "receipts", "metal-candidate-attested.json")),
        ("hostile", hostile_graph, os.path.join(REP, "hostile-baseline.json"),
         os.path.join(REP, "hostile-candidate.json")),
        ("ordered", os.path.join(REP, "xp-graph.json"), os.path.join(REP, "xp-baseline.json"),
         os.path.join(REP, "xp-candidate.json")),
    ]
    for name, graph, b, c in pairs:
        g = ["--graph", graph] if graph else []
        base = g + ["--compare", b, "--candidate", c]
        cmp = json.loads(np(base + ["--json"]))
        rb, rc = load(b), load(c)
        where = "compare " + name
        check_ab_md(np(base + ["--format", "md"]), where + " md", cmp=cmp, arms=(rb, rc),
                    files=(("baseline receipt", b), ("candidate receipt", c)))
        check_ab_csv(np(base + ["--format", "csv"]), where + " csv",
                     (("baseline", rb, cmp["metrics_bound"]["baseline"]),
                      ("candidate", rc, cmp["metrics_bound"]["candidate"])))
        svg = "out/runs-%s.svg" % name
        np(base + ["--chart", svg])
        check_svg(svg, where + " chart", [cmp["changed_lever_id"]] if name == "hostile" else [])

    # gates
    # the CUDA requests are pinned to the artifact of graphs/valid-cuda-pinned.json
    pinned = os.path.join(FIX, "graphs", "valid-cuda-pinned.json")
    gates = [(pinned, os.path.join(FIX, "gate", f)) for f in
             ("pass.json", "regression-two-suspects.json", "investigate-noise.json")]
    gates += [(None, os.path.join(FIX, "gate", f)) for f in ("sb-pass.json", "sb-tampered.json")]
    gates.append((hostile_graph, os.path.join(REP, "hostile-gate.json")))
    for graph, path in gates:
        g = ["--graph", graph] if graph else []
        base = g + ["--gate", path]
        gate = json.loads(np(base + ["--json"], ok=(0, 3)))
        q = load(path)
        where = "gate " + os.path.basename(path)
        check_ab_md(np(base + ["--format", "md"], ok=(0, 3)), where + " md", gate=gate,
                    arms=(q["last_accepted"], q["candidate"]), files=(("gate request", path),))
        check_ab_csv(np(base + ["--format", "csv"], ok=(0, 3)), where + " csv",
                     (("last_accepted", q["last_accepted"], None), ("candidate", q["candidate"], None)))

    # --next
    for graph in (None, hostile_graph, os.path.join(FIX, "graphs", "valid-next-none.json"),
                  os.path.join(FIX, "graphs", "valid-next-advanced.json")):
        g = ["--graph", graph] if graph else []
        lever = json.loads(np(g + ["--next", "--json"]))["lever"]
        where = "next " + (os.path.basename(graph) if graph else "committed")
        ts = tables(np(g + ["--next", "--format", "md"]), where + " md")
        rows = read_csv(np(g + ["--next", "--format", "csv"]), where + " csv", NEXT_COLUMNS)
        if lever is None:
            expect(where + " md tables", ts, [])
            expect(where + " csv rows", rows, [])
            continue
        expect(where + " md", kv(ts[0]), lever_rows(lever))
        want = lever_rows(lever)
        expect(where + " csv", rows, [{
            "lever_id": lever["id"], "name": lever["name"], "envelope_id": lever["applicability"]["envelope_id"],
            "platform": lever["applicability"]["platform"], "backend": lever["applicability"]["backend"],
            "enabled": "true" if lever["enabled"] else "false", "status": lever["status"],
            "dependency_ids": ";".join(lever["dependency_ids"] or []),
            "conflict_ids": ";".join(lever["conflict_ids"] or []),
            "expected_classification": lever["expected"]["classification"],
            "expected_summary": lever["expected"]["summary"], "expected_provenance": lever["expected"]["provenance"],
            "owning_issue": str(lever["owning_issue"]["number"]), "owning_issue_url": lever["owning_issue"]["url"],
            "next_witness": lever["next_witness"], "experiment": want["experiment"]}])

    # profiles
    profiles = [(None, os.path.join(FIX, "profiles", f)) for f in
                ("synthetic-metal-launch-bound.json", "synthetic-cuda-bandwidth-bound.json",
                 "synthetic-metal-bandwidth-override.json")]
    profiles.append((hostile_graph, os.path.join(REP, "hostile-profile.json")))
    for graph, path in profiles:
        g = ["--graph", graph] if graph else []
        bundle = load(path)
        for mode in ("--profile", "--profile-next"):
            where = "%s %s" % (mode, os.path.basename(path))
            doc = json.loads(np(g + [mode, path, "--json"]))
            cls = doc["classification"] if mode == "--profile-next" else doc
            lever = doc.get("lever")
            over = bundle.get("selection_override") if mode == "--profile-next" else None
            ts = tables(np(g + [mode, path, "--format", "md"]), where + " md")
            want = {"class": cls["class"], "confidence": cls["confidence"], "evidence": "; ".join(cls["evidence"]),
                    "recommended lever": cls["recommended_lever_id"]}
            if over:
                want["selection override"] = "issue #%d: %s" % (over["issue_number"], over["reason"])
            expect(where + " md", kv(ts[0]), want)
            if lever:
                expect(where + " md lever", kv(ts[1]), lever_rows(lever))
            rows = read_csv(np(g + [mode, path, "--format", "csv"]), where + " csv", PROFILE_COLUMNS)
            expect(where + " csv", rows, [{
                "envelope_id": cls["envelope_id"], "class": cls["class"], "confidence": cls["confidence"],
                "evidence": "; ".join(cls["evidence"]), "recommended_lever_id": cls["recommended_lever_id"],
                "next_lever_id": lever["id"] if lever else "", "next_witness": lever["next_witness"] if lever else "",
                "selection_override_issue": str(over["issue_number"]) if over else "",
                "selection_override_reason": over["reason"] if over else ""}])

    # the runner: its summary in md and csv against the files it wrote; the
    # sampler policy accepts a busy host (busy_host_flags, tests/lib.sh)
    xp = run(["bench", "experiment", "cpu.fast", "--graph", "graph.json", "--artifact", "model.bin",
              "--revision", 'r1 "q", <b> | x', "--module", "bench@1", "--profile-artifact", "profile.txt",
              "--machine-id-file", "machine-id", "--baseline-duration", "20ms", "--interval", "10ms"]
             + os.environ["busy_host_flags"].split() + [
              "--baseline", "TPS=100 ./bench.sh", "--candidate", "TPS=120 ./bench.sh", "--out-dir", "run",
              "--format", "md"])
    cmp = load("run/comparison.json")
    rb, rc = load("run/baseline.json"), load("run/candidate.json")
    check_ab_md(xp, "experiment md", cmp=cmp, arms=(rb, rc),
                files=[(f, "run/" + f) for f in ("baseline.json", "candidate.json", "comparison.json",
                                                 "gate-request.json", "gate.json", "chart.svg")])
    check_svg("run/chart.svg", "experiment chart")
    # the same documents as CSV, through --compare of what it wrote
    check_ab_csv(np(["--graph", "graph.json", "--compare", "run/baseline.json", "--candidate",
                     "run/candidate.json", "--format", "csv"]),
                 "experiment receipts csv",
                 (("baseline", rb, cmp["metrics_bound"]["baseline"]),
                  ("candidate", rc, cmp["metrics_bound"]["candidate"])))

    # climb charts
    for graph, names in ((None, []), (hostile_graph, hostile_names),
                         (os.path.join(ROOT, "examples", "cpu-decode", "graph.json"), [])):
        g = ["--graph", graph] if graph else []
        svg = "out/climb-%d.svg" % checked["svg"]
        np(g + ["--chart", "climb", "--out", svg])
        check_svg(svg, "climb " + (os.path.basename(graph) if graph else "committed"), names)

    # the latency chart of a serving run, from the committed per-request log
    # (failures and a late send: exit 1)
    run(["bench", "serve", "--from-log", os.path.join(FIX, "serve", "log.jsonl"),
         "--chart", "out/serve.svg"], ok=(1,))
    check_svg("out/serve.svg", "serving latency chart", ["Serving latency: 10 requests, 3 failed"])

    print("checked %(md)d Markdown pages (%(cells)d cells), %(csv)d CSV files, %(svg)d charts" % checked)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
