#!/usr/bin/env python3
"""tools/multi_gpu_validation.py --logs on a git repository laid out as
lambdal/deeplearning-benchmark's pytorch/results/ and results_v2/, with logs written here:
ResNet-50's figure is the Summary line's train.compute_ips (not the per-iteration lines before
it), BERT's is the steps and seconds between the first and the last dllogger "Training
Iteration" line, across midnight, and a folder named v2/ is read from results_v2/. A folder
without the lines is refused, naming it. Expected values worked out by hand below.

Usage: test_lambda_logs.py   (run from the source root)
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, "tools")
import multi_gpu_validation as tool  # noqa: E402

RESNET = """DLL 2024-05-02 05:00:00.000000 - PARAMETER data_backend : synthetic  batch_size : 256  amp : True
DLL 2024-05-02 05:00:10.000000 - Epoch: 0 Iteration: 1  train.compute_ips : 354.84 images/s
DLL 2024-05-02 05:00:11.000000 - Epoch: 0 Iteration: 2  train.compute_ips : 3059.50 images/s
DLL 2024-05-02 05:03:00.000000 - Summary: train.loss : 5.28 None train.compute_ips : 3079.98 images/s train.total_ips : 3079.50 images/s
"""
# steps 1 and 101 of one epoch, the second stamped after midnight
BERT = """torchrun --nproc_per_node=2 run_squad.py --train_batch_size=16
DLL 2022-10-24 23:59:20.000000 - PARAMETER train_batch_size : 16
DLL 2022-10-24 23:59:49.491452 - Training Epoch: 0 Training Iteration: 1  step_loss : 6.1
DLL 2022-10-25 00:00:31.000000 - Training Epoch: 0 Training Iteration: 51  step_loss : 6.1
DLL 2022-10-25 00:01:13.053717 - Training Epoch: 0 Training Iteration: 101  step_loss : 6.0
"""


def write(repo, path, text):
    os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
    with open(os.path.join(repo, path), "w") as f:
        f.write(text)


def main():
    failures = []

    def check(what, ok):
        if not ok:
            failures.append(what)
            print("FAIL:", what)

    with tempfile.TemporaryDirectory() as repo:
        for where in ("pytorch/results/Two_v1", "pytorch/results_v2/Two_v2"):
            for test, text in (("resnet50_AMP", RESNET), ("resnet50_FP32", RESNET)):
                write(repo, f"{where}/PyTorch_{test}/a.txt", text)
            for net in ("bert_base", "bert_large"):
                for fam in ("FP16", "FP32"):
                    write(repo, f"{where}/PyTorch_{net}_squad_{fam}/a.txt", BERT)
        write(repo, "pytorch/results/Empty_v1/PyTorch_resnet50_AMP/a.txt", "no summary\n")
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(["git", "-C", repo, "add", "."], check=True)
        subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                        "commit", "-q", "-m", "logs"], check=True)

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            tool.from_logs(repo, ["Two_v1", "v2/Two_v2"])
        lines = out.getvalue().splitlines()
        # 23:59:49.491452 to midnight is 10.508548 s, then 73.053717 s: 83.562265 s, shown
        # to the millisecond; 101 - 1 = 100 steps; batch 16 per GPU; ResNet-50: 256 and the
        # Summary's 3079.98, not an iteration's
        want = ("((256, 3079.98), (16, 100, 83.562), (16, 100, 83.562), (256, 3079.98), "
                "(16, 100, 83.562), (16, 100, 83.562))")
        check("results/ folder", lines[0] == f'    "Two_v1": {want},')
        check("results_v2/ folder", lines[1] == f'    "v2/Two_v2": {want},')

        # the steady rate the tool takes from such a cell: 100 x 16 x 2 / 83.562265 = 38.29/s
        tool.FIGURES["Two_v1"] = eval(want)
        batch, rate = tool.measured("Two_v1", 2, "fp16", "bert_large")
        check(f"steady rate {rate}", batch == 16 and abs(rate - 3200 / 83.562) < 1e-9)

        r = subprocess.run([sys.executable, "tools/multi_gpu_validation.py", "--logs", repo],
                           capture_output=True, text=True)
        check("the whole of MULTI from a repository that lacks it is refused",
              r.returncode != 0 and "no ResNet-50 fp16 Summary line" in r.stderr)
        err = io.StringIO()
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                tool.from_logs(repo, ["Empty_v1"])
            check("a folder without a Summary line is refused", False)
        except SystemExit as e:
            check(f"the refusal names the folder: {e}", "Empty_v1" in str(e))

    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
