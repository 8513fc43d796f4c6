"""The charts a notebook shows are the page's: the same figure for the same counts, and the
SVG alone carries the page's chart rules."""

import json
import re

import numpy as np
import pytest
import tessera

from conftest import ROOT, EXAMPLES


def page_strings(slug):
    """Every string of a built docs page (`make site` writes dist/lazy/docs-HASH/pages/)."""
    pages = sorted(ROOT.glob(f"dist/lazy/docs-*/pages/{slug}.json"))
    assert pages, "the built site's pages are missing: `make site` builds them (make test does, before this)"
    found = []

    def walk(value):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(json.loads(pages[-1].read_text()))
    return found


def test_the_roofline_of_a_profile_is_the_costs_pages_figure():
    content = (ROOT / "content" / "costs.md").read_text()
    source = re.search(r"```tsr N=65536 grid=256 roofline\n(.*?)```", content, re.S).group(1)
    m = tessera.compile(source)
    p = m.profile(grid=(256,), dims={"N": 65536}, X="rand:1")
    chart = p.roofline()
    figures = [f for s in page_strings("costs") for f in re.findall(r"<figure class=\"chart-figure roofline\".*?</figure>", s, re.S)]
    assert chart.figure in figures
    assert chart._repr_svg_().startswith('<svg xmlns=') and "<style>" in chart.svg
    assert 'class="chart"' in chart.svg
    assert "sm_80 A100" in str(chart) and "compute-bound" in str(p.roofline("sm_80"))


def test_profile_takes_runs_arguments_and_counts_on_the_simulator_only():
    m = tessera.compile((EXAMPLES / "matvec.tsr").read_text())
    a, w = np.ones((1, 100), np.float32), np.ones((40, 100), np.float32)
    args = dict(grid=(5,), A=a, W=w, lanes=32, emulate_warps=False)
    p = m.profile("mv", backend="sim", **args)
    np.testing.assert_array_equal(p.outputs["C"], m.run("mv", backend="sim", **args)["C"])
    assert p.data == m.profile("mv", grid=(5,), A=a, W=w).data
    for backend in ("gpu", "cuda"):
        with pytest.raises(tessera.LaunchError, match=r"^the memory counts come from the simulator: leave out backend="):
            m.profile("mv", backend=backend, **args)


def test_occupancy_and_the_diagram_display_as_svg_and_print_as_text():
    m = tessera.compile((EXAMPLES / "tiled_matmul.tsr").read_text())
    chart = m.occupancy(arch="sm_80", registers=40)
    assert chart.figure.startswith('<div class="occupancy-charts"')
    assert chart.svg.count('class="chart"') == 3
    assert str(chart).startswith("sm_80: ") and "40 registers per thread from registers=" in str(chart)
    diagram = tessera.diagram(blocks=(4, 3), threads=256, lanes=32, block=(2, 1), thread=113)
    svg = diagram._repr_svg_()
    assert svg.startswith("<svg xmlns=") and "Warp 3 › Lane 17" in svg
    assert str(diagram).startswith("block (2, 1), warp 3, lane 17, thread 113")
