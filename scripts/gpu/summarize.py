"""The summary of scripts/gpu_check.sh: OUTDIR/gpu_check.json, gpu_check.txt, comparisons.csv.

    python3 scripts/gpu/summarize.py --work BUILD/check --out OUTDIR --failed 0|1 --elapsed S

Reads what gpu_check.sh left in its work folder: steps.tsv (name, status, ms, command), notes.txt,
machine.txt, torch_info.txt and netprobe.txt (key=value lines), capabilities.json (the worker's
`--capabilities` line), logs/nccl_pair.log (nccl_pair.py's JSON line) and, per case,
cases/<case>/{emu/manifest.json, emu/summary.json, compare/comparison.json,
compare/comparison.csv, sim_nominal/summary.json}. Standard library only (the GPU machine's
python3 has torch and little else).
"""
import argparse
import csv
import json
import os
import sys


def key_values(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" not in line:
                continue
            k, v = line.split("=", 1)
            if k in out:
                out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + [v]
            else:
                out[k] = v
    return out


def last_json_line(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [x for x in f.read().splitlines() if x.startswith("{")]
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def as_list(v):
    return v if isinstance(v, list) else ([] if v is None else [v])


def pct(predicted, measured):
    if predicted is None or not measured:
        return None
    return 100.0 * (predicted - measured) / measured


def steps_of(work):
    steps = []
    path = os.path.join(work, "steps.tsv")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 3:
                    continue
                steps.append({"name": parts[0], "status": parts[1],
                              "seconds": round(int(parts[2] or 0) / 1000.0, 2),
                              "command": parts[3] if len(parts) > 3 else ""})
    return steps


def case_result(work, case, steps):
    d = os.path.join(work, "cases", case)
    r = {"case": case, "scenario": f"scenarios/gpu/{case}.yaml",
         "steps": {s["name"].split(".", 1)[1]: s["status"] for s in steps
                   if s["name"].startswith(case + ".")}}
    manifest = load_json(os.path.join(d, "emu", "manifest.json")) or {}
    r["network"] = manifest.get("network") or ("unshaped (loopback)" if "emulate_unshaped" in r["steps"]
                                               else None)
    for k in ("device", "collectives", "world_size"):
        if k in manifest:
            r[k] = manifest[k]
    cmp = load_json(os.path.join(d, "compare", "comparison.json"))
    if cmp:
        m = cmp.get("measured", {})
        r["world_size"] = cmp.get("world_size", r.get("world_size"))
        r["strategy"] = cmp.get("strategy")
        r["measured_s"] = m.get("iteration_time_s")
        r["measured_p10_s"] = m.get("p10_s")
        r["measured_p90_s"] = m.get("p90_s")
        r["measured_iterations"] = m.get("iterations")
        r["measured_split_s"] = m.get("split")
        r["predicted"] = [{"network_model": p.get("network_model"),
                           "iteration_time_s": p.get("iteration_time_s"),
                           "error_pct": p.get("error_pct"),
                           "p90_error_pct": p.get("p90_error_pct"),
                           "split_s": p.get("split")} for p in cmp.get("predicted", [])]
    else:
        emu = load_json(os.path.join(d, "emu", "summary.json")) or {}
        if "iteration_time_s" in emu:
            r["measured_s"] = emu["iteration_time_s"]
    nominal = load_json(os.path.join(d, "sim_nominal", "summary.json"))
    if nominal and "iteration_time_s" in nominal:
        r["nominal_s"] = nominal["iteration_time_s"]
        r["nominal_error_pct"] = pct(nominal["iteration_time_s"], r.get("measured_s"))
    return r


def short_network(text):
    if not text:
        return "-"
    return text.split(" ", 1)[0]  # "shaped (network namespaces)", "unshaped (loopback)"


def fmt_s(v):
    return "-" if v is None else f"{v:.3f} s"


def fmt_pct(v):
    return "-" if v is None else f"{v:+.1f}%"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--failed", type=int, default=0)
    ap.add_argument("--elapsed", type=float, default=0)
    a = ap.parse_args()
    w = a.work

    machine = key_values(os.path.join(w, "machine.txt"))
    torch_info = key_values(os.path.join(w, "torch_info.txt"))
    netprobe = key_values(os.path.join(w, "netprobe.txt"))
    caps = last_json_line(os.path.join(w, "capabilities.json"))
    nccl = last_json_line(os.path.join(w, "logs", "nccl_pair.log"))
    notes = []
    if os.path.exists(os.path.join(w, "notes.txt")):
        with open(os.path.join(w, "notes.txt"), encoding="utf-8") as f:
            notes = [x.strip() for x in f if x.strip()]
    steps = steps_of(w)
    cases_dir = os.path.join(w, "cases")
    cases = sorted(os.listdir(cases_dir)) if os.path.isdir(cases_dir) else []
    order = [s["name"].split(".", 1)[0] for s in steps if "." in s["name"]]
    cases.sort(key=lambda c: order.index(c) if c in order else len(order))
    results = [case_result(w, c, steps) for c in cases]

    failed_steps = [s["name"] for s in steps if s["status"] != "ok" and not s["status"].startswith("skipped")]
    not_possible = [f"{s['name']}: {s['status']}" for s in steps
                    if s["status"].startswith("skipped") and not s["status"].startswith("skipped: reusing")]
    for n in notes:
        if n.startswith("network:") and "unshaped" in n:
            not_possible.append(n + "; the predictions still assume the scenario's links, so their "
                                "error says nothing about the network model there")
        elif "reports no" in n or "not run" in n:
            not_possible.append(n)
    if caps and caps.get("gloo") is False:
        not_possible.append("geotrain-worker has no Gloo (no Gloo headers next to this LibTorch): "
                            "collectives gloo cannot run with this build")
    passed = a.failed == 0 and not failed_steps
    status = "passed" if passed else "failed: " + (", ".join(failed_steps) or "see notes")

    gpus = [dict(zip(("name", "total_bytes", "compute_capability"), v.split("|")))
            for k, v in sorted(torch_info.items()) if k[:3] == "gpu" and k[3:].isdigit()]
    versions = {
        "torch": torch_info.get("torch"), "torch_cuda": torch_info.get("cuda_build"),
        "nccl": torch_info.get("nccl"), "python": torch_info.get("python"),
        "driver_cuda": machine.get("driver_cuda"), "nvcc": machine.get("nvcc"),
        "nvidia_smi": as_list(machine.get("nvidia_smi_gpu")), "gpus": gpus,
        "os": machine.get("os"), "kernel": machine.get("kernel"), "glibc": machine.get("glibc"),
        "cmake": machine.get("cmake"), "ninja": machine.get("ninja"), "cxx": machine.get("cxx"),
        "cpus": machine.get("cpus"), "memory_kib": machine.get("memory_kib"),
    }
    tools = {k[5:]: v for k, v in machine.items() if k.startswith("tool_")}
    summary = {
        "format": "geotrain-gpu-check", "version": 1, "mode": machine.get("mode"),
        "status": status, "elapsed_s": a.elapsed, "versions": versions, "tools": tools,
        "worker_capabilities": caps, "nccl_pair": nccl, "network_probe": netprobe,
        "steps": steps, "cases": results, "notes": notes, "not_possible": not_possible,
    }
    with open(os.path.join(a.out, "gpu_check.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")

    # comparisons.csv: every case's comparison.csv rows behind a `case` column.
    header, rows = None, []
    for c in cases:
        p = os.path.join(cases_dir, c, "compare", "comparison.csv")
        if not os.path.exists(p):
            continue
        with open(p, newline="", encoding="utf-8") as f:
            rd = list(csv.reader(f))
        if not rd:
            continue
        if header is None:
            header = ["case"] + rd[0]
        rows += [[c] + row for row in rd[1:]]
    if header:
        with open(os.path.join(a.out, "comparisons.csv"), "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([header] + rows)

    t = []
    t.append(f"gpu_check ({machine.get('mode')}): {status.upper() if passed else status} "
             f"in {a.elapsed:.0f} s")
    mem = machine.get("memory_kib")
    t.append(f"machine   {machine.get('os', '?')}, kernel {machine.get('kernel', '?')}, "
             f"{machine.get('glibc', '?')}, {machine.get('cpus', '?')} CPUs"
             + (f", {int(mem) / 1048576:.0f} GiB" if mem and mem.isdigit() else ""))
    for g in as_list(machine.get("nvidia_smi_gpu")):
        t.append(f"gpu       {g} (nvidia-smi: index, name, driver, memory, compute capability); "
                 f"driver CUDA {machine.get('driver_cuda', '?')}")
    if torch_info.get("torch"):
        t.append(f"torch     {torch_info.get('torch')} (CUDA {torch_info.get('cuda_build') or 'none'}, "
                 f"NCCL {torch_info.get('nccl') or 'none'}), python {torch_info.get('python')}; "
                 f"nvcc {machine.get('nvcc', 'absent')}; cmake {machine.get('cmake', '?')}")
    if machine.get("cxx"):
        t.append(f"compiler  {machine.get('cxx')}")
    if caps:
        t.append(f"worker    torch {caps.get('torch')}, cuda {caps.get('cuda')}, nccl {caps.get('nccl')}, "
                 f"gloo {caps.get('gloo')}, {caps.get('cuda_devices', 0)} CUDA device(s)")
    net = [n for n in notes if n.startswith("network:")]
    if net:
        t.append("network   " + net[0][len("network:"):].strip())
    if netprobe:
        t.append("netprobe  " + ", ".join(f"{k}={v}" for k, v in netprobe.items()))
    if nccl:
        checks = {}
        for r in nccl.get("ranks", []):
            checks.update({f"{k}@{r.get('rank')}": v for k, v in r.get("checks", {}).items()})
        bad = [k for k, v in checks.items() if not v]
        t.append(f"nccl_pair {nccl.get('backend')} on {nccl.get('device')}: "
                 f"{'ok' if nccl.get('ok') else 'FAILED'} ({len(checks) - len(bad)}/{len(checks)} checks"
                 + (f"; failed {', '.join(bad)}" if bad else "")
                 + (f"; 64 MiB all-reduce {nccl['allreduce_64MiB_s']:.3f} s" if "allreduce_64MiB_s" in nccl else "")
                 + ")" + ("; " + "; ".join(nccl.get("errors", [])) if nccl.get("errors") else ""))
    t.append("")
    t.append("steps")
    for s in steps:
        t.append(f"  {s['name']:<24} {s['seconds']:7.1f} s  {s['status']}")
    t.append("")
    t.append("cases: iteration time (median of the measured iterations after warm-up); predicted "
             "from the run's measured compute profile (flow, tcp), and nominal (the scenario's "
             "device profile, nothing measured)")
    t.append(f"  {'case':<10} {'network':<9} {'measured':>10} {'flow':>10} {'err':>8} {'tcp':>10} "
             f"{'err':>8} {'nominal':>10} {'err':>8}")
    for r in results:
        pred = {p["network_model"]: p for p in r.get("predicted", [])}
        flow, tcp = pred.get("flow", {}), pred.get("tcp", {})
        t.append(f"  {r['case']:<10} {short_network(r.get('network')):<9} {fmt_s(r.get('measured_s')):>10} "
                 f"{fmt_s(flow.get('iteration_time_s')):>10} {fmt_pct(flow.get('error_pct')):>8} "
                 f"{fmt_s(tcp.get('iteration_time_s')):>10} {fmt_pct(tcp.get('error_pct')):>8} "
                 f"{fmt_s(r.get('nominal_s')):>10} {fmt_pct(r.get('nominal_error_pct')):>8}")
        sp = r.get("measured_split_s")
        if sp:
            t.append(f"  {'':<10} measured split: compute {sp.get('compute_s', 0):.3f} s, communication "
                     f"{sp.get('communication_s', 0):.3f} s, waiting {sp.get('waiting_s', 0):.3f} s, "
                     f"other {sp.get('other_s', 0):.3f} s")
    if not results:
        t.append("  (none ran)")
    if not_possible:
        t.append("")
        t.append("not possible here")
        t += [f"  - {x}" for x in not_possible]
    other = [n for n in notes if not n.startswith("network:")]
    if other:
        t.append("")
        t.append("notes")
        t += [f"  - {x}" for x in other]
    with open(os.path.join(a.out, "gpu_check.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(t) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
