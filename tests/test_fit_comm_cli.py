#!/usr/bin/env python3
"""`scalemeter fit-comm` as an operator runs it: nccl-tests all_reduce_perf output of one node of
8 GPUs and of 2 and 4 such nodes, written here in nccl-tests' own layout (header, '# Rank ... on
HOST' lines, NCCL INFO noise, out-of-place and in-place columns, the closing bus-bandwidth lines)
from chosen link parameters, must give those parameters back; the device description it writes
must carry them into `curve`; every malformed input gets one line naming the file (and line).

Usage: test_fit_comm_cli.py SCALEMETER_BINARY   (run from the source root)
"""
import json
import os
import subprocess
import tempfile

from cli_checks import SM, check, near, run, finish

# The cluster the files describe: NVLink 360 GB/s per direction and 5 us per ring step inside a
# node, 8 ports of 45 GB/s and 12 us per step between nodes (the DGX H100 of configs/devices has
# 8 ports per node, which fit-comm takes from --device-base h100).
B_INTRA, L_INTRA, B_PORT, L_INTER, PORTS = 360e9, 5e-6, 45e9, 12e-6, 8


def ring_time(s, nodes, g):
    """The hierarchical ring, written out independently of the code under test."""
    t = 0.0
    if g > 1:
        t += 2 * (g - 1) / g * s / B_INTRA + 2 * (g - 1) * L_INTRA
    if nodes > 1:
        t += 2 * (nodes - 1) / nodes * s / (min(PORTS, g) * B_PORT) + 2 * (nodes - 1) * L_INTER
    return t


def nccl_ring_time(s, nodes, g, b_port=B_PORT):
    """NCCL's ring on the Simple protocol (src/graph/tuning.cc: base latency 8.4 us, one latency
    per step, 2(N-1) of the 2(n-1) steps across the network), one ring through all n devices at
    the pace of its slowest link, written out independently of the code under test."""
    n = nodes * g
    bus = B_INTRA if nodes == 1 else min(B_INTRA, min(PORTS, g) * b_port)
    return (8.4e-6 + (2 * (n - 1) - 2 * (nodes - 1)) * L_INTRA + 2 * (nodes - 1) * L_INTER +
            2 * (n - 1) / n * s / bus)


def half_ring_time(s, nodes, g):
    """An all-gather or reduce-scatter of s bytes (the gathered buffer) on the same rings: each
    device sends (n - 1) / n of s in n - 1 steps, half an all-reduce's traffic and steps."""
    t = 0.0
    if g > 1:
        t += (g - 1) / g * s / B_INTRA + (g - 1) * L_INTRA
    if nodes > 1:
        t += (nodes - 1) / nodes * s / (min(PORTS, g) * B_PORT) + (nodes - 1) * L_INTER
    return t


def nccl_tests_output(nodes, g, root_column=True, time=ring_time, collective=None, redop="sum",
                      per_rank=None):
    lines = ([f"# Collective test starting: {collective}"] if collective else []) + [f"# nThread 1 nGpus 1 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 "
             f"iters: 20 agg iters: 1 validation: 1 graph: 0",
             "#", "# Using devices"]
    for r in range(nodes * g):
        lines.append(f"#  Rank {r:2d} Group  0 Pid {4000 + r:6d} on {'node%02d' % (r // g):>10s} "
                     f"device {r % g:2d} [0x{16 + r % g:02x}] NVIDIA H100 80GB HBM3")
    lines.append("node00:4000:4000 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>")
    root = "    root" if root_column else ""
    lines.append("#                                                              out-of-place   "
                 "                    in-place")
    lines.append(f"#       size         count      type   redop{root}     time   algbw   busbw "
                 "#wrong     time   algbw   busbw #wrong")
    lines.append(f"#        (B)    (elements)                      {'       ' if root_column else ''}"
                 "(us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)")
    # all_gather_perf and reduce_scatter_perf (nccl-tests' getCollByteCount) give each rank
    # size / 4 / ranks floats, rounded down, print that count and the whole buffer's bytes:
    # "0 0" below a float a rank
    # (broadcast_perf's rows, "none" too, count the whole buffer: per_rank=False)
    if per_rank is None:
        per_rank = redop == "none" or collective in ("all_gather_perf", "reduce_scatter_perf")
    parts = nodes * g if per_rank else 1
    s = 8
    while s <= 256 << 20:
        count = s // 4 // parts
        size = count * 4 * parts
        us = time(size, nodes, g) * 1e6 if size else 0.3
        algbw = size / (us * 1e-6) / 1e9
        busbw = algbw * 2 * (nodes * g - 1) / (nodes * g)
        r = "      -1" if root_column else ""
        lines.append(f"{size:12d}  {count:12d}     float  {redop:>6s}{r}  {us:8.2f}  {algbw:6.2f}  "
                     f"{busbw:6.2f}      0  {us * 1.01:8.2f}  {algbw:6.2f}  {busbw:6.2f}      0")
        s *= 2
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 123.456", "#"]
    return "\n".join(lines) + "\n"


