"""``synthdocqa degrade``: writes the scan (and profile) atomically; user errors exit 2 with one line."""

from __future__ import annotations

import cv2
import numpy as np
import pymupdf
import pytest

from synthdocqa.flows import cli
from synthdocqa.ir.perturbation import PerturbationProfile

from .pages import text_page


@pytest.fixture()
def run(monkeypatch):
    # only this command group: the test must not depend on other groups importing
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.degrade",))
    return cli.main


@pytest.fixture()
def page_png(tmp_path):
    path = tmp_path / "page.png"
    cv2.imwrite(str(path), cv2.cvtColor(text_page(4), cv2.COLOR_RGB2BGR))
    return path


def test_degrade_writes_jpeg_and_profile(run, page_png, tmp_path, capsys):
    out, prof = tmp_path / "o" / "scan.jpg", tmp_path / "o" / "profile.json"
    rc = run(["degrade", str(page_png), "--tier", "poor", "--seed", "3", "--out", str(out), "--dpi", "100",
              "--params-out", str(prof)])
    assert rc == 0
    data = out.read_bytes()
    assert data[:3] == b"\xff\xd8\xff"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (550, 425)
    profile = PerturbationProfile.model_validate_json(prof.read_text())
    assert profile.tier == "poor" and len(profile.pages) == 1
    assert "wrote" in capsys.readouterr().out
    # same command, same bytes
    out2 = tmp_path / "again.jpg"
    run(["degrade", str(page_png), "--tier", "poor", "--seed", "3", "--out", str(out2), "--dpi", "100"])
    assert out2.read_bytes() == data
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["profile.json", "scan.jpg"]  # no temp left


def test_degrade_pdf_and_png(run, page_png, tmp_path):
    pdf = tmp_path / "scan.pdf"
    assert run(["degrade", str(page_png), "--tier", "fair", "--seed", "1", "--out", str(pdf), "--dpi", "100"]) == 0
    doc = pymupdf.open(str(pdf))
    assert doc.page_count == 1 and doc[0].get_text().strip() == ""
    assert round(doc[0].rect.width, 2) == round(425 * 72 / 100, 2)
    png = tmp_path / "scan.png"
    assert run(["degrade", str(page_png), "--tier", "pristine", "--seed", "1", "--out", str(png)]) == 0
    assert np.array_equal(cv2.imread(str(png)), cv2.imread(str(page_png)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tier", "awful", "--seed", "1"], "unknown tier 'awful'"),
        (["--tier", "poor", "--seed", "-1"], "--seed must be >= 0"),
        (["--tier", "poor", "--seed", "1", "--dpi", "5"], "--dpi must be in"),
    ],
)
def test_user_errors_exit_2_one_line_nothing_written(run, page_png, tmp_path, capsys, args, message):
    out = tmp_path / "x" / "scan.jpg"
    rc = run(["degrade", str(page_png), *args, "--out", str(out), "--params-out", str(tmp_path / "x" / "p.json")])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_missing_unreadable_image_and_bad_extension(run, tmp_path, page_png, capsys):
    out = tmp_path / "scan.jpg"
    assert run(["degrade", str(tmp_path / "nope.png"), "--tier", "good", "--seed", "1", "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    assert run(["degrade", str(junk), "--tier", "good", "--seed", "1", "--out", str(out)]) == 2
    assert "cannot decode" in capsys.readouterr().err
    assert run(["degrade", str(page_png), "--tier", "good", "--seed", "1", "--out", str(tmp_path / "s.tif")]) == 2
    assert "unsupported extension" in capsys.readouterr().err
    assert not out.exists()


def test_degrade_device_and_help(run, page_png, tmp_path, capsys):
    out = tmp_path / "fax.png"
    assert run(["degrade", str(page_png), "--tier", "fair", "--device", "fax", "--seed", "2", "--out", str(out),
                "--dpi", "100"]) == 0
    assert set(np.unique(cv2.imread(str(out)))) <= {0, 255}  # 1-bit
    assert "(fax, fair, seed 2)" in capsys.readouterr().out
    flat = tmp_path / "flat.png"
    run(["degrade", str(page_png), "--tier", "fair", "--seed", "2", "--out", str(flat), "--dpi", "100"])
    assert flat.read_bytes() != out.read_bytes()
    assert run(["degrade", str(page_png), "--tier", "fair", "--device", "telex", "--seed", "2",
                "--out", str(tmp_path / "x.png")]) == 2
    assert "--device: unknown device 'telex'; expected one of flatbed, photocopy, fax, phone" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(SystemExit):
        run(["degrade", "--help"])
    text = capsys.readouterr().out
    from synthdocqa.ir.vocab import DEVICES, STAGE_NAMES

    assert all(f"  {d} " in text for d in DEVICES)
    assert all(n in text for n in STAGE_NAMES) and f"({len(STAGE_NAMES)};" in text
