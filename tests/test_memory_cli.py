"""`python -m pipeviz export|show` with a model, stage weights and an HBM budget."""

import json

import pytest
from test_cli import cli


def export(*args):
    p = cli("export", "--format", "json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_spec_check_through_the_cli():
    d = export("-s", "1f1b", "-P", "8", "-m", "8", "--model", "gpt3-6.7b")
    m = d["metrics"]
    assert m["peak_memory_parts_gib"]["awaiting_b"][0] == 28.5
    assert m["activation_mib_per_layer"] == 912
    params0 = (4 * (12 * 4096**2 + 13 * 4096) + 50257 * 4096) * 16 / 2**30
    assert m["peak_memory_gib"][0] == pytest.approx(28.5 + params0)
    assert m["peak_memory_parts_gib"]["params"][0] == pytest.approx(params0)
    assert m["hbm_gib"] == 80 and m["memory_fits"] and m["memory_tightest_rank"] == 0
    assert d["model"]["name"] == "gpt3-6.7b" and d["layers_per_stage"] == [4] * 8
    assert d["stage_weights"] == [1] * 8  # 32 layers over 8 stages: equal
    assert "bubble_parts" not in m  # equal stages, no comm: nothing to split
    flash = export("-s", "1f1b", "-P", "8", "-m", "8", "--model", "gpt3-6.7b", "--flash")
    assert flash["metrics"]["peak_memory_parts_gib"]["awaiting_b"][0] == 8.5
    assert flash["metrics"]["activation_mib_per_layer"] == 272


def test_tensor_parallel_and_budget():
    d = export("-P", "8", "-m", "8", "--model", "gpt3-6.7b", "--t", "2", "--hbm", "20")
    m = d["metrics"]
    assert m["peak_memory_parts_gib"]["awaiting_b"][0] == 14.25
    assert not m["memory_fits"] and m["memory_tightest_rank"] == 0
    assert m["memory_over_hbm_gib"][0] == pytest.approx(m["peak_memory_gib"][0] - 20)
    assert m["memory_over_hbm_gib"][7] == 0


def test_uneven_layers_set_stage_weights_and_split_the_bubble():
    """GPT-3 6.7B's 32 layers over P=3: 11, 11, 10; weights 11/(32/3) = 1.03125 ..."""
    d = export("-P", "3", "-m", "6", "--model", "gpt3-6.7b")
    assert d["layers_per_stage"] == [11, 11, 10]
    assert d["stage_weights"] == pytest.approx([33 / 32, 33 / 32, 30 / 32])
    m = d["metrics"]
    parts = m["bubble_parts"]
    assert parts["ideal"] + parts["imbalance"] + parts["comm"] == pytest.approx(m["bubble_fraction"], abs=1e-12)
    assert parts["imbalance"] > 0 and parts["comm"] == 0
    assert not m["bubble_agrees"] and "stages cost different amounts" in m["theory_caveat"]
    equal = export("-P", "3", "-m", "6", "--model", "gpt3-6.7b", "--equal-stages")
    assert "stage_weights" not in equal and equal["metrics"]["bubble_agrees"]
    assert equal["metrics"]["peak_memory_gib"] == m["peak_memory_gib"]  # bytes follow the layers either way


def test_stage_weights_by_hand():
    d = export("-P", "4", "-m", "8", "--stage-weights", "1.3,1,1,1.2")
    assert d["stage_weights"] == [1.3, 1, 1, 1.2]
    assert d["metrics"]["makespan"] == pytest.approx(38.7)
    assert "peak_memory_gib" not in d["metrics"]
    ops = [op for op in d["ops"] if op["rank"] == 0 and op["kind"] == "F"]
    assert ops[0]["end"] - ops[0]["start"] == pytest.approx(1.3)


def test_show_prints_memory():
    p = cli("show", "-P", "8", "-m", "8", "--model", "llama2-7b", "--flash", "--hbm", "20")
    assert p.returncode == 0, p.stderr
    assert "peak memory (GiB)" in p.stdout and "tightest rank     0:" in p.stdout
    assert "over by" in p.stdout


def test_chrome_trace_has_a_memory_counter():
    p = cli("export", "-P", "4", "-m", "8", "--model", "gpt3-6.7b", "--format", "chrome-trace")
    assert p.returncode == 0, p.stderr
    events = json.loads(p.stdout)["traceEvents"]
    mem = [e for e in events if e["name"] == "memory rank 0"]
    assert mem and max(e["args"]["GiB"] for e in mem) == pytest.approx(
        ((8 * (12 * 4096**2 + 13 * 4096) + 50257 * 4096) * 16 + 4 * 8 * 912 * 2**20) / 2**30)


def test_custom_model():
    d = export("-P", "2", "-m", "4", "--model", "custom", "--layers", "4", "--hidden", "1024", "--heads", "16",
               "--vocab", "1000", "--seq", "512", "--mbs", "2", "--untied", "--bytes-per-param", "18")
    assert d["model"] == {"name": "custom", "L": 4, "h": 1024, "a": 16, "s": 512, "b": 2, "vocab": 1000, "t": 1,
                          "untied": True, "act": "none", "bytes_per_param": 18, "embed_layers": 0, "head_layers": 0}
    # Changing a preset's shape makes it custom; training-side fields keep its name.
    assert export("--model", "llama2-7b", "--layers", "40")["model"]["name"] == "custom"
    assert export("--model", "llama2-7b", "--seq", "4096", "--untied")["model"]["name"] == "llama2-7b"


@pytest.mark.parametrize("args,says", [
    (["--model", "gpt5"], "invalid choice: 'gpt5'"),
    (["--model", "custom", "--layers", "4"], "--model custom needs h, a, vocab"),
    (["--layers", "4"], "describe a model: give --model"),
    (["--model", "gpt3-6.7b", "--t", "0"], "--t must be a whole number in 1..64"),
    (["--model", "gpt3-6.7b", "--hbm", "-3"], "--hbm must be a number in 1..4096"),
    (["--model", "gpt3-6.7b", "--flash", "--full-recompute"], "not allowed with argument"),
    (["--stage-weights", "1,2,x,1"], "'x' is not a number"),
    (["--stage-weights", "1,2,1"], "3 stage weights were given, but 1f1b here has 4 stages"),
    (["--stage-weights", "1,0,1,1"], "stage weight 1 must be a number between 0.001 and 1000"),
    (["--model", "gpt3-6.7b", "-P", "8", "-s", "zb-v", "--layers", "12"], "L = 12 layers cannot be split over S = 16"),
])
def test_bad_model_input_is_one_line(args, says):
    p = cli("export", *args)
    assert p.returncode == 2
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
