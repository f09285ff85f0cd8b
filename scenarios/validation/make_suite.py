#!/usr/bin/python3
"""Writes the validation suite: every strategy on DT-FM cases 3, 4 and 5 scaled to 4 workers,
one variant of each strategy at 8 and 16 workers (networks caseN_w8, caseN_w16), and gpt-mini
cases (networks caseN_mini, 4 workers).

Run from anywhere: /usr/bin/python3 scenarios/validation/make_suite.py
File names are <variant>__<network>.yaml (geotrain validate reads the two labels from them).
The 'scheduled' gpipe variants place stages with assignments/<network>.json, written by
`geotrain schedule` on the same scenario (see README.md in this folder).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# DT-FM cases scaled to 4 workers: the same regions, delays (one-way) and bandwidths.
NETWORKS = {
    "case3": {  # two sites: 2 devices in Ohio, 2 in Virginia; 1 ms / 5 Gbit/s inside a site
        "comment": "DT-FM case 3 (two sites) scaled to 4 workers: Ohio x2, Virginia x2",
        "groups": [("Ohio", 2), ("Virginia", 2)],
        "network": "  regions:\n    intra: {delay: 1ms, bandwidth: 5Gbps}\n"
                   "    pairs: [{between: [Ohio, Virginia], delay: 11ms, bandwidth: 1.12Gbps}]\n",
    },
    "case4": {  # four US regions, one device each
        "comment": "DT-FM case 4 (four US regions) scaled to 4 workers, one per region",
        "groups": [("Virginia", 1), ("Oregon", 1), ("California", 1), ("Ohio", 1)],
        "network": "  regions:\n    intra: {delay: 5ms, bandwidth: 2Gbps}\n    pairs:\n"
                   "      - {between: [Virginia, Oregon], delay: 67ms, bandwidth: 1.15Gbps}\n"
                   "      - {between: [Virginia, California], delay: 59ms, bandwidth: 1.05Gbps}\n"
                   "      - {between: [Virginia, Ohio], delay: 11ms, bandwidth: 1.12Gbps}\n"
                   "      - {between: [Oregon, California], delay: 12ms, bandwidth: 1.25Gbps}\n"
                   "      - {between: [Oregon, Ohio], delay: 49ms, bandwidth: 1.10Gbps}\n"
                   "      - {between: [California, Ohio], delay: 52ms, bandwidth: 1.02Gbps}\n",
    },
    "case5": {  # world-wide: four of the eight cities (DT-FM's AWS table, built in)
        "comment": "DT-FM case 5 (world-wide) scaled to 4 workers: Oregon, Virginia, Tokyo, Frankfurt",
        "groups": [("Oregon", 1), ("Virginia", 1), ("Tokyo", 1), ("Frankfurt", 1)],
        "network": "  regions:\n    intra: {delay: 5ms, bandwidth: 2Gbps}\n",
    },
}

# The same networks with 8 and 16 workers: the same sites, more devices per site (case 5 first
# takes all eight cities of DT-FM's table, then two devices per city).
CASE5_CITIES = ["Oregon", "Virginia", "Ohio", "Tokyo", "Seoul", "London", "Frankfurt", "Ireland"]
GROUPS_AT = {
    ("case3", 8): [("Ohio", 4), ("Virginia", 4)],
    ("case3", 16): [("Ohio", 8), ("Virginia", 8)],
    ("case4", 8): [("Virginia", 2), ("Oregon", 2), ("California", 2), ("Ohio", 2)],
    ("case4", 16): [("Virginia", 4), ("Oregon", 4), ("California", 4), ("Ohio", 4)],
    ("case5", 8): [(c, 1) for c in CASE5_CITIES],
    ("case5", 16): [(c, 2) for c in CASE5_CITIES],
}
for (case, workers), groups in GROUPS_AT.items():
    NETWORKS[f"{case}_w{workers}"] = dict(
        NETWORKS[case], groups=groups,
        comment=f"DT-FM case {case[-1]} scaled to {workers} workers: "
                + ", ".join(f"{r} x{n}" for r, n in groups))
# gpt-mini (about 10M parameters: 8x gpt-tiny's bytes per gradient) on the 4-worker networks.
for case in ("case3", "case4", "case5"):
    NETWORKS[f"{case}_mini"] = dict(NETWORKS[case], model="gpt-mini")

def gpipe(replicas):
    return (f"  name: gpipe\n  stages: 2\n  replicas: {replicas}\n  schedule: gpipe\n"
            "  dp_sync: allreduce\n  algorithm: ring\n")


GPIPE = gpipe(2)
VARIANTS = {
    "ddp_ring": ("data parallel, ring all-reduce", "  name: ddp-allreduce\n  algorithm: ring\n", None),
    "ps_gather": ("parameter server, gather/scatter through rank 0", "  name: ps-gather-scatter\n  server: 0\n", None),
    "ps_sharded": ("sharded parameter server", "  name: ps-sharded\n", None),
    "ddp_bucketed": ("data parallel, bucketed ring all-reduce overlapping backward",
                     "  name: ddp-bucketed\n  bucket_size: 256KB\n  algorithm: ring\n", None),
    "gpipe_identity": ("GPipe 2 stages x 2 replicas, identity placement", GPIPE, "{kind: identity}"),
    "gpipe_random": ("GPipe 2 stages x 2 replicas, random placement", GPIPE, "{kind: random, seed: 5}"),
    "gpipe_scheduled": ("GPipe 2 stages x 2 replicas, placement from geotrain schedule", GPIPE,
                        "{kind: file, file: assignments/NETWORK.json}"),
    # The decentralized strategies (issue 8); an iteration of diloco_h4 is a round of 4 inner steps.
    "diloco_h4": ("DiLoCo, 4 inner AdamW steps per round, pseudo-gradient all-reduce (ring)",
                  "  name: diloco\n  inner_steps: 4\n", None),
    "sdpipe": ("SD-Pipe partial reduce, 2 stages x 2 replicas, window 20 ms (5-200 ms)",
               "  name: sdpipe-preduce\n  stages: 2\n  replicas: 2\n  window_initial: 20ms\n"
               "  window_min: 5ms\n  window_max: 200ms\n  full_sync_every: 4\n", None),
    "adpsgd": ("AD-PSGD, gossip with one seeded random peer per step", "  name: adpsgd\n  seed: 11\n", None),
    "hetpipe": ("HetPipe, 2 stages x 2 virtual workers, parameter server on replica 0",
                "  name: hetpipe\n  stages: 2\n  replicas: 2\n  server: 0\n", None),
    "hetpipe_stale": ("HetPipe with staleness 1: two waves per iteration on local weights, pulls at its end",
                      "  name: hetpipe\n  stages: 2\n  replicas: 2\n  server: 0\n  staleness: 1\n", None),
}


# Outside the steady state (issue 31): seeded stragglers, hivemind's averaging timeout, churn and a
# bandwidth change, each at 4, 8 and 16 workers on DT-FM case 5's cities. Each entry: what it is,
# its strategy, and the sections added after it (`WORKERS` is replaced by the world size's facts).
DYNAMIC = {
    "ddp_stragglers": ("data parallel, ring all-reduce, seeded 200 ms stragglers (10 % of rank-steps)",
                       "  name: ddp-allreduce\n  algorithm: ring\n",
                       "stragglers: {probability: 0.1, sleep: 200ms, seed: 7}\n"),
    "diloco_timeout": ("DiLoCo H = 4 with hivemind's averaging timeout (300 ms after the first ready), "
                       "seeded 150 ms stragglers (20 % of rank-steps)",
                       "  name: diloco\n  inner_steps: 4\n  averaging: timeout\n  timeout: 300ms\n",
                       "stragglers: {probability: 0.2, sleep: 150ms, seed: 7}\n"),
    "diloco_churn": ("DiLoCo H = 4 with churn: a quarter of the workers away in rounds 2-3, back (loading "
                     "the state) in round 4",
                     "  name: diloco\n  inner_steps: 4\n",
                     "CHURN"),
    "ddp_bandwidth_drop": ("data parallel, ring all-reduce; the links of device 0 (Oregon) drop to 40 % "
                           "one second in, during the warm-up step",
                           "  name: ddp-allreduce\n  algorithm: ring\n",
                           "BANDWIDTH"),
}
DYNAMIC_NETWORKS = ("case5", "case5_w8", "case5_w16")


# Low-communication training as it is done now (issue 33), each at 4, 8 and 16 workers on DT-FM case
# 5's cities, DiLoCo's round of 4 inner steps as in diloco_h4: its pseudo-gradient compressed
# (int8 blocks of 64, fp4 blocks of 32, top-k 3 % with error feedback; docs/compression.md),
# averaged by hivemind's butterfly all-reduce or Moshpit's rotating groups
# (docs/hivemind-averaging.md), or synchronized in 2 fragments whose exchange overlaps one inner
# step (Streaming DiLoCo, docs/streaming-diloco.md).
LOW_COMM = {
    "diloco_int8": ("DiLoCo H = 4, int8 pseudo-gradient (ring, requantized at each hop, blocks of 64)",
                    "  name: diloco\n  inner_steps: 4\n  compression: {kind: int8, block: 64}\n"),
    "diloco_fp4": ("DiLoCo H = 4, fp4 (e2m1) pseudo-gradient (ring, requantized at each hop, blocks of 32)",
                   "  name: diloco\n  inner_steps: 4\n  compression: {kind: fp4, block: 32}\n"),
    "diloco_topk": ("DiLoCo H = 4, top-k 3 % of the pseudo-gradient with error feedback (all-gather)",
                    "  name: diloco\n  inner_steps: 4\n  compression: {kind: topk, density: 0.03}\n"),
    "diloco_butterfly": ("DiLoCo H = 4, hivemind's butterfly all-reduce (parts by hivemind's load balancing)",
                         "  name: diloco\n  inner_steps: 4\n  algorithm: butterfly\n"),
    "diloco_moshpit": ("DiLoCo H = 4, Moshpit averaging (a seeded 2-axis grid, groups along one axis per round)",
                       "  name: diloco\n  inner_steps: 4\n  averaging: moshpit\n"),
    "streaming_diloco": ("Streaming DiLoCo H = 4, 2 fragments, each exchange overlapping 1 inner step",
                         "  name: streaming-diloco\n  inner_steps: 4\n  fragments: 2\n  overlap_steps: 1\n"),
}
LOW_COMM_NETWORKS = ("case5", "case5_w8", "case5_w16")


def dynamic_sections(variant, workers):
    extra = DYNAMIC[variant][2]
    if extra == "CHURN":
        away = range(1, workers, 4)  # ranks 1, 5, 9, 13: one worker in four
        return "churn:\n" + "".join(f"  - {{worker: {w}, leave: 2, join: 4}}\n" for w in away)
    if extra == "BANDWIDTH":
        return ""  # inside the network section (network_of)
    return extra


# One variant per strategy at 8 and 16 workers; the pipelines keep 2 stages, with workers / 2
# replicas. gpt-mini: the strategies whose bytes dominate differently (ring, pipeline, local SGD,
# gossip).
LARGER = ["ddp_ring", "ddp_bucketed", "ps_gather", "ps_sharded", "gpipe_identity", "diloco_h4",
          "sdpipe", "adpsgd", "hetpipe"]
MINI = ["ddp_ring", "gpipe_identity", "diloco_h4", "adpsgd"]


def suite():
    """(variant, network) of every case, in file-name order."""
    cases = [(v, n) for v in VARIANTS for n in ("case3", "case4", "case5")]
    cases += [(v, f"{c}_w{w}") for v in LARGER for c in ("case3", "case4", "case5") for w in (8, 16)]
    cases += [(v, f"{c}_mini") for v in MINI for c in ("case3", "case4", "case5")]
    cases += [(v, n) for v in DYNAMIC for n in DYNAMIC_NETWORKS]
    cases += [(v, n) for v in LOW_COMM for n in LOW_COMM_NETWORKS]
    return cases


# Steps per emulation: 8 (the first is warm-up, so 7 iterations are judged). AD-PSGD and SD-Pipe
# get 24 on gpt-tiny: their iteration times are multimodal by design (an iteration with or
# without a long-haul gossip pair; with lone reduces or a full sync), so the median of 7 falls
# in either mode and one iteration moves it by 10-60 %. gpt-mini keeps 8 (1-8 min per case).
# SD-Pipe gets 48: compare leaves out an asynchronous run's drain (the slow replicas' last steps,
# run alone after the fast ones finished), and a replica at half the others' pace leaves half of
# a run to the drain; of 24 steps 12 were judged, and the 3-5 steps the simulated run took
# before its slowest replica was also the last made that median fall between two modes.
# DiLoCo with the averaging timeout gets 48: which ranks share a window changes from round to
# round (a rank alone, two, or all eight), so its rounds are multimodal too; with 8 steps the
# median of four or five judged rounds moved by 20-30 % between runs of the same case
# (2026-11-28/29: five runs 5.9-9.9 s at 16 workers, 3.2-3.9 s at 8). With 24, the ranks run
# free of each other and drift apart, the 16-worker runs left 11 rounds to the drain, and the
# median of the 12 judged rounds still spread by 32 % over five runs (2026-11-29).
LONG_RUNS = {"adpsgd": 24, "sdpipe": 48, "diloco_timeout": 48}


def steps_of(variant, network):
    return LONG_RUNS[variant] if variant in LONG_RUNS and not network.endswith("_mini") else 8


def workers_of(net):
    return sum(n for _, n in net["groups"])


def scenario(variant, network):
    if variant in VARIANTS:
        what, strategy, placement = VARIANTS[variant]
    elif variant in LOW_COMM:
        what, strategy, placement = LOW_COMM[variant] + (None,)
    else:
        what, strategy, placement = DYNAMIC[variant][:2] + (None,)
    net = NETWORKS[network]
    workers = workers_of(net)
    replicas = workers // 2
    strategy = strategy.replace("  replicas: 2\n", f"  replicas: {replicas}\n")
    what = what.replace("2 replicas", f"{replicas} replicas").replace("2 virtual workers", f"{replicas} virtual workers")
    groups = "".join(f"    - {{region: {r}, count: {n}, profile: cpu}}\n" for r, n in net["groups"])
    text = (f"# Validation suite (geotrain validate): {what}.\n# {net['comment']}.\n"
            f"# {net.get('model', 'gpt-tiny')} on CPU workers; link rates scaled by 0.05 so communication matters.\n"
            "# Generated by make_suite.py.\n"
            f"name: {variant}__{network}\nseed: 3\ndevices:\n  groups:\n{groups}"
            f"network:\n{net['network']}"
            + ("  bandwidth_changes:\n    - {at: 1s, factor: 0.4, devices: [0]}\n"
               if variant in DYNAMIC and DYNAMIC[variant][2] == "BANDWIDTH" else "") +
            f"model:\n  preset: {net.get('model', 'gpt-tiny')}\n"
            # 4 sequences per worker per step at every size (a pipeline replica: 2 micro-batches).
            f"training:\n  global_batch: {4 * workers}\n  micro_batch: 4\n  steps: {steps_of(variant, network)}\n  optimizer: adam\n"
            "  learning_rate: 0.003\n"
            f"strategy:\n{strategy}")
    if placement:
        text += f"placement: {placement.replace('NETWORK', network)}\n"
    if variant in DYNAMIC:
        text += dynamic_sections(variant, workers)
    text += "emulation: {bandwidth_scale: 0.05, delay_scale: 1, torch_threads: 1, collectives: p2p}\n"
    return text


if __name__ == "__main__":
    for v, n in suite():
        with open(os.path.join(HERE, f"{v}__{n}.yaml"), "w") as f:
            f.write(scenario(v, n))
