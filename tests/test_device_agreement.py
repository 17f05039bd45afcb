"""benchmarks/device_agreement.py: a backend's answers on two devices lined up item by item, where
``conformance diff`` (which matches item and target) cannot."""

from __future__ import annotations

import json
from pathlib import Path

from report_fixtures import document, result

from benchmarks import device_agreement

ITEMS = [("indices-rank1", "torch.tensor_split"), ("doc-readme-6-into-4", "torch.tensor_split")]


def _write(path: Path, bodies: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps(document(bodies)), encoding="utf-8")
    return path


def _both(device: str, **changes: object) -> list[dict[str, object]]:
    return [result(case, op, f"torch/eager/{device}", **changes) for case, op in ITEMS]


def test_the_same_answers_on_cpu_and_cuda_agree(tmp_path: Path, capsys: object) -> None:
    path = _write(tmp_path / "results.json", _both("cpu") + _both("cuda"))
    assert device_agreement.main([str(path)]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert out.strip() == "torch/eager: cuda vs cpu: 2 items on both, 2 agree, 0 differ, 0 on one device only"


def test_a_different_answer_on_the_gpu_is_named_and_fails(tmp_path: Path, capsys: object) -> None:
    cpu = _both("cpu")
    refused = {"raised": {"phase": "run", "type": "RuntimeError", "message": "CUDA error"}}
    cuda = [*_both("cuda")[:1], result(*ITEMS[1], "torch/eager/cuda", status="error", actual=refused)]
    # the second file: results of one run may come in several files (merged, as shards)
    files = [str(_write(tmp_path / "a.json", cpu)), str(_write(tmp_path / "b.json", cuda))]
    assert device_agreement.main(files) == 1
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "2 items on both, 1 agree, 1 differ" in out
    assert "doc-readme-6-into-4::torch.tensor_split: cuda error (RuntimeError); cpu pass" in out


def test_named_pairs_replace_the_defaults_and_nothing_to_compare_is_no_green(tmp_path: Path) -> None:
    path = _write(tmp_path / "results.json", _both("cpu") + _both("xpu"))
    assert device_agreement.main([str(path)]) == 2  # xpu is no default pair: nothing compared
    assert device_agreement.main([str(path), "--pair", "xpu=cpu"]) == 0


def test_the_gpu_check_s_summary_counts_compares_and_quotes_failed_steps(tmp_path: Path) -> None:
    """benchmarks/gpu_summary.py over what benchmarks/gpu_check.sh leaves in OUT."""
    from benchmarks import gpu_summary

    (tmp_path / "torch").mkdir()
    _write(tmp_path / "torch" / "results.json", _both("cpu") + _both("cuda"))
    steps = "torch: exit 0 in 30.1 s (limit 120 s)\njax: exit 2 in 2.0 s (limit 200 s)\n"
    (tmp_path / "steps.txt").write_text(steps)
    (tmp_path / "jax.log").write_text("conformance run: adapter 'jax' could not be constructed: no GPU\n")
    assert gpu_summary.main([str(tmp_path)]) == 0
    text = (tmp_path / "summary.txt").read_text(encoding="utf-8")
    assert "  torch/eager/cuda: pass 2\n" in text and "== env.txt\n(missing)\n" in text
    assert "== jax exited 2: the end of jax.log\n  conformance run: adapter 'jax' could not" in text
    assert "torch/eager: cuda vs cpu: 2 items on both, 2 agree, 0 differ, 0 on one device only" in text