with tempfile.TemporaryDirectory() as d:
    def write(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    one = write("one-node.txt", nccl_tests_output(1, 8))
    two = write("two-nodes.txt", nccl_tests_output(2, 8, root_column=False))
    four = write("four-nodes.txt", nccl_tests_output(4, 8))
    out = os.path.join(d, "fitted.ini")

    # the hierarchical ring (the h100 description's collective is NCCL's: asked for)
    rc, so, se = run("fit-comm", one, two, four, "--device-out", out, "--format", "json",
                     "--collective", "ring")
    check(rc == 0, f"fit-comm exit {rc}: {se}")
    if rc == 0:
        r = json.loads(so)
        # times are printed to 0.01 us, so the small sizes carry rounding: 1% is generous
        check(near(r["intra"]["bandwidth_gb_s"], B_INTRA / 1e9, 0.01), f"intra bw {r['intra']}")
        check(near(r["intra"]["latency_us"], L_INTRA * 1e6, 0.01), f"intra lat {r['intra']}")
        check(near(r["inter"]["bandwidth_gb_s"], B_PORT / 1e9, 0.01), f"inter bw {r['inter']}")
        check(near(r["inter"]["latency_us"], L_INTER * 1e6, 0.01), f"inter lat {r['inter']}")
        check(r["intra"]["fitted"] and r["inter"]["fitted"], "both levels fitted")
        check(r["inter"]["ports"] == PORTS, "ports from the h100 description")
        # 1 MiB to 256 MiB: 9 sizes per file
        check(r["samples"] == 27, f"27 samples of >= 1 MiB, got {r['samples']}")
        check(r["mape"] < 0.01, f"mape {r['mape']}")

        # The written description is a device description curve accepts, with the fitted keys.
        with open(out) as f:
            text = f.read()
        keys = {}
        section = ""
        for line in text.splitlines():
            line = line.split(";")[0].strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                keys[(section, k)] = v
        check(near(float(keys[("node", "intra_node_bandwidth_gb_s")]), 360, 0.01), "written intra bw")
        check(near(float(keys[("node", "inter_node_latency_us")]), 12, 0.01), "written inter lat")
        check(keys.get(("node", "devices_per_node")) == "8", "other keys kept from the base")
        check(keys.get(("node", "collective")) == "ring", "the form fitted is the collective")
        check(keys.get(("device", "peak_tf32_tflops")) is not None, "device keys kept")
        rc, so, se = run("curve", "resnet50", "--device", out, "--batch", "64", "--nodes", "1:4",
                         "--format", "json")
        check(rc == 0, f"curve on the written description: {se}")

    # -o FILE, as every command that prints data takes it (it was refused as an unknown
    # option): the same JSON there as on the standard output, and nothing on the latter
    rc, so, se = run("fit-comm", one, two, "--format", "json", "--collective", "ring")
    table = os.path.join(d, "fit.json")
    rc2, so2, se2 = run("fit-comm", one, two, "--format", "json", "--collective", "ring", "-o",
                        table)
    check(rc == 0 and rc2 == 0 and so2 == "", f"fit-comm -o: exit {rc2}, stdout {so2!r}: {se2}")
    if rc2 == 0:
        with open(table) as f:
            check(so != "" and f.read() == so, "fit-comm -o wrote other than its standard output")
    rc, _, se = run("fit-comm", one, "-o", one)
    check(rc == 2 and "is the input" in se, f"fit-comm -o over its input: exit {rc}: {se}")

    # all_gather_perf (its rows' reduction "none", with or without nccl-tests' "Collective test
    # starting" line) and reduce_scatter_perf (known by that line alone) give the same links back.
    ag = [write(f"ag-{n}.txt", nccl_tests_output(n, 8, time=half_ring_time, redop="none",
                                                   collective="all_gather_perf" if n > 1 else None))
          for n in (1, 2)]
    rs = write("rs-4.txt", nccl_tests_output(4, 8, time=half_ring_time,
                                              collective="reduce_scatter_perf"))
    rc, so, se = run("fit-comm", *ag, rs, "--format", "json", "--collective", "ring")
    check(rc == 0, f"all-gather and reduce-scatter runs: {se}")
    if rc == 0:
        r = json.loads(so)
        check(near(r["intra"]["bandwidth_gb_s"], 360, 0.01) and
              near(r["intra"]["latency_us"], 5, 0.02), f"gather intra {r['intra']}")
        check(near(r["inter"]["bandwidth_gb_s"], 45, 0.01) and
              near(r["inter"]["latency_us"], 12, 0.02), f"gather inter {r['inter']}")
        check(r["mape"] < 0.01, f"gather mape {r['mape']}")
    other = write("alltoall.txt", nccl_tests_output(1, 8, collective="alltoall_perf"))
    rc, so, se = run("fit-comm", other)
    check(rc != 0 and f"{other}:1: a run of alltoall_perf" in se and se.count("\n") == 1,
          f"alltoall refused in one line: {rc} {se}")

    # Inside one node only: the inter-node terms stay the base's, and the table says so.
    rc, so, se = run("fit-comm", one, "--collective", "ring")
    check(rc == 0 and "from the base" in so and "fitted" in so, f"one node only: {rc} {so} {se}")

    # Across nodes only: the intra-node terms come from the base description.
    rc, so, se = run("fit-comm", two, "--format", "json", "--collective", "ring")
    check(rc == 0 and not json.loads(so)["intra"]["fitted"] and json.loads(so)["inter"]["fitted"]
          if rc == 0 else False, f"two nodes only: {rc} {se}")

    # Our own allreduce CSV, with its nodes column, fits the same way.
    rows = ["bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s"]
    for nodes in (1, 2):
        s = 1 << 20
        while s <= 64 << 20:
            t = ring_time(s, nodes, 8)
            rows.append(f"{s},nccl,{8 * nodes},{nodes},{t:.6e},{s / t / 1e9:.4f},0")
            s *= 2
    csv = write("allreduce.csv", "\n".join(rows) + "\n")
    rc, so, se = run("fit-comm", csv, "--format", "csv", "--collective", "ring")
    check(rc == 0, f"csv input: {se}")
    if rc == 0:
        lines = so.strip().splitlines()
        check(lines[0] == "level,bandwidth_gb_s,latency_us,fitted,collective",
              f"csv header {lines[0]}")
        intra = lines[1].split(",")
        check(near(float(intra[1]), 360, 0.01) and near(float(intra[2]), 5, 0.02), f"csv {intra}")

    # The op column (`allreduce --device --op OP --format csv` writes it): an all-gather's or
    # reduce-scatter's rows are half a ring each, by hand above; without the column every row
    # was read as an all-reduce and the links came back twice as fast.
    for op in ("all_gather", "reduce_scatter"):
        rows = ["bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s,algorithm,protocol,op"]
        for nodes in (1, 2):
            rows += [f"{1 << k},model,{8 * nodes},{nodes},{half_ring_time(1 << k, nodes, 8):.6e},"
                     f"0,0,ring,Simple,{op}" for k in range(20, 27)]
        rc, so, se = run("fit-comm", write(f"{op}.csv", "\n".join(rows) + "\n"), "--format",
                         "json", "--collective", "ring")
        r = json.loads(so) if rc == 0 else {}
        check(rc == 0 and near(r["intra"]["bandwidth_gb_s"], 360, 0.01) and
              near(r["intra"]["latency_us"], 5, 0.02) and
              near(r["inter"]["bandwidth_gb_s"], 45, 0.01) and
              near(r["inter"]["latency_us"], 12, 0.02), f"op {op}: {rc} {r} {se}")
    bad_op = write("alltoall.csv", "bytes,impl,ranks,nodes,time_s,op\n"
                   "1048576,model,8,1,1e-4,all_reduce\n2097152,model,8,1,2e-4,alltoall\n")
    rc, so, se = run("fit-comm", bad_op)
    check(rc != 0 and se.strip() == f"scalemeter fit-comm: {bad_op}:3: op 'alltoall'; fit-comm reads "
          "all_reduce, all_gather and reduce_scatter", f"op alltoall: {rc} {se!r}")
    # and the writer's own output comes back as the description it was predicted from
    # (configs/devices/h100.ini: NVLink 370.8 GB/s, 3.4 us a step)
    ag = [run("allreduce", "--device", "h100", "--nodes", str(n), "--op", "all_gather",
              "--collective", "ring", "--min-bytes", "1M", "--format", "csv") for n in (1, 2)]
    files = [write(f"ag{i}.csv", so) for i, (rc, so, se) in enumerate(ag)]
    rc, so, se = run("fit-comm", *files, "--format", "json", "--collective", "ring")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and near(r["intra"]["bandwidth_gb_s"], 370.8, 0.01) and
          near(r["intra"]["latency_us"], 3.4, 0.02), f"allreduce --op all_gather round trip: {r} {se}")

    # A log captured through the launcher's labels, as operators run nccl-tests under Slurm
    # (`srun --label`: "0: ", " 0: " with 10 tasks or more) or Open MPI (`mpirun
    # --tag-output`: "[1,0]<stdout>:"), was refused as "not a format fit-comm reads"; read
    # past, it gives the links back, and an error still names the file's own line.
    plain = nccl_tests_output(2, 8)
    for name, label in (("srun.txt", "0: "), ("srun-padded.txt", " 0: "),
                        ("tagged.txt", "[1,0]<stdout>:")):
        labelled = write(name, "".join(label + l for l in plain.splitlines(True)))
        rc, so, se = run("fit-comm", one, labelled, "--format", "json", "--collective", "ring")
        r = json.loads(so) if rc == 0 else {}
        check(rc == 0 and near(r["inter"]["bandwidth_gb_s"], B_PORT / 1e9, 0.01),
              f"{name}: a labelled log fits: {rc} {se}")
    cut = plain.splitlines(True)
    bad_at = next(k for k, l in enumerate(cut) if l.lstrip().startswith("1048576 "))
    cut[bad_at] = cut[bad_at].replace("1048576 ", "x1048576 ", 1)
    labelled = write("srun-bad.txt", "".join("0: " + l for l in cut))
    rc, so, se = run("fit-comm", labelled, "--collective", "ring")
    check(rc != 0 and f"srun-bad.txt:{bad_at + 1}:" in se, f"a labelled log's error line: {se}")

    # FILE@NODES: a CSV without a nodes column, 16 ranks said to be on 2 nodes.
    rows2 = ["bytes,impl,ranks,time_s"] + [
        f"{1 << k},nccl,16,{ring_time(1 << k, 2, 8):.6e}" for k in range(20, 27)]
    csv2 = write("no-nodes.csv", "\n".join(rows2) + "\n")
    rc, so, se = run("fit-comm", one, csv2 + "@2", "--format", "json", "--collective", "ring")
    check(rc == 0 and near(json.loads(so)["inter"]["bandwidth_gb_s"], 45, 0.01) if rc == 0 else
          False, f"FILE@NODES: {rc} {se}")

    # NCCL's ring on Simple (the h100 description's collective, so the default form): runs made
    # with NCCL_ALGO=Ring NCCL_PROTO=Simple. With 40 GB/s ports (8 x 40 < 360) the network is
    # the ring's slowest link between nodes and its bandwidth is fitted back.
    def nccl_file(name, nodes, b_port):
        return write(name, nccl_tests_output(
            nodes, 8, time=lambda s, n, g: nccl_ring_time(s, n, g, b_port)))

    nccl_one = nccl_file("nccl-one.txt", 1, 40e9)
    nccl_out = os.path.join(d, "nccl.ini")
    # a base without NVLink SHARP, so that NCCL's model runs the fitted ring on large messages
    with open("configs/devices/h100.ini") as f:
        no_nvls = write("h100-no-nvls.ini", f.read().replace("nvls_efficiency = 0.85",
                                                             "nvls_efficiency = 0"))
    rc, so, se = run("fit-comm", nccl_one, nccl_file("nccl-two.txt", 2, 40e9),
                     nccl_file("nccl-four.txt", 4, 40e9), "--format", "json",
                     "--device-out", nccl_out, "--device-base", no_nvls)
    check(rc == 0, f"nccl form: {se}")
    if rc == 0:
        r = json.loads(so)
        check(r["collective"] == "nccl" and not r["inter_bandwidth_hidden"], f"nccl form: {r}")
        check(near(r["intra"]["bandwidth_gb_s"], 360, 0.01) and
              near(r["intra"]["latency_us"], 5, 0.02), f"nccl intra {r['intra']}")
        check(near(r["inter"]["bandwidth_gb_s"], 40, 0.01) and
              near(r["inter"]["latency_us"], 12, 0.02), f"nccl inter {r['inter']}")
        check(r["mape"] < 0.01, f"nccl mape {r['mape']}")
        with open(nccl_out) as f:
            check("collective = nccl" in f.read(), "nccl form written as collective = nccl")
        # the fitted description predicts the runs back through NCCL's model (LL and LL128 are
        # faster than Simple only below the sizes compared here)
        rc, so, se = run("allreduce", "--device", nccl_out, "--nodes", "2", "--min-bytes", "1G",
                         "--max-bytes", "1G", "--format", "csv")
        row = so.strip().splitlines()[-1].split(",") if rc == 0 else ["0"] * 5
        check(rc == 0 and near(float(row[4]), nccl_ring_time(1 << 30, 2, 8, 40e9), 0.01),
              f"allreduce --device of the fitted description: {rc} {row} {se}")
    # With 50 GB/s ports (8 x 50 > 360) the runs across nodes go at NVLink's pace: the network
    # bandwidth is not seen, only its latency.
    rc, so, se = run("fit-comm", nccl_one, nccl_file("nccl-two-fast.txt", 2, 50e9),
                     nccl_file("nccl-four-fast.txt", 4, 50e9), "--format", "json")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and r["inter_bandwidth_hidden"] and near(r["inter"]["latency_us"], 12, 0.02)
          and r["inter"]["bandwidth_gb_s"] * PORTS >= 360, f"network faster than NVLink: {r} {se}")
    rc, so, se = run("fit-comm", nccl_one, "--collective", "mpi")
    check(rc != 0 and "expected ring or nccl" in se, f"--collective mpi: {rc} {se}")

    # Errors: one line, naming the file (and the line where there is one), non-zero exit.
    def fails(args, *words):
        rc, so, se = run("fit-comm", *args)
        msg = se.strip()
        check(rc != 0 and len(msg.splitlines()) == 1 and all(w in msg for w in words),
              f"{args}: exit {rc}, stderr {msg!r}, expected {words}")

    norank = write("norank.txt", "\n".join(
        l for l in nccl_tests_output(1, 8).splitlines() if "Rank" not in l) + "\n")
    fails([norank], "norank.txt", "Rank")
    bad_row = write("badrow.txt", nccl_tests_output(1, 8).replace("     float     sum      -1  ",
                                                                     "     float     sum      -1  x", 1))
    fails([bad_row], "badrow.txt:")
    # an all-reduce row's count is its size in elements of its type: 262143 floats in 1048576
    # bytes, or a double with a float's count, was fitted as if nccl-tests had printed it
    good = nccl_tests_output(1, 8)
    row = next(k for k, l in enumerate(good.splitlines(), 1) if l.lstrip().startswith("1048576 "))
    for name, old, new in (("count-off.txt", "1048576        262144     float",
                            "1048576        262143     float"),
                           ("count-double.txt", "1048576        262144     float",
                            "1048576        262144    double")):
        check(old in good, f"fixture row of 1048576 bytes: {old!r}")
        fails([write(name, good.replace(old, new, 1))], f"{name}:{row}:",
              "1048576 bytes are not the row's count of 262143 float"
              if "off" in name else "1048576 bytes are not the row's count of 262144 double")
    # all_gather_perf's count is a rank's part: 8 ranks of 32768 floats are 1048576 bytes. A
    # row with the whole buffer's count (262144) was read as nccl-tests' own; its "0 0" rows
    # below a float a rank (-b 8, as nccl-tests' README runs it) were refused as malformed.
    ag_good = nccl_tests_output(1, 8, time=half_ring_time, redop="none")
    check("           0             0     float    none" in ag_good, "fixture's 0 0 rows")
    ag_row = next(k for k, l in enumerate(ag_good.splitlines(), 1)
                  if l.lstrip().startswith("1048576 "))
    old = "1048576         32768     float"
    check(old in ag_good, f"fixture all-gather row of 1048576 bytes: {old!r}")
    fails([write("ag-count.txt", ag_good.replace(old, "1048576        262144     float", 1))],
          f"ag-count.txt:{ag_row}:", "1048576 bytes are not the row's count of 262144 float",
          "on each of its 8 ranks")
    fails([os.path.join(d, "missing.txt")], "missing.txt")
    fails([write("empty.txt", "# nothing here\n")], "empty.txt", "no data rows")
    one_rank = write("one-rank.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,1,1,1e-6\n"
                     "2097152,nccl,1,1,2e-6\n")
    fails([one_rank], "one-rank.csv:2: every row is of one rank (ranks = 1)",
          "no all-reduce to fit", "give runs over several ranks")
    # `scalemeter allreduce --format csv` on one rank times nothing (time_s 0, both
    # implementations): "expected positive bytes, ranks, nodes and time_s" said the file was
    # wrong where it was of one rank
    zero = write("one-rank-zero.csv", "# one rank\nbytes,impl,ranks,nodes,time_s\n"
                 "1048576,ring,1,1,0\n1048576,mpi,1,1,0.000000e+00\n")
    fails([zero], "one-rank-zero.csv:3: every row is of one rank", "no all-reduce to fit")
    # nccl-tests' output of one rank: its file and line named, as the CSV's
    nccl_single = write("nccl-single.txt",
                        nccl_tests_output(1, 1, time=lambda s, n, g: 1e-5 + s / 1e11))
    fails([nccl_single], "nccl-single.txt:", "every run is on one rank", "no all-reduce to fit")
    # a one-rank row beside real runs is left out, as before, whatever its time
    mixed_one = write("mixed-one.csv", "bytes,impl,ranks,nodes,time_s\n"
                      "1048576,nccl,1,1,0\n" + "".join(
                          f"{b},nccl,8,1,{2e-5 + b / 2e11}\n" for b in (1 << 20, 1 << 22, 1 << 24)))
    rc, so, se = run("fit-comm", mixed_one, "--format", "json")
    check(rc == 0 and json.loads(so)["intra"]["bandwidth_gb_s"] > 0,
          f"fit-comm: a one-rank row of time 0 beside runs of 8: {rc} {se.strip()}")
    uneven = write("uneven.csv", "bytes,impl,ranks,time_s\n1048576,nccl,12,1e-4\n")
    fails([uneven + "@5"], "uneven.csv", "12 ranks", "5 nodes")
    mixed = write("mixed.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,1e-4\n"
                  "1048576,ring,8,1,2e-4\n")
    fails([mixed], "mixed.csv:3", "--impl")
    fails([one, "--min-bytes", "1G"], "need two sizes")

    # A row cut short, as a log truncated mid-number, is refused at its line: "137" of
    # "1374.89" with no algbw, busbw or #wrong once fitted 6912 GB/s within a node.
    cut = nccl_tests_output(1, 8).splitlines()
    last = max(i for i, l in enumerate(cut) if l.split() and l.split()[0].isdigit())
    cut[last] = " ".join(cut[last].split()[:5] + [cut[last].split()[5][:3]])
    fails([write("cut.txt", "\n".join(cut[:last + 1]))], f"cut.txt:{last + 1}", "algbw")
    fails([write("cut.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,1e-4\n"
                 "16777216,ring,8,1\n")], "cut.csv:3", "4 fields where the header has 5")
    fails([write("long.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,1,5e-4\n")],
          "long.csv:2", "6 fields where the header has 5")
    # FILE@NODES may not contradict a file that names its hosts: two nodes' run read @4 once
    # fitted 108 GB/s between nodes from 45; one host may be several (containers share names).
    fails([one, two + "@4", "--collective", "ring"], "two-nodes.txt", "sit on 2 nodes", "@4")
    fails([one, two + "@1", "--collective", "ring"], "two-nodes.txt", "sit on 2 nodes", "@1")
    two_csv = write("two.csv", "bytes,impl,ranks,nodes,time_s\n1048576,ring,16,2,1e-4\n"
                    "2097152,ring,16,2,2e-4\n")
    fails([two_csv + "@4"], "two.csv", "sit on 2 nodes", "@4")
    # ... nor `scalemeter allreduce`'s nodes column on one node (it counts them by shared
    # memory): @2 made one node's links the network's, exit 0
    one_csv = write("one.csv", "bytes,impl,ranks,nodes,time_s\n1048576,mpi,2,1,1e-3\n"
                    "16777216,mpi,2,1,1e-2\n")
    fails([one_csv + "@2"], "one.csv:2", "sit on 1 node (its nodes column), and @2 says 2")
    # two of its CSVs joined with cat: the second header was "expected positive bytes, ..."
    with open(one_csv) as f:
        twice = f.read() * 2
    fails([write("twice.csv", twice)], "twice.csv:4", "the header again (files joined?)")
    rc, so, se = run("fit-comm", one, write("one-host.txt", nccl_tests_output(2, 8).replace(
        "node01", "node00")) + "@2", "--format", "json", "--collective", "ring")
    check(rc == 0 and json.loads(so)["inter"]["fitted"], f"one host name @2: {rc} {se}")
    # Each '# Rank N' once: every Rank line twice made 32 ranks of 16 and 164 GB/s.
    doubled = "\n".join(l + ("\n" + l if "Rank" in l else "")
                        for l in nccl_tests_output(2, 8).splitlines()) + "\n"
    fails([write("doubled.txt", doubled)], "doubled.txt", "rank 0 given twice")
    gap = "\n".join(l for l in nccl_tests_output(1, 8).splitlines() if "Rank  3 " not in l)
    fails([write("gap.txt", gap + "\n")], "gap.txt", "rank 3 missing")
    # Ranks spread unevenly on the hosts (5 on node00, 3 on node01) are no 2 nodes of 4: they
    # were fitted as such, silently, with a MAPE of 0.144.
    skewed = "\n".join(l.replace("node00", "node01") if any(f"Rank  {r} " in l for r in (1, 2, 3))
                       else l for l in nccl_tests_output(1, 8).splitlines()) + "\n"
    fails([write("skewed.txt", skewed), two, four, "--collective", "ring"], "skewed.txt:1",
          "8 ranks sit unevenly on its 2 hosts", "5 on node00, not 4")

    # An empty CSV field is an error at its line, in every column, never a shift of the ones
    # after it (",," once merged, so that 58.2 in algbw_gb_s was read as the time).
    head = "bytes,impl,ranks,nodes,time_s,algbw_gb_s\n1048576,nccl,8,1,1e-4,10\n"
    for col, row in (("time_s", "2097152,nccl,8,1,,58.2"), ("bytes", ",nccl,8,1,2e-4,58.2"),
                     ("impl", "2097152,,8,1,2e-4,58.2"), ("ranks", "2097152,nccl,,1,2e-4,58.2"),
                     ("nodes", "2097152,nccl,8,,2e-4,58.2")):
        fails([write(f"empty-{col}.csv", head + row + "\n")], f"empty-{col}.csv:3",
              f"{col} field is empty")
    fails([write("hex.csv", head + "0x200000,nccl,8,1,2e-4,10\n")], "hex.csv:3")
    fails([write("plus.csv", head + "2097152,nccl,+8,1,2e-4,10\n")], "plus.csv:3")

    # 4,096 nodes of 64 ranks, the most hosts a run may name: each rank's host was looked up
    # among all the hosts before it, ranks x hosts (10^6 ranks on 3,907 hosts: 7.8 s); found by
    # hashing now, they are 4,096 nodes of 64 and give the links back
    big = write("big.txt", nccl_tests_output(4096, 64))
    rc, so, se = run("fit-comm", one, two, big, "--format", "json", "--collective", "ring")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and r["samples"] == 27 and r["inter"]["fitted"] and
          near(r["intra"]["bandwidth_gb_s"], B_INTRA / 1e9, 0.01) and
          near(r["intra"]["latency_us"], L_INTRA * 1e6, 0.01) and
          near(r["inter"]["bandwidth_gb_s"], B_PORT / 1e9, 0.01) and
          near(r["inter"]["latency_us"], L_INTER * 1e6, 0.01), f"4,096 nodes: {rc} {r} {se}")

    # More hosts than a run may name: 8,192 ranks on 8,192 hosts were read as 4,096 nodes of
    # 2, silently; refused at the 4,097th host's Rank line (three header lines, then rank
    # 4,096 on line 4 + 4,096)
    fails([write("big8192.txt", nccl_tests_output(8192, 1))], "big8192.txt:4100",
          "more than 4096 hosts")

    # Runs appended to one log are read each with its own ranks: two runs of 4 ranks on
    # different hosts are 1 node x 4 twice, not 2 nodes x 4 (nothing across nodes to fit).
    four_a = nccl_tests_output(1, 4)
    four_b = nccl_tests_output(1, 4).replace("node00", "node07")
    rc, so, se = run("fit-comm", write("appended4.txt", four_a + four_b), "--format", "json",
                     "--collective", "ring")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and not r["inter"]["fitted"] and r["samples"] == 18 and
          near(r["intra"]["bandwidth_gb_s"], B_INTRA / 1e9, 0.01) and
          near(r["intra"]["latency_us"], L_INTRA * 1e6, 0.01), f"appended runs: {rc} {r} {se}")
    # and one, two and four nodes in one file fit as the three files do
    both = [run("fit-comm", *files, "--format", "json", "--collective", "ring")
            for files in ([one, two, four],
                          [write("appended.txt", "".join(open(x).read() for x in (one, two, four)))])]
    got = [json.loads(so) if rc == 0 else {} for rc, so, se in both]
    check(all(rc == 0 for rc, _, _ in both) and
          all(near(got[1][k][m], got[0][k][m], 1e-9) for k in ("intra", "inter")
              for m in ("bandwidth_gb_s", "latency_us")) and
          near(got[1]["inter"]["latency_us"], L_INTER * 1e6, 0.01),
          f"one file of three runs: {got} {both[1][2]}")

    # A row nccl-tests counted wrong values in is refused at its line, in either column; N/A
    # (run with -c 0, nothing checked) is read.
    def with_row(name, size, make):
        lines = nccl_tests_output(1, 8).splitlines()
        at = next(i for i, l in enumerate(lines) if l.split() and l.split()[0] == str(size))
        lines[at] = make(lines[at])
        return write(name, "\n".join(lines) + "\n"), at + 1

    path, at = with_row("wrong-out.txt", 1 << 20,
                        lambda l: " ".join(l.split()[:8] + ["2"] + l.split()[9:]))
    fails([path], f"wrong-out.txt:{at}", "wrong values")
    path, at = with_row("wrong-in.txt", 1 << 21, lambda l: " ".join(l.split()[:-1] + ["1"]))
    fails([path], f"wrong-in.txt:{at}", "wrong values")
    unchecked = write("unchecked.txt", "\n".join(
        " ".join(l.split()[:8] + ["N/A"] + l.split()[9:-1] + ["N/A"])
        if l.split() and l.split()[0].isdigit() else l
        for l in nccl_tests_output(1, 8).splitlines()) + "\n")
    rc, so, se = run("fit-comm", unchecked, "--format", "json", "--collective", "ring")
    check(rc == 0 and json.loads(so)["samples"] == 9, f"#wrong N/A: {rc} {se}")
    # reduce_perf and broadcast_perf print the root they timed (0), the collectives fit-comm
    # reads -1; before nccl-tests named its collective a reduce's rows were an all-reduce's: half
    # a ring's time fitted 720 GB/s and 2.5 us for links of 360 GB/s and 5 us.
    for name, redop in (("reduce.txt", "sum"), ("broadcast.txt", "none")):
        lines = nccl_tests_output(1, 8, time=half_ring_time, redop=redop,
                                  per_rank=False).splitlines()
        at = next(i for i, l in enumerate(lines) if l.split() and l.split()[0].isdigit()) + 1
        rooted = write(name, "\n".join(" ".join(l.split()[:4] + ["0"] + l.split()[5:])
                                        if l.split() and l.split()[0].isdigit() else l
                                        for l in lines) + "\n")
        fails([rooted, "--collective", "ring"], f"{name}:{at}: a row of root 0",
              "a rooted collective", "reads all_reduce_perf")
    # nccl-tests before #wrong print an error column, the largest deviation ("0e+00", "2e-07"),
    # with a '*' beyond the type's tolerance: every row was refused as "counted 0e+00 wrong
    # values". Such a log gives the links back; a '*' and a FAILED out-of-bounds line refuse it.
    def old_errors(lines, delta="0e+00"):
        return [l.replace("#wrong", " error") if l.startswith("#") else
                " ".join(f[:8] + [delta] + f[9:12] + [delta]) if (f := l.split()) and
                f[0].isdigit() else l for l in lines]
    old_log = write("old-error.txt", "\n".join(old_errors(
        nccl_tests_output(1, 8).splitlines(), "2e-07")) + "\n")
    rc, so, se = run("fit-comm", old_log, "--format", "json", "--collective", "ring")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and r["samples"] == 9 and
          near(r["intra"]["bandwidth_gb_s"], B_INTRA / 1e9, 0.01) and
          near(r["intra"]["latency_us"], L_INTRA * 1e6, 0.01), f"error column: {rc} {se} {r}")
    lines = old_errors(nccl_tests_output(1, 8).splitlines())
    at = next(i for i, l in enumerate(lines) if l.split() and l.split()[0] == str(1 << 20))
    lines[at] = lines[at].replace("0e+00", "4e-01*", 1)
    fails([write("old-star.txt", "\n".join(lines) + "\n")], f"old-star.txt:{at + 1}",
          "an error of 4e-01*")
    lines = old_errors(nccl_tests_output(1, 8).splitlines())
    at = next(i for i, l in enumerate(lines) if "Out of bounds" in l)
    lines[at] = "# Out of bounds values : 3 FAILED"
    fails([write("old-failed.txt", "\n".join(lines) + "\n")], f"old-failed.txt:{at + 1}",
          "3 values out of bounds (FAILED)")
    # a size not in decimal digits is refused at its line, not skipped as noise
    path, at = with_row("hex.txt", 1 << 20, lambda l: l.replace("1048576", "0x100000", 1))
    fails([path], f"hex.txt:{at}", "decimal")
    # a time past 1e6 s (11.6 days) is no one collective: 1e308 us was fitted as data
    path, at = with_row("huge-time.txt", 1 << 20,
                        lambda l: " ".join(l.split()[:5] + ["1e308"] + l.split()[6:]))
    fails([path], f"huge-time.txt:{at}", "above 1e+06 s")
    huge_csv = write("huge-time.csv", "bytes,impl,ranks,nodes,time_s\n1048576,nccl,8,1,2e6\n")
    fails([huge_csv], "huge-time.csv:2", "time_s 2e6 is above 1e+06 s")
    fails([one, "--device-base", "nosuchdevice"], "nosuchdevice")
    fails([one, "--min-bytes", "lots"], "--min-bytes")
    # in decimal, as the other real-valued options: strtod took 0x1p4K as 16K, and a sign
    # whole bytes alone: a fraction or an exponent was taken (1e-300 printed as "at least 0
    # bytes", 1e308 as 309 digits, 12345678901234567890 as ...168: round 7), as allreduce's
    # --min-bytes refuses them
    for size in ("0x1p4K", "+1M", " 1M", "1e3", "0.1", "1.5K", "1e308", "12345678901234567890",
                 "65G"):
        fails([one, "--min-bytes", size], f"--min-bytes {size}: expected whole bytes from 0 to "
              "64G, in decimal")
    rc, so, se = run("fit-comm", one, two, "--min-bytes", "0", "--format", "json")
    check(rc == 0 and json.loads(so or "{}").get("min_bytes") == 0, f"--min-bytes 0: {se}")
    # --device-out - is the standard output, as fit's: the description in place of the table
    # (a file named '-' was written, "wrote -"); beside -o or --format, refused
    dash_dir = os.path.join(d, "dash")
    os.mkdir(dash_dir)
    p = subprocess.run([os.path.abspath(SM), "fit-comm", one, two, four, "--collective", "ring",
                        "--device-out", "-"], capture_output=True, text=True, cwd=dash_dir)
    check(p.returncode == 0 and not os.path.exists(os.path.join(dash_dir, "-")),
          f"--device-out -: exit {p.returncode}, files {os.listdir(dash_dir)}: {p.stderr}")
    check(p.stdout.startswith("; Device description written by `scalemeter fit-comm`") and
          "intra_node_bandwidth_gb_s = 360" in p.stdout and "MAPE" not in p.stdout,
          f"--device-out -: the description alone on stdout: {p.stdout[:300]}")
    fails([one, two, "--device-out", "-", "-o", "-"], "-o and --device-out name one file, - (the "
          "standard output)")
    fails([one, two, "--device-out", "-", "--format", "json"], "in place of the table: --format")
    # a file whose name holds an '@' is that file (run@2.txt), as an existing name is taken
    # whole; an '@' that names no file and no node count says both (round 7: "FILE@NODES 2.txt:
    # expected an integer")
    at_name = write("run@2.txt", nccl_tests_output(2, 8))
    rc, so, se = run("fit-comm", one, at_name, "--collective", "ring", "--format", "json")
    check(rc == 0 and json.loads(so or "{}").get("samples") == 18, f"run@2.txt: {rc} {se}")
    fails([one, os.path.join(d, "none@2.txt")], "none@2.txt: no such file, and '2.txt' after "
          "its last '@' is no node count")
    # --impl on nccl-tests output, which times NCCL alone, was ignored; nccl is what it is. One
    # file given twice counted its runs twice (round 7).
    fails([one, two, "--impl", "mpi"], "one-node.txt: nccl-tests output, NCCL's all-reduce: "
          "--impl mpi names another implementation")
    rc, so, se = run("fit-comm", one, two, "--impl", "nccl", "--collective", "ring")
    check(rc == 0, f"--impl nccl on nccl-tests output: {se}")
    fails([one, two, one], "one-node.txt and", "are one file: its runs would count twice")
    # 100 s more per all-reduce than the links explain: 100 / 14 ring steps of 8 ranks is
    # 7.1e6 us per step, beyond the 1e6 a description holds; the file is not written (it was,
    # and no command could load it; found by fuzz/fuzz_comm.c)
    slow = write("slow.csv", "bytes,impl,ranks,nodes,time_s\n" + "".join(
        f"{s},nccl,8,1,{100 + s / 1e10}\n" for s in (1 << 20, 1 << 21, 1 << 22)))
    slow_out = os.path.join(d, "slow.ini")
    fails([slow, "--collective", "ring", "--device-out", slow_out], "slow.csv",
          "intra_node_latency_us = 7.14", "slow.ini not written")
    check(not os.path.exists(slow_out), "slow.ini written")
    # a data row of two numbers after a line that reads as nccl-tests' banner: its type was
    # looked up past the last token, a null pointer, and fit-comm crashed (SIGSEGV; found by
    # fuzz/fuzz_comm.c, fuzz/regressions/comm/row-of-two-numbers); refused at its line now
    two_numbers = os.path.join(d, "two-numbers.txt")
    with open(two_numbers, "wb") as f:
        f.write(b"\xe5" * 24 + b"/s)\n     1048576        2621\n1013.9\n")
    fails([two_numbers], "two-numbers.txt:2:", "expected 'size count type redop")

    # Nodes of one GPU (PCIe cards alone in their servers): NCCL's ring goes from each GPU to
    # its one port, so the bus is the port's, and the base need not give a link inside the
    # node (it could not: the base was refused without one, and with its 0 GB/s the fit took
    # the port as hidden behind NVLink and kept the base's). Ring on Simple over N nodes of 1:
    # 8.4 us + 2(N-1) steps of L_INTER + 2(N-1)/N s / B_PORT, written out by hand.
    def lone_time(s, nodes, g):
        return 8.4e-6 + 2 * (nodes - 1) * L_INTER + 2 * (nodes - 1) / nodes * s / B_PORT
    lone_base = write("lone.ini", "[device]\npeak_fp32_tflops = 51\nmemory_bandwidth_gb_s = 2000\n"
                      "[node]\ndevices_per_node = 1\ninter_node_bandwidth_gb_s = 10\n"
                      "inter_node_latency_us = 30\ncollective = nccl\n")
    lone = [write(f"lone-{n}.txt", nccl_tests_output(n, 1, time=lone_time)) for n in (2, 4)]
    rc, so, se = run("fit-comm", *lone, "--device-base", lone_base, "--format", "json")
    r = json.loads(so) if rc == 0 else {}
    check(rc == 0 and r["inter"]["fitted"] and not r["inter_bandwidth_hidden"] and
          near(r["inter"]["bandwidth_gb_s"], B_PORT / 1e9, 0.01) and
          near(r["inter"]["latency_us"], L_INTER * 1e6, 0.02) and
          r["intra"]["bandwidth_gb_s"] is None and r["intra"]["latency_us"] is None,
          f"nodes of one GPU: {rc} {r} {se}")

finish()
