#!/usr/bin/env python3
"""`--attention eager|fused` as a user gives it to predict and curve: on a one-block network
whose attention keeps, per sample at fp32, h S^2 = 2 x 16^2 = 512 probabilities (2048 B)
eagerly and the fp32 log-sum-exp of its h S = 32 rows (128 B) fused (tests/test_lm_memory.c
derives the whole network by hand), fused attention keeps 1920 B less per sample; the same
through the torchtitan framework file; and the bad values are one line each.

Usage: test_attention_cli.py SCALEMETER_BINARY   (run from the source root)
"""
import json
import os
import tempfile

from cli_checks import check, run, finish

NET = ("[network]\nname = tiny_lm\ninput = 16x8\n[template blk]\n"
       "attn = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=0 max_len=64\n"
       "mlp = swiglu hidden=12\n[block b.{0..0}]\nuse = blk\n"
       "[layers]\nhead = linear out=50 bias=false\nloss = cross_entropy\n")


def activations(net, batch, *extra):
    rc, out, err = run("predict", net, "--device", "h100", "-g", "1", "--batch", str(batch),
                       "--precision", "fp32", "--format", "json", *extra)
    check(rc == 0, f"predict {extra}: {err}")
    return json.loads(out)["memory"]["activations"] if rc == 0 else None


with tempfile.TemporaryDirectory() as d:
    net = os.path.join(d, "tiny_lm.ini")
    with open(net, "w") as f:
        f.write(NET)
    for batch in (1, 4):
        eager = activations(net, batch)
        fused = activations(net, batch, "--attention", "fused")
        titan = activations(net, batch, "--framework", "torchtitan")
        back = activations(net, batch, "--framework", "torchtitan", "--attention", "eager")
        if None not in (eager, fused, titan, back):
            check(eager - fused == 1920 * batch, f"batch {batch}: {eager} - {fused}")
            check(titan == fused and back == eager, f"framework: {titan} {back}")
    rc, out, err = run("curve", net, "--device", "h100", "-g", "1", "--batch", "1",
                       "--nodes", "1", "--attention", "fused")
    check(rc == 0 and "fused attention" in out, f"curve names it: {rc} {err}")
    for cmd in ("predict", "curve"):
        rc, out, err = run(cmd, net, "--device", "h100", "--batch", "1", "--attention", "flash")
        check(rc == 2 or rc == 1, f"{cmd} --attention flash exit {rc}")
        check(err.strip() == f"scalemeter {cmd}: --attention: expected eager or fused",
              f"{cmd}: {err!r}")
        rc, out, err = run(cmd, net, "--coeffs", "h100-pytorch-bf16", "--batch", "1",
                           "--attention", "fused")
        check(rc != 0 and err.count("\n") == 1 and "applies to --device alone" in err,
              f"{cmd} with --coeffs: {rc} {err!r}")

finish()
